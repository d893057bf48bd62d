#!/usr/bin/env bash
# runs/device/coulomb.sh - the Coulomb programs (issue 12) on one H200, in about 4 minutes.
# Assumes the repository root on the device machine after `make -j16 all`, nvcc on PATH, and
# the OpenCL .debs of the private folder .cl/ carried along (apt-get download
# ocl-icd-libopencl1 ocl-icd-opencl-dev opencl-c-headers opencl-headers; ignored by git).
#   1. tests/run.sh 80 with the default build: the CUDA tests (every mode, unroll, sweep, the
#      protein, --ref device against the C reference) and the CPU ones   -> tests-cuda.log
#   2. NVIDIA OpenCL: the ICD and loader probed (what is found is printed); where the machine
#      lacks the headers or the loader, the .debs are unpacked into /tmp/cl and coulomb is built
#      against them into build/cl/; no nvidia.icd: one is made in /tmp/cl/vendors pointing at
#      libnvidia-opencl.so.1; then tests/run.sh 80 with that build (its OpenCL tests run on
#      the GPU)                                                         -> opencl.log, tests-opencl.log
#   3. runs/coulomb.sh: Tables 2-4 and Fig. 10 (CUDA and OpenCL, every mode and unroll, water
#      boxes 43 239 ... 630 828, the protein), REPS=3                    -> coulomb.csv, driver.log
# Every part is time-capped (about 4 minutes in all, at most about 5) and the script goes on
# past a failed one; the last lines say what failed. Output: $OUT (default /tmp/coulomb-out).
#   4. perf (only when named): --sweep half against folded and float against kahan, side by
#      side in interleaved rounds (630 828 atoms: unroll 4 and 8, ipt 1 and 4; 239 922, 43 239
#      and the protein: float, kahan, pairwise at unroll 8, ipt 1 and 2), relative error against
#      the device's exact reference; nvidia-smi clocks sampled while it runs; SASS instructions
#      per pair of every kernel; at most PERF_S (90) s (about 70 s on an H200): no run starts
#      after it. Not the PERF_S of runs/device/all.sh (150): there the timeout of this whole
#      part; set for all.sh, it is this cap too, and the table after the last run may be cut off
#                                -> perf.csv, perf.txt, clocks.txt, clocks.csv, resources.txt, sass.txt
# Settings: runs/device/coulomb.sh --help (flags, or the environment: COULOMB_PARTS=tests ...).
set -u
. "$(dirname "$0")/lib.sh"
settings_begin "runs/device/coulomb.sh [settings]" "the Coulomb programs (issue 12) on one H200: tests, NVIDIA OpenCL, the tables, perf"
setting OUT /tmp/coulomb-out "where the logs and CSVs land (the device tool's \$OUT)"
setting COULOMB_PARTS "tests opencl tables" "parts: tests, opencl, tables (two calls: tests, then \"opencl tables\"), perf (alone)"
setting COULOMB_BUDGET 270 "seconds: the tables get what is left of it after parts 1-2"
setting PERF_S 90 "seconds: perf starts no run after it"
setting PERF_ROUNDS 2 "perf's interleaved rounds"
settings_parse "$@"
cd "$(dirname "$0")/../.."
parts=" $COULOMB_PARTS "
want() { case $parts in *" $1 "*) return 0 ;; *) return 1 ;; esac; }
mkdir -p "$OUT"
# no flock (nothing else runs there); no plot tests (no PyPI there for plots/venv.sh)
export PATH="$PATH:/usr/local/cuda/bin" NBR_LOCK=none T80_NO_PLOTS=1
failed=()
t_start=$(date +%s)
stamp() { echo "[$(( $(date +%s) - t_start )) s] $*"; }

gpu_name=$(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>&1 | head -1)
rev=$(build/double/coulomb --print-config --random 8 2>&1 | grep git_rev=)
stamp "GPU: $gpu_name; $rev"
# each log starts with what it ran on and at which revision (the logs are committed)
header() { echo "# $1 on $gpu_name, $rev, $(date -u +%Y-%m-%dT%H:%M:%SZ)"; }

# ---- 1. the tests with the default build (CUDA) --------------------------------------------
if want tests; then
    header "tests/run.sh 80 (default build)" >"$OUT/tests-cuda.log"
    timeout 150 tests/run.sh 80 >>"$OUT/tests-cuda.log" 2>&1 || failed+=("tests-cuda (exit $?)")
    stamp "tests, default build: $(tail -1 "$OUT/tests-cuda.log")"
    grep -E '^(FAIL|SKIP)' "$OUT/tests-cuda.log" | head -20
