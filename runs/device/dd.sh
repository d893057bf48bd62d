#!/usr/bin/env bash
# runs/device/dd.sh - gpu-dd on the device machine (nvidia-h200-x2; issue 13, first part).
# Assumes the repo root, after `make -j16 all` (PATH has /usr/local/cuda/bin). Writes under
# $OUT: probe.txt (where MPI, NCCL, NVSHMEM live), build.log (+ build-nvshmem.log), tests-90.log (tests/run.sh 90:
# single-rank checks, 2/4/8-rank checks with migration, planted faults), dd_scaling.csv and
# dd_scaling_halo.csv (runs/dd_scaling.sh's rows), timing.log; prints a short summary. Wall:
# what DD_WALL allows (540 s: the timing starts no run after it; alone, DD_PART=timing, the
# QUICK subset takes ~300 s, an estimate). Under an outer timeout (runs/device/all.sh's DD_S), set
# DD_WALL to it, so that the budget ends before the timeout does.
# Every part runs even if one before it failed; what failed is printed at the end.
# Settings: runs/device/dd.sh --help (flags, or the environment: DD_PART=timing DD_WALL=...).
set -u
. "$(dirname "$0")/lib.sh"
settings_begin "runs/device/dd.sh [settings]" "gpu-dd on the device machine: build, tests, timing (nvidia-h200-x2)"
setting OUT /tmp/dd-out "where the logs and CSVs land (the device tool's \$OUT)"
setting DD_PART build,tests,timing "build, tests, timing or a comma list of them (the probe always runs)"
setting DD_WALL 540 "seconds: the timing starts no run after it (under an outer timeout, set it to that)"
settings_parse "$@"
part=,$DD_PART,
want() { [[ $part == *",$1,"* ]]; }
export NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1
export NVSHMEM_REMOTE_TRANSPORT=${NVSHMEM_REMOTE_TRANSPORT:-none}   # one host: NVLink only, no IB probing
mkdir -p "$OUT"
failed=()
t0=$(date +%s)

# ---- where things are ------------------------------------------------------------------
{
    echo "== $(date -u +%FT%TZ) $(hostname)"
    nvidia-smi -L
    nvidia-smi topo -m 2>/dev/null | head -6
    mpirun --version 2>/dev/null | head -1
    echo "mpicc compile: $(mpicc --showme:compile 2>/dev/null)"
    echo "== nccl / nvshmem files"
    timeout 60 find / -xdev \( -name 'nccl.h' -o -name 'libnccl.so*' -o -name 'nvshmem.h' -o -name 'nvshmemx.h' \
        -o -name 'libnvshmem*' -o -name 'nvshmem_bootstrap*' \) -not -path '/proc/*' 2>/dev/null | grep -v '/build' | head -40
} >"$OUT/probe.txt" 2>&1
nccl_lib=$(grep -m1 'libnccl.so' "$OUT/probe.txt")
nccl_inc=$(grep -m1 '/nccl.h$' "$OUT/probe.txt")
[ -n "$nccl_lib" ] && export LD_LIBRARY_PATH="$(dirname "$nccl_lib")${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
echo "nccl library: ${nccl_lib:-none}, header: ${nccl_inc:-none}"

# ---- build (what make all did not: gpu-dd needs mpi.h, its NCCL path nccl.h) -------------
ncclhome=""
nv_lib=$(grep -m1 'libnvshmem_device.a$' "$OUT/probe.txt")
if want build; then
[ -n "$nccl_inc" ] && ncclhome="NCCL_HOME=$(dirname "$(dirname "$nccl_inc")")"
touch kernels/cuda/dd*.cu variants/gpu-dd.cu   # recompiled with the probed NCCL paths
if ! make -j16 build/double/gpu-dd build/float/gpu-dd $ncclhome >"$OUT/build.log" 2>&1; then
    failed+=("build")
    tail -5 "$OUT/build.log"
