# The Coulomb energy programs (issue 12; Sirny 2010): coulomb (C reference with OpenMP, and
# OpenCL where built) and coulomb-cuda. E = 332.0636 sum_{i<j} q_i q_j / r_ij in kcal/mol.
#  - the exact reference (double terms, compensated sums) and the plain double loop reproduce
#    energies computed by hand, from x y z q and PQR input;
#  - every implementation and accumulation mode agrees with the reference within the tolerance
#    it states (--check: exact 1e-13, double 1e-12, kahan and pairwise 1e-6, float 1e-4) on random and water
#    inputs, for every unroll factor, atoms per thread (--ipt) and every sweep (half, folded, full: odd and
#    even row-tile counts, partial last tiles, --ipt 2 and 4); --acc exact (double terms, compensated
#    sums) within 1e-13, and a reference computed that way on the device (--ref device) equals
#    the C reference to 1e-13;
#  - the real input (reference/adk_oplsaa: solvated adenylate kinase, 47 681 atoms, gzipped):
#    the reference gives the energy numpy computed apart (1e-13; a planted charge fails it),
#    and every implementation agrees with it within its tolerance;
#  - malformed input (plain and compressed), bad flags, and --wg / --ipt beyond the OpenCL device's
#    work-group and local-memory limits (NBR_CL_FAKE_* lower them on PoCL): one line, exit 2.
# OpenCL runs where a platform exists (PoCL in CI); CUDA only on a GPU; elsewhere SKIP lines.
c=$BUILD/double/coulomb
cf=$BUILD/float/coulomb
ccl=$BUILD/double/test-coulomb-cl   # coulomb with the OpenCL limit hooks (NBR_CL_FAKE_*)
cu=$BUILD/double/coulomb-cuda
d=tests/data/coulomb
# the OpenCL platform the tests use (CL_PLATFORM=N make test: tests/run.sh's TEST_CL_PLATFORM;
# default 0: runs/device/coulomb.sh names NVIDIA's
# where the machine lists another ICD first; an ICD folder of NVIDIA's alone did not hide PoCL there)
ocl="opencl --cl-platform ${TEST_CL_PLATFORM:-0}"
tmp=$TEST_LOG_DIR/coulomb
mkdir -p "$tmp"

# "reference X" of the output within relative `tol` of the hand value
_t80_ref_is() {   # WANT TOL CMD...
    local want=$1 tol=$2 out
    shift 2
    out=$("$@") || return 1
    echo "$out"
    echo "$out" | awk -v w="$want" -v t="$tol" '
        { for (k = 1; k < NF; k++) if ($k == "reference" && v == "") v = $(k + 1) }
        END { r = (v - w) / (w < 0 ? -w : w); if (r < 0) r = -r; print "hand", w, "reference", v, "relative", r;
              exit !(v != "" && r <= t) }'
}
printf '0 0 0 1\n2 0 0 -1\n' >"$tmp/two.xyzq"
t_ok coulomb-two-charges-exact _t80_ref_is -166.0318 1e-14 $c --input "$tmp/two.xyzq" --reps 1 --quiet
t_ok coulomb-two-charges-double $c --input "$tmp/two.xyzq" --acc double --e-ref -166.0318 --check --reps 1 --quiet
t_ok coulomb-nacl-cube-exact _t80_ref_is -966.9890776248491 1e-14 $c --input $d/nacl_cube.xyzq --reps 1 --quiet
t_ok coulomb-nacl-cube-double $c --input $d/nacl_cube.xyzq --e-ref -966.9890776248491 --check --reps 1 --quiet
t_ok coulomb-pqr-two-charges _t80_ref_is 55.343933333333333 1e-14 $c --input $d/two.pqr --reps 1 --quiet
# the exact mode's 1e-13 bites: a reference 3e-13 off is refused (exit 1)
t_error coulomb-exact-tolerance-bites 1 'exceeds the exact tolerance 1e-13' $c --impl ref --acc exact \
    --input $d/nacl_cube.xyzq --e-ref -966.9890776251392 --check --reps 1 --quiet
t_ok coulomb-nacl-cube-float $cf --input $d/nacl_cube.xyzq --e-ref -966.9890776248491 --check --reps 1 --quiet

