#!/usr/bin/env bash
# runs/device/tuner_service.sh OLD_TREE_TAR - the autotuner in one process (this tree) against
# the popen one (the tar of an older revision, e.g. git archive 5dbce1b), side by side on one GPU.
# Run from this tree's root; writes under $OUT:
#   summary.txt   per search: exit code, wall seconds of the whole process, the '# autotune:' line
#                 and the tuned run's summary line; then the GPU tests' lines
#   *.log, *.csv  each run's output and rows (trial rows tagged autotune-*)
# Order is by priority (a time limit keeps what is done): builds, the new searches (SP N = 4096,
# lammps-lj N = 4000), the tests (tests/run.sh 55_rumd, TEST_ONLY='autotune|tune', float), the old
# searches, gpu-layer and gpu-old --autotune at lammps-lj N = 4000, a planted leak (gpu_finish
# keeps W) through the memory line.
set -u
. "$(dirname "$0")/lib.sh"
settings_begin "runs/device/tuner_service.sh [settings] OLD_TREE_TAR" "the autotuner in one process (this tree) against the popen one (OLD_TREE_TAR, e.g. git archive 5dbce1b)"
setting OUT /tmp/tuner-out "where summary.txt, the logs and the CSVs land (the device tool's \$OUT)"
settings_parse_args "$@"
[ ${#SETTINGS_ARGS[@]} = 1 ] || { echo "tuner_service.sh: one OLD_TREE_TAR, not ${#SETTINGS_ARGS[@]} arguments (--help)" >&2; exit 2; }
old_tar=${SETTINGS_ARGS[0]}
mkdir -p "$OUT"
export PATH=$PATH:/usr/local/cuda/bin
new=$PWD old=/tmp/w-tune-old mut=/tmp/w-tune-mut
rm -rf $old $mut && mkdir -p $old $mut
tar xf "$old_tar" -C $old && echo 5dbce1b >$old/.git-rev
tar cf - --exclude=./build . | tar xf - -C $mut
sed -i 's|g->cell_start, g->scan_tmp, g->H, g->W,|g->cell_start, g->scan_tmp, g->H,|' $mut/kernels/cuda/gpu_sim.cu
grep -q 'g->scan_tmp, g->H, g->W' $mut/kernels/cuda/gpu_sim.cu && echo "mutant not planted" >>"$OUT/summary.txt"
S=$OUT/summary.txt
t0=$(date +%s)
(make -j8 build/float/gpu-rumd build/float/gpu-layer build/float/gpu-old build/double/gpu-rumd build/double/cpu-grouped >"$OUT/build-new.log" 2>&1 ||
    echo "new build failed" >>$S) &
(cd $old && make -j6 build/float/gpu-rumd >"$OUT/build-old.log" 2>&1 || echo "old build failed" >>$S) &
(cd $mut && make -j2 build/float/gpu-layer >"$OUT/build-mut.log" 2>&1 || echo "mutant build failed" >>$S) &
wait
echo "builds: $(($(date +%s) - t0)) s" >>$S
nvidia-smi -L >>$S
# one search: NAME BINARY FLAGS...
search() {
    local name=$1 bin=$2 a b rc
    shift 2
    a=$(date +%s.%N)
    "$bin" --autotune --autotune-budget 60 --autotune-cache '' --steps 2000 --csv "$OUT/$name.csv" "$@" \
        >"$OUT/$name.log" 2>&1
    rc=$?
    b=$(date +%s.%N)
    printf '%s rc=%d wall_s=%s\n' "$name" $rc "$(awk -v a="$a" -v b="$b" 'BEGIN { printf "%.2f", b - a }')" >>$S
    grep -E '^# autotune(-memory)?:|us/atom-step' "$OUT/$name.log" | tail -3 >>$S
}
search new-rumd-sp4096 build/float/gpu-rumd --system sp --ne 16
search new-rumd-lammps4000 build/float/gpu-rumd --system lammps-lj --ne 10
RUMD_TEST_PRECISIONS=float TEST_ONLY='autotune|tune' timeout 150 tests/run.sh 55_rumd >"$OUT/tests.log" 2>&1
echo "tests rc=$?" >>$S
grep -E '^(PASS|FAIL|SKIP)|passed' "$OUT/tests.log" >>$S
cp build/test-logs/rumd-autotune-*.log build/test-logs/tune-*.log "$OUT/" 2>/dev/null
search old-rumd-sp4096 $old/build/float/gpu-rumd --system sp --ne 16
search old-rumd-lammps4000 $old/build/float/gpu-rumd --system lammps-lj --ne 10
search new-layer-lammps4000 build/float/gpu-layer --system lammps-lj --ne 10
search new-old-lammps4000 build/float/gpu-old --system lammps-lj --ne 10
CUDA_MODULE_LOADING=EAGER search mutant-leak-layer-sp4096 $mut/build/float/gpu-layer --system sp --ne 16
echo "total: $(($(date +%s) - t0)) s" >>$S
