# cpu-cluster's SIMD levels, row columns and planted faults (kernels/cpu/cluster_list.h,
# cluster_force.h). tests/cases_20_cpu_check.sh checks it like every CPU program at its default
# level (--simd auto); here every level this CPU has, on every system, float and double. Verdicts
# from the row (status, the knobs column's pairs), not from the console.
#   cpu-cluster-simd-*    --check (per atom against O(N^2), the covered pairs within r_n once)
#                         with each level and j-cluster size it takes (4x4, 4x8); a level the
#                         CPU lacks: SKIP naming it (the refusal is tested instead)
#   cpu-cluster-prune-*   --prune (inner rows cut to r_c + a buffer by the force loop): --check
#                         per level and shape; the same energy and pressure as without it (the
#                         entries it drops hold no pair within r_c); faults 5 and 6 (no buffer,
#                         no prune between rebuilds) caught; a buffer not below --delta refused
#   cpu-cluster-refuse-*  --simd avx512 where the CPU lacks it, a --jcluster the level has not:
#                         one line, exit 2
#   cpu-cluster-columns   shape, fill, pair_eff, list_bpa in the row, in their ranges; the list
#                         and force stages' GB/s (gbs_list, gbs_force) stated
#   cpu-cluster-plant-*   a test build with one fault (Makefile test-cpu-cluster-plant-K): a
#                         cluster pair skipped, a wrong shift, a wrong mask bit, a padded atom
#                         counted; the row says check-failed or unstable, the program's ok
#   cpu-cluster-driver    runs/cpu_cluster.sh's quick form, lammps-lj and sp: a row with status
#                         ok for every program, level and system (sp equilibrated, lammps-lj
#                         from its lattice), and the table's ratio column;
#                         LAMMPS's row beside them in double sp where lmp is; with two --prune
#                         buffers, a series and rows for each
_t58_dir=$(mktemp -d "${TMPDIR:-/tmp}/nbrlab-t58.XXXXXX")
_t58_flags=$(grep -m1 '^flags' /proc/cpuinfo 2>/dev/null)
_t58_has() {   # the CPU's own word (/proc/cpuinfo), not the program's, on what it has
    case $1 in
    scalar) return 0 ;;
    avx2) [[ " $_t58_flags " == *" avx2 "* && " $_t58_flags " == *" fma "* ]] ;;
    avx512) [[ " $_t58_flags " == *" avx512f "* && " $_t58_flags " == *" avx512vl "* ]] ;;
    esac
}
# COL of the row BIN ARGS... appends
_t58_col() {
    local col=$1 csv=$_t58_dir/$RANDOM$RANDOM.csv; shift
    "$@" --csv "$csv" --quiet >/dev/null 2>&1
    [ -s "$csv" ] && python3 runs/csvq.py get "$csv" "$col" || echo "no-row"
}
_t58_ok() { local st; st=$(_t58_col status "$@"); echo "status: $st"; [ "$st" = ok ]; }
_t58_caught() {
    local st; st=$(_t58_col status "$@"); echo "status: $st"
    case "$st" in check-failed | unstable) return 0 ;; *) return 1 ;; esac
}

for level in scalar avx2 avx512; do
    if ! _t58_has $level; then
        t_skip "cpu-cluster-simd-$level" "this CPU lacks $level (/proc/cpuinfo)"
        continue
    fi
    for prec in double float; do
        for sys in "lammps-lj 5" "sp 12" "lj 10" "salt 12"; do
            set -- $sys
            for m in 4 8; do
                [ $level/$prec/$m = avx2/double/8 ] && continue   # 4 lanes: 4x4 only (refused below)
                t_ok "cpu-cluster-simd-$level-$prec-$1-4x$m" _t58_ok "$BUILD/$prec/cpu-cluster" --system $1 --ne $2 \
                    --steps 200 --equil 60 --stage-reps 0 --simd $level --jcluster $m --check
            done
        done
    done
done
t_ok cpu-cluster-simd-scalar-4x8 _t58_ok "$BUILD/double/cpu-cluster" --system lammps-lj --ne 5 --steps 200 --equil 0 \
    --stage-reps 0 --simd scalar --jcluster 8 --check
if _t58_has avx512; then
    t_skip cpu-cluster-refuse-avx512 "this CPU has avx512 (the level runs above)"
else
    t_error cpu-cluster-refuse-avx512 2 '^cpu-cluster: --simd avx512: this CPU lacks it' \
        "$BUILD/double/cpu-cluster" --simd avx512 --ne 8 --quiet
fi
t_error cpu-cluster-refuse-jcluster 2 '^cpu-cluster: --jcluster 2: --simd scalar in double takes j-clusters of 4 or 8' \
    "$BUILD/double/cpu-cluster" --simd scalar --jcluster 2 --ne 8 --quiet