# the reference of the first command (computed on the CPU) and of the second (--ref device:
# the implementation in --acc exact) agree to 1e-13
_t80_refs_agree() {   # CMD1 -- CMD2
    local a b k=1
    while [ "${!k}" != -- ]; do k=$((k + 1)); done
    # the first "reference" word of the output: "reference VALUE (SOURCE);"
    a=$("${@:1:k-1}" | awk '{ for (k = 1; k < NF; k++) if ($k == "reference" && !n++) print $(k + 1) }') || return 1
    b=$("${@:k+1}" | awk '{ for (k = 1; k < NF; k++) if ($k == "reference" && !n++) print $(k + 1), $(k + 2) }') ||
        return 1
    echo "cpu $a / $b"
    case $b in *"(device);") ;; *) echo "the second reference is not the device's"; return 1 ;; esac
    awk -v a="$a" -v b="${b%% *}" 'BEGIN { r = (a - b) / a; if (r < 0) r = -r; print "relative", r; exit !(a != "" && r <= 1e-13) }'
}

# a written system reads back to the same energy, to the last bit
t_ok coulomb-write-water $c --water 300 --write "$tmp/w300.xyzq"
_t80_same() {   # CMD1 -- CMD2: the same "E = " value
    local a b
    a=$("${@:1:$(($# / 2))}" | grep -o 'E = [^ ]*') || return 1
    b=$("${@:$(($# / 2 + 2))}" | grep -o 'E = [^ ]*') || return 1
    echo "$a / $b"; [ -n "$a" ] && [ "$a" = "$b" ]
}
t_ok coulomb-roundtrip _t80_same $c --water 300 --reps 1 --quiet -- $c --input "$tmp/w300.xyzq" --reps 1 --quiet
# the generator: N/3 molecules, O -0.834 and H +0.417, neutral
t_grep coulomb-water-charges '^O 100 H 200 net 0$' awk 'NR > 1 { o += $4 == -0.834; h += $4 == 0.417; s += $4 }
    END { printf "O %d H %d net %s\n", o, h, (s < 1e-9 && s > -1e-9) ? "0" : s }' "$tmp/w300.xyzq"

# the real input: solvated adenylate kinase (reference/adk_oplsaa, 47 681 atoms, OPLS-AA and
# TIP4P charges from MDAnalysisTests), read gzipped. Its energy computed apart (numpy, double,
# pairwise and fsum sums: reference/adk_oplsaa/convert.py) is what the C reference must give;
# a planted fault (one charge 0.52 -> 0.53 e of 47 681) must fail that check.
adk=reference/adk_oplsaa/adk_oplsaa.xyzq.gz
adk_e=-4079315.64693693   # convert.py's energy, 15 digits
t_ok coulomb-adk-exact _t80_ref_is $adk_e 1e-13 $c --input $adk --reps 1 --warmup 0 --quiet
zcat $adk | awk '!done && $4 == 0.52 { $4 = 0.53; done = 1 } { print }' | gzip >"$tmp/adk_planted.xyzq.gz"
_t80_planted_caught() {   # PLANTED.gz: it differs from $adk in one charge, and the exact check fails on it
    [ "$(zcat "$1" | grep -c ' 0.53$')" = 1 ] || { echo "no charge was planted"; return 1; }
    ! _t80_ref_is $adk_e 1e-13 $c --input "$1" --reps 1 --warmup 0 --quiet
}
t_ok coulomb-adk-planted-charge-caught _t80_planted_caught "$tmp/adk_planted.xyzq.gz"
for acc in double float kahan exact; do
    t_ok coulomb-adk-ref-$acc $c --impl ref --acc $acc --input $adk --e-ref $adk_e --check --reps 1 --warmup 0 --quiet
done

# the C reference's own modes (OpenMP over 2 threads and 1); kahan on random charges within
# 4 sd of what rounding the positions to float does to E (tests/cases_83_coulomb_precision.sh)
for acc in double float kahan; do
    t_ok coulomb-ref-$acc-random $c --impl ref --acc $acc --random 1500 --check --reps 1 --quiet
done
for acc in double float kahan exact; do
    t_ok coulomb-ref-$acc-water $c --impl ref --acc $acc --water 1500 --threads 1 --check --reps 1 --quiet
done

# OpenCL: every mode, unroll factor and sweep against the reference. Skipped only where coulomb
# has no OpenCL (--print-config's impls=, the implementations built in; why: $BUILD/features,
# off = make WITH_OPENCL=0, empty = not found) or where it finds no platform or device (exit 6,
# EXIT_NO_DEVICE): a kernel that fails to build is a failure
c_impls=$($c --random 8 --print-config 2>/dev/null | sed -n 's/^impls=//p')
_t80_no_opencl_why() {
    case $(sed -n 's/^opencl=//p' "$BUILD/features" 2>/dev/null) in
    off) echo "switched off (make WITH_OPENCL=0)" ;;
    yes) echo "the build found OpenCL, yet coulomb's impls=$c_impls lacks it" ;;
    *) echo "no OpenCL headers or ICD loader at build time (ocl-icd-opencl-dev opencl-headers pocl-opencl-icd)" ;;
    esac
}
if [[ ",$c_impls," != *,opencl,* ]]; then
    t_skip coulomb-opencl "coulomb built without OpenCL: $(_t80_no_opencl_why)"