fi
grep -E 'not found|skipped|without' "$OUT/build.log" | head -3
# NVSHMEM (--comm nvshmem): built apart (build-nv/) with the probed paths; when it builds, its
# gpu-dd replaces build/*/gpu-dd, so the tests and the timing below include the backend
nv_inc=$(grep -m1 '/nvshmem.h$' "$OUT/probe.txt"); nv_lib=$(grep -m1 'libnvshmem_device.a$' "$OUT/probe.txt")
if [ -n "$nv_inc" ] && [ -n "$nv_lib" ]; then
    if make -j16 BUILD=build-nv build-nv/double/gpu-dd build-nv/float/gpu-dd $ncclhome NVSHMEM_INC="$(dirname "$nv_inc")" \
        NVSHMEM_LIB="$(dirname "$nv_lib")" >"$OUT/build-nvshmem.log" 2>&1; then
        cp build-nv/double/gpu-dd build/double/gpu-dd && cp build-nv/float/gpu-dd build/float/gpu-dd
        export LD_LIBRARY_PATH="$(dirname "$nv_lib")${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
        echo "nvshmem: built ($(dirname "$nv_inc"), $(dirname "$nv_lib"))"
    else
        failed+=("build-nvshmem"); tail -5 "$OUT/build-nvshmem.log"
    fi
else
    echo "nvshmem: not found (nvshmem.h ${nv_inc:-missing}, libnvshmem_device.a ${nv_lib:-missing})"
fi
fi
# the NVSHMEM host library for a gpu-dd built with it (here or by an earlier DD_PART=build)
[ -n "$nv_lib" ] && export LD_LIBRARY_PATH="$(dirname "$nv_lib")${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
build/double/gpu-dd --help | grep 'compiled backends'

# ---- tests -----------------------------------------------------------------------------
if want tests; then
# ~6 min with the --decide device cases (2 ranks per backend: same rebuilds as the host's, --check,
# overlap, 4 ranks, a failing rank): DD_PART=build,tests is one call, DD_PART=build,timing another
timeout "${DD_TESTS_S:-480}" tests/run.sh 90 >"$OUT/tests-90.log" 2>&1 || failed+=("tests-90")
tail -1 "$OUT/tests-90.log"
grep -E '^FAIL' "$OUT/tests-90.log" | head -10
fi

# ---- timing: runs/dd_scaling.sh within what is left of this call ---------------------------
# QUICK=1 (default here): SP and LJ at 46k, 1M and 8M / 4M atoms, 1 and 2 GPUs, every backend,
# host and device decisions (runs/dd_scaling.sh says which points); DD_BUDGET: no run starts
# after it (default: what is left of DD_WALL = 540 s since this script started). The rows of
# earlier calls (results/h200-x2/dd_scaling*.csv in the tree) are copied into $OUT first, so the
# points measured at this revision are skipped and a second call goes on where one stopped.
# $OUT: dd_scaling.csv, dd_scaling_halo.csv (the halo pairs of each gpu-dd row), timing.log, logs/.
if want timing; then
for f in dd_scaling.csv dd_scaling_halo.csv; do
    [ -f "results/h200-x2/$f" ] && [ ! -f "$OUT/$f" ] && cp "results/h200-x2/$f" "$OUT/$f"
done
left=$(( $DD_WALL - ($(date +%s) - t0) ))
QUICK=${QUICK:-1} DD_TIMEOUT=${DD_TIMEOUT:-120} DD_BUDGET=${DD_BUDGET:-$(( left > 30 ? left - 30 : 1 ))} OUT_DIR="$OUT" LOGDIR="$OUT/logs" \
    runs/dd_scaling.sh >"$OUT/timing.log" 2>&1 || failed+=("timing")
grep -E 'points|budget|failed' "$OUT/timing.log" | tail -3
echo "timing: tag, us/step (the CSV rows of this call)"
[ -f "$OUT/dd_scaling.csv" ] && python3 - "$OUT/dd_scaling.csv" <<'PY'
import csv, sys
sys.path.insert(0, "runs"); import csvq  # knobs expanded (docs/csv.md)
for r in csvq.read(sys.argv[1]).rows:
    print(f"  {r['tag']} {r['us_per_step']} {r['status']}")
PY
fi

echo "wall $(( $(date +%s) - t0 )) s; failed: ${failed[*]:-none}"
[ ${#failed[@]} -eq 0 ]