if _t58_has avx2; then
    t_error cpu-cluster-refuse-jcluster-avx2-double 2 '^cpu-cluster: --jcluster 8: --simd avx2 in double takes j-clusters of 4 \(or 0\)' \
        "$BUILD/double/cpu-cluster" --simd avx2 --jcluster 8 --ne 8 --quiet
fi
t_error cpu-cluster-refuse-prune 2 'prune.*must be below --delta' \
    "$BUILD/double/cpu-cluster" --system lammps-lj --ne 5 --prune 0.3
t_error cpu-cluster-refuse-icluster 2 '^cpu-cluster: --icluster 8: the 4xM kernels have i-units of 4' \
    "$BUILD/double/cpu-cluster" --icluster 8 --ne 8 --quiet

# the row's own measurements: shape 4xM, fill in (0.5, 1], pair_eff in (0.05, 1), list_bpa > 0
_t58_columns() {
    local csv=$_t58_dir/columns.csv
    "$BUILD/float/cpu-cluster" --system lammps-lj --ne 8 --steps 100 --stage-reps 0 --simd scalar --jcluster 8 \
        --csv "$csv" --quiet >/dev/null || return 1
    local shape fill eff bpa
    shape=$(python3 runs/csvq.py get "$csv" shape); fill=$(python3 runs/csvq.py get "$csv" fill)
    eff=$(python3 runs/csvq.py get "$csv" pair_eff); bpa=$(python3 runs/csvq.py get "$csv" list_bpa)
    echo "shape $shape fill $fill pair_eff $eff list_bpa $bpa"
    [ "$shape" = 4x8 ] && python3 -c "import sys; f, e, b = map(float, sys.argv[1:]); sys.exit(not (0.5 < f <= 1 and 0.05 < e < 1 and b > 0))" "$fill" "$eff" "$bpa"
}
t_ok cpu-cluster-columns _t58_columns
# the stages' bytes (Variant.stage_bytes): GB/s of the list and force stages, above 0 and below
# what one core could stream (200 GB/s), with and without --prune (the inner rows' bytes)
_t58_gbs() {
    local csv=$_t58_dir/gbs-$1.csv l f
    "$BUILD/float/cpu-cluster" --system lammps-lj --ne 8 --steps 100 --equil 0 --stage-reps 3 --prune "$1" \
        --csv "$csv" --quiet >/dev/null || return 1
    l=$(python3 runs/csvq.py get "$csv" gbs_list); f=$(python3 runs/csvq.py get "$csv" gbs_force)
    echo "gbs_list $l gbs_force $f"
    python3 -c "import sys; sys.exit(not all(0 < float(x) < 200 for x in sys.argv[1:]))" "$l" "$f"
}
t_ok cpu-cluster-stage-bytes _t58_gbs 0
t_ok cpu-cluster-stage-bytes-pruned _t58_gbs 0.1

# --prune: checked per level and shape; the energy and pressure of the run without it, to the
# last printed digit (the dropped entries held no pair within r_c, so every sum is the same)
_t58_same() {   # BIN ARGS...: the row's e_end and pressure with --prune 0.2 and without
    local a b
    a="$(_t58_col e_end "$@" --prune 0.2) $(_t58_col pressure "$@" --prune 0.2)"
    b="$(_t58_col e_end "$@") $(_t58_col pressure "$@")"
    echo "with --prune: $a; without: $b"
    [ "$a" = "$b" ] && [[ $a != *no-row* ]]
}
for level in scalar avx2 avx512; do
    _t58_has $level || continue
    for prec in double float; do
        for m in 4 8; do
            [ $level/$prec/$m = avx2/double/8 ] && continue
            for sys in "lammps-lj 5" "sp 12"; do
                set -- $sys
                t_ok "cpu-cluster-prune-$level-$prec-$1-4x$m" _t58_ok "$BUILD/$prec/cpu-cluster" --system $1 --ne $2 \
                    --steps 203 --equil 60 --stage-reps 0 --simd $level --jcluster $m --prune 0.2 --check
            done
            t_ok "cpu-cluster-prune-same-$level-$prec-4x$m" _t58_same "$BUILD/$prec/cpu-cluster" --system sp --ne 12 \
                --steps 300 --equil 50 --stage-reps 0 --simd $level --jcluster $m
        done
    done
done