elif $c --impl $ocl --random 8 --reps 1 --warmup 0 --quiet >"$tmp/probe.log" 2>&1; [ $? = 6 ]; then
    t_skip coulomb-opencl "no OpenCL platform or device here: $(tail -1 "$tmp/probe.log")"
else
    t_ok coulomb-opencl-builds $c --impl $ocl --random 8 --reps 1 --warmup 0 --quiet
    # the default sweep is half (the thesis's one row tile per group); --sweep folded is named so in
    # the summary line and the CSV
    t_grep coulomb-sweep-default '^sweep=half$' $c --impl $ocl --random 10 --print-config
    rm -f "$tmp/sweep.csv"
    t_ok coulomb-sweep-folded-csv $c --impl $ocl --sweep folded --random 300 --reps 1 --quiet --csv "$tmp/sweep.csv"
    t_grep coulomb-sweep-folded-column '^folded$' awk -F, 'NR == 1 { for (k = 1; k <= NF; k++) if ($k == "sweep") c = k }
        NR == 2 { print $c }' "$tmp/sweep.csv"
    for acc in float double kahan pairwise exact; do
        for input in "--random 1000" "--water 1500"; do
            t_ok "coulomb-opencl-$acc-${input#--}" $c --impl $ocl --acc $acc $input --check --reps 1 --quiet
        done
    done
    for sweep in half folded full; do
        for u in 1 2 4 8; do
            # 1000 atoms in blocks of 64: an own tile, full tiles and a partial last tile (16 row
            # tiles: folded pairs them all)
            t_ok "coulomb-opencl-$sweep-u$u" $c --impl $ocl --acc double --sweep $sweep --unroll $u --block 64 \
                --random 1000 --check --reps 1 --quiet
        done
        # 1031 atoms: 17 row tiles of 64 (odd: folded's middle group takes one row tile alone)
        t_ok "coulomb-opencl-$sweep-odd-rows" $c --impl $ocl --acc double --sweep $sweep --unroll 4 --block 64 \
            --random 1031 --check --reps 1 --quiet
        # 1000 atoms in tiles of 128 (--ipt 2): 8 row tiles, even, the last partial
        t_ok "coulomb-opencl-$sweep-ipt2-even-rows" $c --impl $ocl --acc double --sweep $sweep --ipt 2 --unroll 2 \
            --block 64 --random 1000 --check --reps 1 --quiet
        t_ok "coulomb-opencl-$sweep-kahan-water" $c --impl $ocl --acc kahan --sweep $sweep --unroll 8 --water 1500 \
            --check --reps 1 --quiet
        t_ok "coulomb-opencl-$sweep-one-block" $c --impl $ocl --acc double --sweep $sweep --block 128 --random 100 \
            --check --reps 1 --quiet
        # --ipt: 1031 atoms in tiles of 64 * ipt (9 and 5 row tiles: odd): own, full and partial last
        # tiles whose work-items hold real atoms and padding together; 100 atoms: one tile
        for ipt in 2 4; do
            t_ok "coulomb-opencl-$sweep-ipt$ipt" $c --impl $ocl --acc double --sweep $sweep --ipt $ipt --unroll 8 \
                --block 64 --random 1031 --check --reps 1 --quiet
            t_ok "coulomb-opencl-$sweep-ipt$ipt-one-tile" $c --impl $ocl --acc exact --sweep $sweep --ipt $ipt \
                --block 32 --random 100 --check --reps 1 --quiet
        done
    done
    for acc in float kahan pairwise; do
        t_ok "coulomb-opencl-$acc-ipt4-water" $c --impl $ocl --acc $acc --ipt 4 --water 1500 --check --reps 1 --quiet
    done
    # --wg is --block under OpenCL's name: the same run, block 64 in the CSV
    rm -f "$tmp/wg.csv"
    t_ok coulomb-opencl-wg $c --impl $ocl --acc double --wg 64 --random 1000 --check --reps 1 --quiet --csv "$tmp/wg.csv"
    t_grep coulomb-opencl-wg-column '^64$' awk -F, 'NR == 1 { for (k = 1; k <= NF; k++) if ($k == "block") c = k }
        NR == 2 { print $c }' "$tmp/wg.csv"
    t_ok coulomb-opencl-kahan-full $c --impl $ocl --acc kahan --sweep full --water 1500 --check --reps 1 --quiet
    t_ok coulomb-opencl-hand $c --impl $ocl --acc double --input $d/nacl_cube.xyzq --e-ref -966.9890776248491 \
        --check --reps 1 --quiet
    t_ok coulomb-opencl-exact-full $c --impl $ocl --acc exact --sweep full --unroll 8 --block 64 --random 1000 \
        --check --reps 1 --quiet
    t_ok coulomb-opencl-ref-device _t80_refs_agree $c --impl ref --water 3000 --reps 1 --quiet -- \
        $c --impl $ocl --acc float --ref device --water 3000 --reps 1 --quiet
    for acc in float double kahan pairwise exact; do
        t_ok "coulomb-opencl-$acc-adk" $c --impl $ocl --acc $acc --input $adk --e-ref $adk_e --check --reps 1 \
            --warmup 0 --quiet
    done
    t_error coulomb-opencl-no-device 2 "cl-device 7: platform ${TEST_CL_PLATFORM:-0} has" $c --impl $ocl --random 10 --cl-device 7
    # the device's limits, checked in setup before any kernel is enqueued: one line naming the
    # limit and the device's value, exit 2 (not an OpenCL error code at the launch). PoCL allows
    # 4096 work-items per work-group and 1 MiB of local memory, more than any legal --wg (at most
    # 1024) and --ipt need (1024 x 4 atoms of 4 doubles + 2 x 1024 doubles = 147456 bytes), so the
    # checks are shown with the test-only hooks NBR_CL_FAKE_LOCAL_MEM / NBR_CL_FAKE_MAX_WG, which
    # lower (never raise) the values the checks see (kernels/opencl/coulomb_cl.c), compiled only
    # into the test build test-coulomb-cl ($ccl; -DNBR_PLANT_CL_LIMITS); coulomb itself ignores them
    t_ok coulomb-opencl-fake-limits-not-in-program env NBR_CL_FAKE_MAX_WG=32 NBR_CL_FAKE_LOCAL_MEM=16 \
        $c --impl $ocl --wg 64 --random 1000 --check --reps 1 --quiet
    t_error coulomb-opencl-fake-limits-in-test-build 2 'wg\) 64 is more than CL_DEVICE_MAX_WORK_GROUP_SIZE 32 ' \
        env NBR_CL_FAKE_MAX_WG=32 NBR_CL_FAKE_LOCAL_MEM=16 $ccl --impl $ocl --wg 64 --random 1000 --check --reps 1 --quiet
    # sizes every device's kernel takes (--wg 256 and 64: NVIDIA's double kernel allows 256
    # work-items, 8accbc3); the byte counts allow the kernel's own static local memory (0 on PoCL,
    # 1 byte on NVIDIA)
    t_error coulomb-opencl-local-mem-limit 2 \
        'wg\) 256 with --ipt 4 and 8-byte reals \(--acc double\) needs 368[0-9]{2} bytes of local memory per work-group .*more than CL_DEVICE_LOCAL_MEM_SIZE 16384 of .*lowered from the device.s [0-9]+ by NBR_CL_FAKE_LOCAL_MEM' \
        env NBR_CL_FAKE_LOCAL_MEM=16384 $ccl --impl $ocl --acc double --wg 256 --ipt 4 --random 1000 --reps 1 --quiet
    # under the same limit 64 work-items (9216 bytes) fit and run
    t_ok coulomb-opencl-local-mem-fits env NBR_CL_FAKE_LOCAL_MEM=16384 $ccl --impl $ocl --acc double --wg 64 --ipt 4 \
        --random 1000 --check --reps 1 --quiet
    # float fits in 2048 bytes (1536), the --ref device reference (exact: 3072) does not
    t_error coulomb-opencl-local-mem-ref-device 2 \
        '\(--acc exact: also the --ref device reference.s precision\) needs 30[0-9]{2} bytes .*CL_DEVICE_LOCAL_MEM_SIZE 2048 ' \
        env NBR_CL_FAKE_LOCAL_MEM=2048 $ccl --impl $ocl --acc float --ref device --wg 64 --random 1000 --reps 1 --quiet
    t_error coulomb-opencl-max-wg-limit 2 \
        'wg\) 512 is more than CL_DEVICE_MAX_WORK_GROUP_SIZE 256 of .*lowered from the device.s [0-9]+ by NBR_CL_FAKE_MAX_WG' \
        env NBR_CL_FAKE_MAX_WG=256 $ccl --impl $ocl --wg 512 --random 1000 --reps 1 --quiet
    t_error coulomb-opencl-fake-env-bad 2 "NBR_CL_FAKE_MAX_WG='8x' is not a positive integer" \
        env NBR_CL_FAKE_MAX_WG=8x $ccl --impl $ocl --random 1000 --reps 1 --quiet
    # unlowered, on whatever device this is: the largest tile (147456 bytes) runs where it fits the
    # device's CL_DEVICE_LOCAL_MEM_SIZE (its value read from the hook's message) and is refused
    # naming that value where it does not (e.g. NVIDIA's 48 KiB), or refused for a work-group limit
    _t80_largest_tile() {
        local dev_local rc
        dev_local=$(NBR_CL_FAKE_LOCAL_MEM=1 $ccl --impl $ocl --random 10 --reps 1 --quiet 2>&1 |
            sed -n 's/.*lowered from the device.s \([0-9]*\) by NBR_CL_FAKE_LOCAL_MEM.*/\1/p')
        [ -n "$dev_local" ] || { echo "no device CL_DEVICE_LOCAL_MEM_SIZE in the message"; return 1; }
        $c --impl $ocl --acc double --wg 1024 --ipt 4 --random 5000 --check --reps 1 --quiet 2>"$tmp/largest.err"
        rc=$?
        cat "$tmp/largest.err"
        echo "device local memory $dev_local, needed 147456, exit code $rc"
        if [ "$dev_local" -ge 147456 ]; then
            [ $rc = 0 ] || { [ $rc = 2 ] && grep -Eq 'more than CL_(DEVICE_MAX_WORK_GROUP|DEVICE_MAX_WORK_ITEM|KERNEL_WORK_GROUP)_SIZE' "$tmp/largest.err"; }
        else
            [ $rc = 2 ] && grep -Eq "more than CL_(DEVICE_LOCAL_MEM_SIZE $dev_local |DEVICE_MAX_WORK_GROUP_SIZE|DEVICE_MAX_WORK_ITEM_SIZES|KERNEL_WORK_GROUP_SIZE)" "$tmp/largest.err"
        fi
    }
    t_ok coulomb-opencl-largest-tile _t80_largest_tile
