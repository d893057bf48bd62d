#!/usr/bin/env bash
# runs/device/dd.sh - gpu-dd on the device machine (nvidia-h200-x2; issue 13, first part).
# Assumes the repo root, after `make -j16 all` (PATH has /usr/local/cuda/bin). Writes under
# $OUT: probe.txt (where MPI, NCCL, NVSHMEM live), build.log (+ build-nvshmem.log), tests-90.log (tests/run.sh 90:
# single-rank checks, 2/4/8-rank checks with migration, planted faults), timing.csv (the
# programs' CSV rows), timing.log (their summaries); prints a short summary. Wall: ~4-5 min
# (build ~1.5, tests ~2, timing ~1.5; 4M is left out past 4 min, 8M past 5).
# Every part runs even if one before it failed; what failed is printed at the end.
# DD_PART: build, tests, timing or a comma list of them (default all; the probe always runs)
set -u
part=,${DD_PART:-build,tests,timing},
want() { [[ $part == *",$1,"* ]]; }
export NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1
export NVSHMEM_REMOTE_TRANSPORT=${NVSHMEM_REMOTE_TRANSPORT:-none}   # one host: NVLink only, no IB probing
OUT=${OUT:-/tmp/dd-out}
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
timeout 200 tests/run.sh 90 >"$OUT/tests-90.log" 2>&1 || failed+=("tests-90")
tail -1 "$OUT/tests-90.log"
grep -E '^FAIL' "$OUT/tests-90.log" | head -10
fi

# ---- first timing: SP (float) N = 1M, 4M, 8M on 1 and 2 GPUs ----------------------------
# gpu-dd with one rank and with two (each backend, at 1M and 8M also with --dd-overlap on, at
# 1M with --dd-graph on); gpu-layer running ahead (--decide device, graphs) as the best single
# GPU. 400 timed steps after 100 of equilibration; no stage replays.
run_one() {   # TAG NP PROGRAM ARGS...
    local tag=$1 np=$2 prog=$3; shift 3
    local args=(--ne "$ne" --steps 500 --equil 100 --stage-reps 0 --quiet --csv "$OUT/timing.csv" --tag "$tag")
    echo "== $tag" >>"$OUT/timing.log"
    export NBR_DD_HALO_REPS=100   # gpu-dd: the halo exchange and the force kernel replayed apart
    if [ "$np" -gt 1 ]; then
        timeout 60 mpirun --allow-run-as-root --bind-to none -np "$np" "$prog" "$@" "${args[@]}" >>"$OUT/timing.log" 2>&1
    else
        timeout 60 "$prog" "$@" "${args[@]}" >>"$OUT/timing.log" 2>&1
    fi || { failed+=("timing-$tag"); echo "   $tag failed (exit $?)" >>"$OUT/timing.log"; }
}
if want timing; then
b=build/float/gpu-dd
dd_flags="--reduce device"   # gpu-dd, 1 and 2 GPUs alike: the final sums into mapped memory, no copy per step
for ne in 100 200 159; do   # 4M last: the first left out if time runs short
    # 1M always; 8M unless past 5 min; 4M only if under 4 min so far
    elapsed=$(( $(date +%s) - t0 ))
    { [ "$ne" = 200 ] && [ $elapsed -gt 300 ]; } || { [ "$ne" = 159 ] && [ $elapsed -gt 240 ]; } &&
        { echo "timing ne $ne left out: $elapsed s used"; continue; }
    [ "$ne" != 159 ] && run_one "layer-1gpu-ne$ne" 1 build/float/gpu-layer --decide device --layers device \
        --reorder-at device --reduce device --graph on --sample-every 100
    run_one "dd-1gpu-ne$ne" 1 $b $dd_flags
    for comm in $(build/float/gpu-dd --help | sed -n 's/^compiled backends: //p'); do
        run_one "dd-2gpu-$comm-ne$ne" 2 $b $dd_flags --comm $comm
        [ "$ne" != 159 ] && run_one "dd-2gpu-$comm-overlap-ne$ne" 2 $b $dd_flags --comm $comm --dd-overlap on
        [ "$ne" = 100 ] && [ "$comm" != mpi ] && run_one "dd-2gpu-$comm-graph-ne$ne" 2 $b $dd_flags --comm $comm \
            --dd-graph on
    done
done
echo "timing: us/atom-step, us/step; gpu-dd: halo us/step, force kernel us (largest over ranks)"
awk '/^== /{if (line) print line; tag=$2; line="  " tag}
     /us\/atom-step/{for(k=1;k<=NF;k++) { if($k=="us/atom-step") line=line " " $(k-1); if ($k=="us/step),") line=line " " $(k-1) }}
     /halo exchange/{for(k=1;k<=NF;k++) { if($k=="us/step,") line=line " halo " $(k-1); if($k=="us/call") line=line " force " $(k-1) }}
     END {if (line) print line}' "$OUT/timing.log"
fi

echo "wall $(( $(date +%s) - t0 )) s; failed: ${failed[*]:-none}"
[ ${#failed[@]} -eq 0 ]
