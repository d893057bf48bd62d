# Tier 1 and 2 for every CPU variant: after a rebuild on the same configuration, per-atom
# forces (and energies where kept) match the O(N^2) double reference, and the stored
# neighbour structure holds exactly the brute-force pairs (see common/check.c for the
# tolerances). SP and LJ, several N, lattice / jittered / random / on-the-faces positions,
# before and after a few hundred MD steps, float and double. The verdict is read from the run's
# CSV row (its check columns, docs/csv.md; check_passes and check_row in tests/lib.sh), not from
# the lines printed.
cpu_variants=$(cd "$BUILD/double" && ls cpu-* 2>/dev/null)
mkdir -p "$TEST_LOG_DIR/check-rows"
check_cases=(
    "sp 7 lattice 0" "sp 12 jitter 300" "sp 16 boundary 0" "sp 10 random 0"
    "lj 10 jitter 300" "lj 14 lattice 0" "lj 12 boundary 0" "lj 10 random 0"
)
for v in $cpu_variants; do
    for prec in double float; do
        for c in "${check_cases[@]}"; do
            set -- $c
            equil=$(( $4 / 3 ))
            t_grep "check-$v-$prec-$1-ne$2-$3-s$4" '^check pass ' check_passes "$TEST_LOG_DIR/check-rows/$v-$prec-$1-$2-$3-$4.csv" \
                "$BUILD/$prec/$v" --system "$1" --ne "$2" --config "$3" --steps "$4" --equil "$equil" --check --quiet
        done
    done
done
# The rebuild rule under test (--verify-lists): at each stale structure's last use, every
# pair within r_c must still be in it. SP and LJ over enough steps for ~60-120 rebuilds,
# every CPU variant that keeps a structure between builds (keeps_structure=1 in its
# --print-config), float and double; one that keeps none refuses the flag (it would check
# nothing and pass).
for v in $cpu_variants; do
    if [ "$("$BUILD/double/$v" --print-config | sed -n 's/^keeps_structure=//p')" != 1 ]; then
        t_error "verify-lists-refused-$v" 2 "^$v: --verify-lists .* keeps none .* nothing to verify" \
            "$BUILD/double/$v" --ne 10 --steps 100 --equil 0 --verify-lists --quiet
        continue
    fi
    for prec in double float; do
        t_verified "verify-lists-$v-$prec-sp" \
            "$BUILD/$prec/$v" --ne 10 --steps 1500 --equil 100 --verify-lists --stage-reps 0 --quiet
        t_verified "verify-lists-$v-$prec-lj" \
            "$BUILD/$prec/$v" --system lj --ne 10 --steps 1200 --equil 100 --verify-lists --stage-reps 0 --quiet
    done
done
# RUMD's molten salt (--system salt: LJ + shifted-force Coulomb, charges +-1, r_c 6, ~330
# neighbours each): every CPU variant against the reference, whose pair function is the same
# definition in double (common/potential.h), after 100 MD steps.
for v in $cpu_variants; do
    for prec in double float; do
        t_grep "check-$v-$prec-salt-ne16" '^check pass ' check_passes "$TEST_LOG_DIR/check-rows/$v-$prec-salt.csv" \
            "$BUILD/$prec/$v" --system salt --ne 16 --steps 200 --equil 100 --stage-reps 0 --check --quiet
    done
done
# the per-atom energy check's floor (3% of the typical sum of |u_ij| / 2, common/check.c) against
# an error planted in atom 0's U (NBR_CHECK_PLANT_U, times that atom's sum; read only by the test
# build test-check-u, cpu-layer with -DNBR_PLANT_CHECK_U): float salt catches 1e-4 and passes
# 1e-7 (its rounding reaches ~2e-6); double catches 1e-9. The verdict and check_u_err from the
# row; which atom is worst only the energy line names (atom 0, where the error was planted).
check_energy_fails() {   # CSV ARGS...: exit 1, the row's verdict fail with check_u_err beyond tolerance, at atom 0
    local csv=$1 out rc=0
    shift
    rm -f "$csv"
    out=$("$@" --csv "$csv" 2>&1) || rc=$?
    [ -s "$csv" ] || { echo "$out" | tail -3; echo "exit $rc, no row"; return 1; }
    check_row "$csv" fail u_err || return 1
    [ $rc -eq 1 ] || { echo "exit $rc, expected 1 (a failed check)"; return 1; }
    echo "$out" | grep -Eq '^check energies: max per-atom error [0-9.e+-]+ \(atom 0\)' || { echo "not atom 0's energy"; return 1; }
}
salt_check=(--system salt --ne 16 --steps 200 --equil 100 --stage-reps 0 --check)
t_ok check-energy-planted-float-1e-4 check_energy_fails "$TEST_LOG_DIR/check-rows/plant-u-float-1e-4.csv" \
    env NBR_CHECK_PLANT_U=1e-4 "$BUILD/float/test-check-u" "${salt_check[@]}"
t_grep check-energy-planted-float-1e-7 '^check pass ' check_passes "$TEST_LOG_DIR/check-rows/plant-u-float-1e-7.csv" \
    env NBR_CHECK_PLANT_U=1e-7 "$BUILD/float/test-check-u" "${salt_check[@]}"
t_ok check-energy-planted-double-1e-9 check_energy_fails "$TEST_LOG_DIR/check-rows/plant-u-double-1e-9.csv" \
    env NBR_CHECK_PLANT_U=1e-9 "$BUILD/double/test-check-u" "${salt_check[@]}"
# the programs carry no planted fault (issue 26): the production cpu-layer, given the same
# variable, still passes the check the test build fails, and its binary does not name it
t_grep check-energy-plant-not-in-program '^check pass ' check_passes "$TEST_LOG_DIR/check-rows/plant-u-program.csv" \
    env NBR_CHECK_PLANT_U=1e-4 "$BUILD/float/cpu-layer" "${salt_check[@]}"
plant_names_absent() {   # the planted faults' variables named by none of the programs' binaries
    local found= f
    for f in "$BUILD"/double/{cpu-,gpu-,coulomb}* "$BUILD"/float/{cpu-,gpu-,coulomb}*; do
        [ -f "$f" ] && [ -x "$f" ] || continue
        grep -q -a -E 'NBR_CHECK_PLANT_U|NBR_DD_(FAIL_RANK|FAIL_STEP|LOSE_STEP|SORT_SKIP_V)|NBR_CL_FAKE_' "$f" && found+=" $f"
    done
    [ -z "$found" ] || { echo "a planted fault's variable in: $found"; return 1; }
    grep -q -a NBR_CHECK_PLANT_U "$BUILD/double/test-check-u" || { echo "the test build lacks it: this test cannot fail"; return 1; }
    echo "no program names a planted fault's variable"
}
t_grep plant-names-only-in-test-builds 'no program names' plant_names_absent