fi

# CUDA: on a GPU only
if [ -x "$cu" ] && have_gpu; then
    for acc in float double kahan pairwise exact; do
        for input in "--random 1000" "--water 1500"; do
            t_ok "coulomb-cuda-$acc-${input#--}" $cu --acc $acc $input --check --reps 1 --quiet
        done
    done
    for sweep in half folded full; do
        for u in 1 2 4 8; do
            t_ok "coulomb-cuda-$sweep-u$u" $cu --acc double --sweep $sweep --unroll $u --block 64 --random 1000 \
                --check --reps 1 --quiet
        done
        # 17 row tiles (odd); 8 row tiles of 128 (--ipt 2, even) with a partial last one
        t_ok "coulomb-cuda-$sweep-odd-rows" $cu --acc double --sweep $sweep --unroll 4 --block 64 --random 1031 \
            --check --reps 1 --quiet
        t_ok "coulomb-cuda-$sweep-ipt2-even-rows" $cu --acc double --sweep $sweep --ipt 2 --unroll 2 --block 64 \
            --random 1000 --check --reps 1 --quiet
        for acc in kahan float; do
            t_ok "coulomb-cuda-$sweep-$acc-water" $cu --acc $acc --sweep $sweep --unroll 8 --water 1500 --check --reps 1 \
                --quiet
        done
    done
    t_ok coulomb-cuda-exact-full $cu --acc exact --sweep full --unroll 8 --block 64 --random 1000 --check --reps 1 --quiet
    # --ipt (atoms per thread): every mode, every sweep, boundary tiles mixing atoms and padding
    # (1031 atoms: 9 and 5 row tiles, odd, the last partial)
    for ipt in 2 4; do
        for sweep in half folded full; do
            for u in 1 8; do
                t_ok "coulomb-cuda-$sweep-u$u-ipt$ipt" $cu --acc double --sweep $sweep --unroll $u --ipt $ipt --block 64 \
                    --random 1031 --check --reps 1 --quiet
            done
            t_ok "coulomb-cuda-$sweep-ipt$ipt-one-tile" $cu --acc exact --sweep $sweep --ipt $ipt --block 32 --random 100 \
                --check --reps 1 --quiet
        done
        for acc in float double kahan pairwise exact; do
            t_ok "coulomb-cuda-$acc-ipt$ipt-water" $cu --acc $acc --ipt $ipt --water 1500 --check --reps 1 --quiet
            t_ok "coulomb-cuda-$acc-ipt$ipt-adk" $cu --acc $acc --ipt $ipt --unroll 8 --input $adk --e-ref $adk_e --check \
                --reps 1 --warmup 0 --quiet
        done
        t_ok "coulomb-cuda-kahan-full-ipt$ipt-adk" $cu --acc kahan --sweep full --ipt $ipt --input $adk --e-ref $adk_e \
            --check --reps 1 --quiet
    done
    # kahan and pairwise on the box where they missed 1e-6 before each row was scaled by its own
    # s_i (2.0e-6: the lattice's equal distances shared one rounding error; 4e-8 since)
    for acc in kahan pairwise; do
        t_ok "coulomb-cuda-$acc-water-239922" $cu --acc $acc --unroll 8 --water 239922 --ref device --check --reps 1 \
            --warmup 0 --quiet
    done
    t_ok coulomb-cuda-ref-device _t80_refs_agree $c --impl ref --water 30000 --reps 1 --quiet -- \
        $cu --acc float --ref device --water 30000 --reps 1 --quiet
    for acc in float double kahan pairwise exact; do
        t_ok "coulomb-cuda-$acc-adk" $cu --acc $acc --input $adk --e-ref $adk_e --check --reps 1 --warmup 0 --quiet
    done
    t_ok coulomb-cuda-full-adk $cu --acc kahan --sweep full --input $adk --e-ref $adk_e --check --reps 1 --quiet
    t_ok coulomb-cuda-hand $cu --acc double --input $d/nacl_cube.xyzq --e-ref -966.9890776248491 --check --reps 1 \
        --quiet
    # shared memory per block against the device's limit (dynamic shared memory is not opted in
    # beyond cudaDeviceProp.sharedMemPerBlock, 48 KiB on NVIDIA GPUs): 512 x 4 atoms of 4 doubles +
    # 2 x 512 doubles = 73728 bytes, refused in setup with one line naming the limit, exit 2
    t_error coulomb-cuda-shared-mem-limit 2 \
        'block 512 with --ipt 4 and 8-byte reals \(--acc double\) needs 73728 bytes of shared memory per block .*more than cudaDeviceProp.sharedMemPerBlock [0-9]+ of ' \
        $cu --acc double --unroll 1 --ipt 4 --block 512 --random 1000 --reps 1 --quiet