fi

# ---- 2. NVIDIA OpenCL ----------------------------------------------------------------------
cl_bin=""
if want opencl; then
{
    header "OpenCL probe"
    echo "== ICD files:"; ls -l /etc/OpenCL/vendors/ 2>&1; cat /etc/OpenCL/vendors/*.icd 2>/dev/null
    echo "== OpenCL libraries known to ldconfig:"; ldconfig -p 2>/dev/null | grep -E 'libOpenCL|libnvidia-opencl' || echo none
    echo "== headers: $(ls /usr/include/CL/cl.h 2>&1)"
} >"$OUT/opencl.log" 2>&1
nv_lib=$(ldconfig -p 2>/dev/null | awk '/libnvidia-opencl\.so\.1 .*x86-64/ { print $NF; exit }')
if [ -z "$nv_lib" ]; then
    for d in /usr/lib/x86_64-linux-gnu /usr/lib64 /usr/local/nvidia/lib64 /usr/lib; do
        [ -e "$d/libnvidia-opencl.so.1" ] && { nv_lib=$d/libnvidia-opencl.so.1; break; }
    done
fi
echo "== NVIDIA OpenCL library: ${nv_lib:-not found}" >>"$OUT/opencl.log"
if [ -z "$nv_lib" ]; then
    failed+=("opencl: no libnvidia-opencl.so.1 on this machine")
else
    if ! ls /etc/OpenCL/vendors/*.icd >/dev/null 2>&1 || ! grep -qs nvidia /etc/OpenCL/vendors/*.icd; then
        mkdir -p /tmp/cl/vendors && echo "$nv_lib" >/tmp/cl/vendors/nvidia.icd
        export OCL_ICD_VENDORS=/tmp/cl/vendors OPENCL_VENDOR_PATH=/tmp/cl/vendors
        echo "== made /tmp/cl/vendors/nvidia.icd -> $nv_lib (OCL_ICD_VENDORS)" >>"$OUT/opencl.log"
    fi
    probe() { "$1" --impl opencl --cl-platform "$2" --random 8 --reps 1 --warmup 0 --quiet 2>&1; }
    if probe build/double/coulomb 0 | grep -q 'on .*OpenCL'; then
        cl_build=build
    else
        # no system headers/loader (the default build has no --impl opencl): the .debs
        echo "== default build: $(probe build/double/coulomb 0 | tail -1)" >>"$OUT/opencl.log"
        rm -rf /tmp/cl/root && mkdir -p /tmp/cl/root
        for deb in .cl/*.deb; do dpkg -x "$deb" /tmp/cl/root || failed+=("dpkg -x $deb"); done
        cl_lib=/tmp/cl/root/usr/lib/x86_64-linux-gnu
        export LD_LIBRARY_PATH=$cl_lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
        timeout 90 make -j16 BUILD=build/cl CC="gcc -I/tmp/cl/root/usr/include -L$cl_lib" \
            build/cl/double/coulomb build/cl/float/coulomb build/cl/double/test-coulomb-cl >>"$OUT/opencl.log" 2>&1 || failed+=("opencl build")
        cl_build=build/cl
    fi
    for k in 0 1 2 3; do
        out=$(probe $cl_build/double/coulomb $k)
        echo "== platform $k: $(echo "$out" | head -1)" >>"$OUT/opencl.log"
        if echo "$out" | grep -q 'on .*NVIDIA.*OpenCL'; then cl_platform=$k; cl_bin=$cl_build/double/coulomb; break; fi
    done
    if [ -z "$cl_bin" ]; then
        failed+=("opencl: no NVIDIA OpenCL platform (opencl.log)")
    else
        stamp "NVIDIA OpenCL: platform $cl_platform of $cl_bin"
        # the test file's OpenCL cases use platform CL_PLATFORM (default 0): NVIDIA's here, where
        # another ICD (the device's PoCL since 5ea09f2) comes first. An ICD folder of NVIDIA's alone
        # (OCL_ICD_VENDORS) did not hide PoCL at 58b17da: the tests ran on it again
        test_env=(CL_PLATFORM=$cl_platform)
        header "BUILD=$cl_build CL_PLATFORM=$cl_platform tests/run.sh 80 (NVIDIA OpenCL)" >"$OUT/tests-opencl.log"
        env "${test_env[@]}" BUILD=$cl_build timeout 130 tests/run.sh 80 >>"$OUT/tests-opencl.log" 2>&1 ||
            failed+=("tests-opencl (exit $?)")
        $cl_build/double/coulomb --impl opencl --cl-platform $cl_platform --random 8 --reps 1 --warmup 0 --quiet 2>&1 |
            head -1 | sed 's/^/tests ran on: /' >>"$OUT/tests-opencl.log"
        stamp "tests, OpenCL build: $(tail -1 "$OUT/tests-opencl.log")"
        grep -E '^(FAIL|SKIP)' "$OUT/tests-opencl.log" | head -20
    fi
fi
tail -4 "$OUT/opencl.log"
fi

# ---- 3. the thesis's tables -----------------------------------------------------------------
if want tables; then
left=$(( $COULOMB_BUDGET - ($(date +%s) - t_start) ))
[ $left -lt 60 ] && left=60
stamp "runs/coulomb.sh (cap ${left} s)"
# (env: an expansion cannot be an assignment word of the shell)
env OUT_DIR="$OUT" REPS=3 ${cl_bin:+COULOMB_CL=$cl_bin CL_PLATFORM=$cl_platform} \
    timeout "$left" runs/coulomb.sh >"$OUT/driver.log" 2>&1 || failed+=("runs/coulomb.sh (exit $?; rows so far kept)")
grep -c '' "$OUT/coulomb.csv" 2>/dev/null | sed 's/^/coulomb.csv lines: /'
sed -n '/^ *tag /,$p' "$OUT/driver.log" | awk '{ printf "%-34s %-7s %-9s %3s %8s %11s %11s\n", $1, $2, $3, $4, $5, $6, $9 }' | head -80
grep -E 'OVER|exceeds|^coulomb(-cuda)?: |run_point:' "$OUT/driver.log" | head -10
fi

# ---- 4. perf: half against folded sweep, float against kahan, side by side ------------------
# Interleaved rounds (PERF_ROUNDS, default 2): every round runs each configuration once (median
# of --reps after a warm-up of about 0.2 s of GPU time), the second round in reverse order, so a
# drift of the clock or the machine shows in both columns alike. Per system:
#   630 828 atoms: float and kahan at unroll 4 / ipt 1 (the defaults) and unroll 8 / ipt 1 and 4,
#     each with --sweep half (the thesis: block b, row tile b) and folded (block b: row tiles b
#     and rows-1-b); double at unroll 8 / ipt 1 folded, round 1 only
#   239 922, the protein (47 681), 43 239: float, kahan and pairwise at unroll 8 / ipt 1 (and
#     float, kahan at ipt 2 and at blocks of 32 on the two small ones), half and folded
# The reference of each system computed once on the device (--acc exact --ref device: double
# terms, compensated sums; the tests hold it to the C reference) and passed on with --e-ref.
# Rows through coulomb-cuda's own --csv (revision, device, every knob) into perf.csv, tags
# perf-cuda-<acc>-u<unroll>-i<ipt>[-b<block>]-<sweep>-<system>-r<round>; perf.txt one line per run (tag,
# ms, rel_error), then the side-by-side table (median over the rounds: half, folded,
# folded/half; kahan/float per sweep). The clocks before and after (clocks.txt) and sampled by
# nvidia-smi every 200 ms (clocks.csv); the kernels' registers and spills (cuobjdump,
# resources.txt) and their SASS instructions per pair (runs/coulomb_sass.py, sass.txt).
# Capped at PERF_S (90) s; about 70 s on an H200.
if want perf; then
    perf_s=$PERF_S
    rounds=$PERF_ROUNDS
    perf_csv=$OUT/perf.csv
    nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,clocks.mem,clocks.max.mem,power.draw,power.limit,temperature.gpu,clocks_throttle_reasons.active,pstate \
        --format=csv >"$OUT/clocks.txt" 2>&1
    nvidia-smi -q -d CLOCK,PERFORMANCE >>"$OUT/clocks.txt" 2>&1
    nvidia-smi --query-gpu=timestamp,clocks.sm,clocks.mem,power.draw,temperature.gpu,clocks_throttle_reasons.active \
        --format=csv -lms 200 >"$OUT/clocks.csv" 2>&1 &
    smi_pid=$!
    # registers and spills of each energy kernel (template <UNROLL, IPT, MODE, FULL>), and the
    # instructions per pair of their unconditional tile loop
    cuobjdump --dump-resource-usage build/double/coulomb-cuda 2>&1 | grep -A1 coulomb_energy_kernel \
        >"$OUT/resources.txt" 2>&1
    cuobjdump -sass build/double/coulomb-cuda 2>/dev/null | python3 runs/coulomb_sass.py >"$OUT/sass.txt" 2>&1
    perf_deadline=$(($(date +%s) + perf_s))
    perf_run() {   # TAG ARGS...: one row of perf.csv and its line (none once the cap is reached)
        local tag=$1
        shift
        if [ "$(date +%s)" -ge "$perf_deadline" ]; then echo "$tag: skipped (cap ${perf_s} s reached)"; return 0; fi
        timeout $((perf_deadline - $(date +%s) + 1)) build/double/coulomb-cuda "$@" --csv "$perf_csv" --tag "$tag" \
            --quiet >/tmp/coulomb-perf-last.txt 2>&1 || { failed+=("perf $tag (exit $?)"); tail -1 /tmp/coulomb-perf-last.txt; }
        awk -v t="$tag" '/rel_error/ { for (k = 1; k < NF; k++) if ($k == "rel_error") e = $(k + 1) }
            /t_eval/ { printf "%-40s %9.3f ms  rel_error %s\n", t, $2 * 1e3, e }' /tmp/coulomb-perf-last.txt
    }
    declare -A e_ref
    perf_ref() {   # SYSTEM: its exact reference, computed once on the device
        local s=$1
        perf_run "perf-ref-exact-$s" --acc exact --ref device $(perf_args "$s") --reps 1 --warmup 0
        e_ref[$s]=$(awk -F, -v t="perf-ref-exact-$s" 'NR == 1 { for (k = 1; k <= NF; k++) c[$k] = k }
            $c["tag"] == t { v = $c["e_ref"] } END { print v }' "$perf_csv")
        [ -n "${e_ref[$s]}" ] || failed+=("perf: no reference for $s")
    }
    perf_args() { case $1 in bio) echo "--input reference/adk_oplsaa/adk_oplsaa.xyzq.gz" ;; *) echo "--water ${1#n}" ;; esac; }
    # the configurations of one system, one per line: acc unroll ipt sweep reps warmup. The
    # warm-up is about 0.2 s of the GPU's time before the timed evaluations: a run of a few
    # millisecond-long evaluations straight after its setup may start before the SM clock has
    # ramped up from idle (at fea89d5 the protein's float runs took 0.93 or 1.37 ms at ipt 2
    # with unroll 8 or 4, instruction counts 2% apart, after one warm-up evaluation)
    perf_configs() {   # the two sweeps and the modes of one unroll / ipt next to each other
        local ui acc sw
        case $1 in
        n630828)
            for ui in "4 1" "8 1" "8 4"; do
                for sw in half folded; do
                    for acc in float kahan; do echo "$acc $ui $sw 5 2 128"; done
                done
            done ;;
        n239922)
            for sw in half folded; do
                for acc in float kahan pairwise; do echo "$acc 8 1 $sw 11 15 128"; done
            done ;;
        *)
            for sw in half folded; do
                for acc in float kahan pairwise; do echo "$acc 8 1 $sw 21 200 128"; done
            done
            # ipt 2; and blocks of 32: four times the blocks (one warp each), for the latency-bound
            # small systems (43 239 atoms: 169 folded blocks of 128 on 132 SMs)
            for sw in half folded; do
                for acc in float kahan; do echo "$acc 8 2 $sw 21 200 128"; echo "$acc 8 1 $sw 21 200 32"; done
            done ;;
        esac
    }
    perf_round() {   # SYSTEM ROUND: every configuration once, the even rounds in reverse order
        local s=$1 r=$2 acc u ipt sw reps warm b bt
        [ -n "${e_ref[$s]:-}" ] || return 0
        while read -r acc u ipt sw reps warm b; do
            bt=; [ "$b" = 128 ] || bt=-b$b
            perf_run "perf-cuda-$acc-u$u-i$ipt$bt-$sw-$s-r$r" --acc "$acc" --unroll "$u" --ipt "$ipt" --sweep "$sw" \
                --block "$b" $(perf_args "$s") --e-ref "${e_ref[$s]}" --reps "$reps" --warmup "$warm"
        done < <(if [ $((r % 2)) = 0 ]; then perf_configs "$s" | tac; else perf_configs "$s"; fi)
    }
    perf_part() {
        local s r
        perf_ref n630828
        for r in $(seq 1 "$rounds"); do perf_round n630828 "$r"; done
        [ -n "${e_ref[n630828]:-}" ] && perf_run "perf-cuda-double-u8-i1-folded-n630828-r1" --acc double --unroll 8 \
            --sweep folded --water 630828 --e-ref "${e_ref[n630828]}" --reps 3 --warmup 1
        for s in n43239 bio n239922; do perf_ref "$s"; done
        for r in $(seq 1 "$rounds"); do
            for s in n43239 bio n239922; do perf_round "$s" "$r"; done
        done
    }
    # side by side: the median over the rounds of each configuration, half | folded | ratio, and
    # kahan / float and pairwise / float per sweep (the median: runs/perfstat.py's, stdlib only)
    perf_table() {   # (the rows sorted by sort: version order of unroll and ipt)
        python3 - "$perf_csv" <<'EOF' | sort -k1,1n -k2,2 -k3,3 -k4,4V -k5,5V | cut -c3-
import sys
sys.path.insert(0, "runs")
from perfstat import median, read_csv
t, keys = {}, {}
for r in read_csv(sys.argv[1])[1]:
    if r["tag"].startswith("perf-cuda-"):
        key = f"{r['input']} {r['precision']} u{r['unroll']} i{r['ipt']} b{r['block']}"
        # ms to 6 digits, the CSV's: 0.0631345 s is 63.1345 ms, not 63.134499999999996
        t.setdefault((key, r["sweep"]), []).append(float("%.6g" % (float(r["t_eval_s"]) * 1e3)))
        keys[key] = 1
def med(k, sweep):
    return median(t[k, sweep]) if (k, sweep) in t else None
def f3(x):
    return "-" if x is None else f"{x:.3f}"
def ratio(x, y):
    return "-" if x is None or y is None else f"{x / y:.3f}"
H = {k: med(k, "half") for k in keys}
F = {k: med(k, "folded") for k in keys}
print("0 \n0 %-40s %10s %10s %9s  %s" % ("median over rounds (ms)", "half", "folded", "fold/half", "runs"))
for k in keys:
    print("1 %-40s %10s %10s %9s  %d+%d" % (k, f3(H[k]), f3(F[k]), ratio(F[k], H[k]), len(t.get((k, "half"), [])),
                                            len(t.get((k, "folded"), []))))
print("2 \n2 %-40s %10s %10s" % ("ratio to float, same input/u/i/b", "half", "folded"))
for k in keys:
    w = k.split(" ")
    fk = " ".join([w[0], "float"] + w[2:])
    if w[1] != "float" and fk in keys:
        print("3 %-40s %10s %10s" % (k, ratio(H[k], H[fk]), ratio(F[k], F[fk])))
EOF
    }
    stamp "perf (cap ${perf_s} s, $rounds rounds)"
    perf_part >"$OUT/perf.txt"
    perf_table >>"$OUT/perf.txt" 2>&1
    cat "$OUT/perf.txt"
    kill "$smi_pid" 2>/dev/null
    { echo "== after"; nvidia-smi --query-gpu=clocks.sm,clocks.mem,power.draw,temperature.gpu,clocks_throttle_reasons.active \
        --format=csv; } >>"$OUT/clocks.txt" 2>&1
    stamp "perf: $(($(grep -c '' "$perf_csv" 2>/dev/null || echo 1) - 1)) rows in perf.csv"
    # the samples of a busy GPU (event reason 0x1 is "idle": between two runs)
    awk -F', *' 'NR > 1 && $2 + 0 > 0 { if ($6 ~ /0x0*1$/) { idle++; next } v = $2 + 0; n++; s += v
                                         if (!lo || v < lo) lo = v; if (v > hi) hi = v }
        END { if (n) printf "SM clock while busy: %d samples, %d..%d MHz, mean %.0f (%d idle samples)\n", n, lo, hi,
                            s / n, idle }' "$OUT/clocks.csv"
    head -2 "$OUT/clocks.txt"
    grep -c REG "$OUT/resources.txt" | sed 's/^/energy kernels in resources.txt: /'
    grep -E '^(float|kahan) +(half|folded) .* (4 +1|8 +1|8 +4) ' "$OUT/sass.txt" | head -12
fi

stamp "done"
if [ ${#failed[@]} -gt 0 ]; then printf 'FAILED: %s\n' "${failed[@]}"; exit 1; fi
echo "all parts ran"