# each fault, with every level this CPU has: the real program passes the same run
plants=()
for k in 1 2 3 4 5 6; do plants+=("$BUILD/double/test-cpu-cluster-plant-$k"); done
make --no-print-directory -s -j2 BUILD="$BUILD" "${plants[@]}" >"$TEST_LOG_DIR/cpu-cluster-plant-build.log" 2>&1
name=(- pair-skipped wrong-shift wrong-mask padding-counted no-buffer no-prune-between-rebuilds)
args=(--system lammps-lj --ne 5 --steps 100 --equil 0 --stage-reps 0 --check)   # NVE: no temperature verdict
for level in scalar avx2 avx512; do
    _t58_has $level || continue
    t_ok "cpu-cluster-plant-base-$level" _t58_ok "$BUILD/double/cpu-cluster" "${args[@]}" --simd $level
    for k in 1 2 3 4; do
        t_ok "cpu-cluster-plant-$k-${name[$k]}-$level" _t58_caught "${plants[$((k - 1))]}" "${args[@]}" --simd $level
    done
done
# --prune's faults: four consecutive lengths (tests/lib.sh: at_some_length)
_t58_caught_any() { at_some_length _t58_caught "$@"; }
_t58_ok_all() { at_every_length _t58_ok "$@"; }
pargs=(--system lammps-lj --ne 5 --equil 0 --delta 1.0 --prune 0.05 --stage-reps 0 --check)
for level in scalar avx2 avx512; do
    _t58_has $level || continue
    t_ok "cpu-cluster-plant-prune-base-$level" _t58_ok_all "$BUILD/double/cpu-cluster" "${pargs[@]}" --simd $level
    for k in 5 6; do
        t_ok "cpu-cluster-plant-$k-${name[$k]}-$level" _t58_caught_any "${plants[$((k - 1))]}" "${pargs[@]}" --simd $level
    done
done

# the measurement driver, quick form: every program's row, the ratio printed
_t58_driver() {
    local d=$_t58_dir/drv n
    ALLOW_DIRTY=1 REDO=1 runs/cpu_cluster.sh --out-dir "$d" --nes 6 --atom-steps 20000 --min-steps 20 \
        --systems "lammps-lj sp" --nes-sc 8 >"$d.out" 2>"$d.err" || { cat "$d.err"; return 1; }
    cat "$d.out"
    local want=(cpu-grouped cpu-pairlist cpu-cluster-scalar)
    _t58_has avx2 && want+=(cpu-cluster-avx2)
    _t58_has avx512 && want+=(cpu-cluster-avx512)
    for n in "${want[@]}"; do
        # lammps-lj from its lattice (in.lj), sp after the default equilibration
        python3 runs/csvq.py has "$d/cpu_cluster.csv" tag="cc-$n-float-ne6-r1" status=ok equil=0 ||
            { echo "no ok row for $n, from the lattice"; return 1; }
        python3 runs/csvq.py has "$d/cpu_cluster.csv" tag="cc-sp-$n-float-ne8-r1" status=ok n=512 system=sp equil=200 ||
            { echo "no ok sp row for $n, equilibrated"; return 1; }
    done
    grep -Eq 'cpu-cluster --simd scalar +[0-9.]+ \([0-9.]+\)' "$d.out" || { echo "no ratio to cpu-grouped"; return 1; }
    # double sp: LAMMPS among the programs where lmp is, absent where it is not
    ALLOW_DIRTY=1 REDO=1 runs/cpu_cluster.sh --out-dir "$d" --atom-steps 20000 --min-steps 20 --systems sp \
        --nes-sc 8 --precisions double --levels scalar >"$d.out" 2>"$d.err" || { cat "$d.err"; return 1; }
    if command -v lmp >/dev/null 2>&1; then
        python3 runs/csvq.py has "$d/cpu_cluster.csv" tag=cc-sp-lammps-double-ne8-r1 status=ok variant=lammps ||
            { echo "no LAMMPS row"; return 1; }
        grep -Eq '^  lammps +[0-9.]+' "$d.out" || { echo "no LAMMPS line in the table"; return 1; }
    else
        # the variant, not the text: the lammps-lj system's rows above say lammps too
        ! python3 runs/csvq.py has "$d/cpu_cluster.csv" variant=lammps || { echo "a LAMMPS row without lmp"; return 1; }
    fi
    # several --prune buffers: a series each, its rows' prune knob that buffer
    ALLOW_DIRTY=1 REDO=1 runs/cpu_cluster.sh --out-dir "$d" --atom-steps 20000 --min-steps 20 --systems sp \
        --nes-sc 8 --levels scalar --prune "0.1 0.2" >"$d.out" 2>"$d.err" || { cat "$d.err"; return 1; }
    local b
    for b in 0.1 0.2; do
        python3 runs/csvq.py has "$d/cpu_cluster.csv" tag="cc-sp-cpu-cluster-scalar-prune$b-float-ne8-r1" status=ok \
            prune=$b || { echo "no row for --prune $b"; return 1; }
        grep -Eq "cpu-cluster --simd scalar --prune $b +[0-9.]+" "$d.out" || { echo "no table line for --prune $b"; return 1; }
    done
}
t_ok cpu-cluster-driver _t58_driver
rm -rf "$_t58_dir"