else
    t_skip coulomb-cuda "no GPU here (or coulomb-cuda not built)"
fi

# malformed input: one line naming the file and the line, exit 2
printf '0 0 0 1\n1 2 3\n' >"$tmp/short.xyzq"
printf '0 0 0 1\n1 2 3 x\n' >"$tmp/nan.xyzq"
printf '# nothing\n\n' >"$tmp/empty.xyzq"
sed 's/0.900   1.200/0.900   1.2z0/' $d/two.pqr >"$tmp/bad.pqr"
sed 's/ 0.5000 1.0000$/ 0.5000/' $d/two.pqr >"$tmp/fields.pqr"
t_error coulomb-err-short-line 2 'short.xyzq:2: an x y z q line needs 4 numbers' $c --input "$tmp/short.xyzq"
t_error coulomb-err-not-a-number 2 "nan.xyzq:2: field 4 \\(q\\) is not a number: 'x'" $c --input "$tmp/nan.xyzq"
t_error coulomb-err-empty 2 'empty.xyzq: no atoms' $c --input "$tmp/empty.xyzq"
t_error coulomb-err-pqr-number 2 "bad.pqr:4: PQR field 7 \\(y\\) is not a number" $c --input "$tmp/bad.pqr"
t_error coulomb-err-pqr-fields 2 'fields.pqr:3: PQR field 5 \(resSeq\) is not a residue number: .A.' $c --input "$tmp/fields.pqr"
# compressed input: read through gzip / xz; a damaged archive is refused whole, in one line
gzip -c $d/two.pqr >"$tmp/two.pqr.gz"
t_ok coulomb-pqr-gz _t80_ref_is 55.343933333333333 1e-14 $c --input "$tmp/two.pqr.gz" --reps 1 --quiet
head -c 150000 $adk >"$tmp/cut.xyzq.gz"
printf 'not gzip\n' >"$tmp/plain.xyzq.gz"
gzip -c "$tmp/nan.xyzq" >"$tmp/nan.xyzq.gz"
t_error coulomb-err-gz-truncated 2 'cut.xyzq.gz: gzip -dc failed \(a corrupt or truncated file\)' $c --input "$tmp/cut.xyzq.gz"
t_error coulomb-err-gz-not-gzip 2 'plain.xyzq.gz: gzip -dc failed' $c --input "$tmp/plain.xyzq.gz"
t_error coulomb-err-gz-line 2 "nan.xyzq.gz:2: field 4 \\(q\\) is not a number: 'x'" $c --input "$tmp/nan.xyzq.gz"
t_error coulomb-err-gz-no-file 2 "cannot read --input .*nope.xyzq.gz: No such file" $c --input "$tmp/nope.xyzq.gz"
t_error coulomb-err-no-file 2 'cannot read --input .*nope.pqr' $c --input "$tmp/nope.pqr"
t_error coulomb-err-water-3 2 'multiple of 3' $c --water 100
t_error coulomb-err-two-sources 2 'exactly one of --input' $c --water 300 --random 10
t_error coulomb-err-no-source 2 'exactly one of --input' $c
t_error coulomb-err-unknown-flag 2 '--ne: unknown flag' $c --ne 4
t_error coulomb-err-pairwise-ref 2 'pairwise is a mode of the tiled kernels' $c --impl ref --acc pairwise --random 10
t_error coulomb-err-impl 2 '--impl must be one of ref\|opencl\|cuda' $c --impl metal --random 10
t_error coulomb-err-cuda-here 2 'coulomb-cuda' $c --impl cuda --random 10
# the tiled kernels' knobs exist where coulomb was built with OpenCL (the Makefile says when it was not)
if [[ ",$c_impls," == *,opencl,* ]]; then
    t_error coulomb-err-unroll 2 '--unroll must be 1, 2, 4 or 8' $c --impl $ocl --unroll 3 --random 10
    t_error coulomb-err-block 2 '--block \(--wg\) must be a power of two' $c --impl $ocl --block 96 --random 10
    t_error coulomb-err-wg 2 '--block \(--wg\) must be a power of two' $c --impl $ocl --wg 96 --random 10
    t_error coulomb-err-wg-ref 2 '--wg does not apply to --impl ref' $c --impl ref --wg 64 --random 10
    t_error coulomb-err-unroll-ref 2 '--unroll does not apply to --impl ref' $c --impl ref --unroll 2 --random 10
    t_error coulomb-err-ipt 2 '--ipt must be 1, 2 or 4' $c --impl $ocl --ipt 3 --random 10
    t_error coulomb-err-ipt-ref 2 '--ipt does not apply to --impl ref' $c --impl ref --ipt 2 --random 10
    t_grep coulomb-help '--unroll' $c --help
    t_error coulomb-err-sweep 2 '--sweep must be one of half\|full\|folded' $c --impl $ocl --sweep thesis --random 10
    t_error coulomb-err-sweep-ref 2 '--sweep does not apply to --impl ref' $c --impl ref --sweep half --random 10
    t_grep bare-coulomb-help-opencl-built '^Built in: --impl ref,opencl\.$' $c --help
else
    t_skip coulomb-opencl-knobs "coulomb built without OpenCL ($(_t80_no_opencl_why)): --unroll, --block, --wg, --ipt, --sweep absent"
fi
# a build without OpenCL (a bare machine; CI's WITH_OPENCL=0 pass): --impl opencl, with the
# knobs of the README's example or without them, gives the one line naming what is missing
# (exit 2), and --help says OpenCL is not built in and lists none of its knobs
_t80_help_without_opencl() {
    local help; help=$($c --help) || return 1
    grep -E '^(Built|Not built) in' <<<"$help"
    grep -q '^Built in: --impl ref\.$' <<<"$help" &&
        grep -Eq '^Not built in: --impl opencl: built without OpenCL \((no CL/cl.h|switched off by make WITH_OPENCL=0)' <<<"$help" ||
        { echo "--help does not say OpenCL is not built in"; return 1; }
    if grep -E -- '^  --(unroll|wg|block|ipt|sweep|cl-platform|cl-device) |unroll 4' <<<"$help"; then
        echo "--help advertises OpenCL's knobs (above)"; return 1
    fi
}
if [[ ",$c_impls," != *,opencl,* ]]; then
    no_ocl='--impl opencl is not available in this build: built without OpenCL \((no CL/cl.h or libOpenCL at build time: install ocl-icd-opencl-dev|switched off by make WITH_OPENCL=0)'
    t_error bare-coulomb-opencl-readme-example 2 "$no_ocl" $c --impl opencl --unroll 4 --wg 128 --random 1000
    t_error bare-coulomb-opencl-platform 2 "$no_ocl" $c --impl $ocl --acc float --water 1500 --check
    t_error bare-coulomb-opencl-plain 2 "$no_ocl" $c --impl opencl --random 10
    # the last --impl counts (as in parsing); --impl ref's runs are not refused
    t_ok bare-coulomb-impl-last-counts $c --impl opencl --impl ref --random 10 --reps 1 --quiet
    t_ok bare-coulomb-help-without-opencl _t80_help_without_opencl
else
    t_skip bare-coulomb-without-opencl "coulomb has OpenCL here (CI's WITH_OPENCL=0 pass runs these)"
fi

# the CSV: its own schema, appended; another header refused before computing
csv=$tmp/coulomb.csv
rm -f "$csv"
t_ok coulomb-csv $c --random 300 --reps 1 --quiet --tag t80 --csv "$csv"
t_ok coulomb-csv-append $c --random 300 --acc kahan --reps 1 --quiet --csv "$csv"
t_grep coulomb-csv-columns '^timestamp,git_rev,host,device,compiler,program,tag,impl,precision,unroll,ipt,block,sweep,omp_threads,.*,input,n,t_eval_s,.*pairs_per_s,energy,e_ref,.*rel_error,tolerance,status$' \
    head -1 "$csv"
t_grep coulomb-csv-rows '^3$' sh -c "grep -c '' '$csv'"
printf 'some,other,header\n' >"$tmp/other.csv"
t_error coulomb-csv-schema 2 'another header' timeout 20 $c --random 200000 --reps 100 --csv "$tmp/other.csv"

# the figures and the report section (plots/coulomb.py): without any CSV, with a damaged one,
# and with GPU rows (the CPU file's OpenCL rows relabelled as CUDA rows of the GPU machine),
# which must then appear in the tables and the targets
if [ -n "${T80_NO_PLOTS:-}" ]; then
    t_skip coulomb-plots "T80_NO_PLOTS set (a machine without PyPI: plots/venv.sh would try pip)"
elif py80=$(plots/venv.sh 2>"$tmp/venv.log"); then
    mkdir -p "$tmp/noresults" "$tmp/bad/cpu-amd-epyc" "$tmp/res/cpu-amd-epyc" "$tmp/res/h200"
    t_grep coulomb-plots-no-data 'No h200 rows yet' env NBR_RESULTS="$tmp/noresults" NBR_PLOTS_OUT="$tmp/np" \
        sh -c "'$py80' plots/coulomb.py --figures '$tmp/np/mpl' && '$py80' plots/coulomb.py --section '$tmp/R.md'"
    head -3 results/cpu-amd-epyc/coulomb.csv | sed '3s/,ok$/,ok,extra/' >"$tmp/bad/cpu-amd-epyc/coulomb.csv"
    t_error coulomb-plots-damaged-csv 2 'coulomb\.csv line 3: [0-9]+ fields' \
        env NBR_RESULTS="$tmp/bad" "$py80" plots/coulomb.py --section "$tmp/R.md"
    cp results/cpu-amd-epyc/coulomb.csv "$tmp/res/cpu-amd-epyc/"
    sed 's/,coulomb,\(t[0-9]\)-opencl-/,coulomb-cuda,\1-cuda-/; s/,opencl,/,cuda,/' results/cpu-amd-epyc/coulomb.csv \
        >"$tmp/res/h200/coulomb.csv"
    t_grep coulomb-plots-gpu-rows 'CUDA kahan: abs\(relative error\), every water box \| <= 1e-6 \| [0-9.e-]+ \| (met|missed)' \
        env NBR_RESULTS="$tmp/res" "$py80" plots/coulomb.py --section "$tmp/R.md"
    t_ok coulomb-plots-figures env NBR_RESULTS="$tmp/res" sh -c \
        "'$py80' plots/coulomb.py --figures '$tmp/figs' && ls '$tmp/figs/coulomb_fig10.png' '$tmp/figs/coulomb_unroll.svg'"
else
    t_skip coulomb-plots "no python with pandas and matplotlib (plots/venv.sh: $(tail -1 "$tmp/venv.log"))"
fi
