#!/usr/bin/env bash
# runs/default.sh - the default comparison (make run): every CPU variant, and every GPU
# variant when a GPU is found, on both of the paper's systems at a size that runs in about
# a minute per CPU variant; appends to results/<machine>/default.csv (one row per run, so
# the file is a history: compare with earlier rows to spot regressions) and prints the table.
# Settings: runs/default.sh --help (or the old variables).
set -euo pipefail
cd "$(dirname "$0")/.."
. runs/lib.sh
settings_begin "runs/default.sh [settings]" "the default comparison (make run): every CPU variant, and every GPU one where a GPU is found -> default.csv"
setting SP_NE 24 "SP's lattice edge, CPU programs"
setting LJ_NE 20 "LJ's lattice edge, CPU programs"
setting STEPS 1500 "steps, equilibration included (cpu-allpairs: 20)"
setting EQUIL 500 "equilibration steps"
setting GPU_SP_NE 100 "SP's lattice edge, GPU programs"
setting GPU_LJ_NE 64 "LJ's lattice edge, GPU programs"
settings_parse "$@"
points_tally_begin   # runs/lib.sh: the table only of points that ran (driver_table)
out=results/$(machine_name)
mkdir -p "$out"
csv=$out/default.csv
run_id=default-$(date -u +%Y%m%dT%H%M%S)
echo "make run: results go to $csv (tag prefix $run_id)"

cpu=$(cd "$BUILD/double" 2>/dev/null && ls cpu-* 2>/dev/null) || cpu=""
[ -n "$cpu" ] || { echo "default.sh: no CPU program in $BUILD/double (make)" >&2; exit 1; }
gpu=""
if have_gpu; then
    gpu=$(cd "$BUILD/float" 2>/dev/null && ls gpu-* 2>/dev/null) || gpu=""
    [ -z "$gpu" ] && echo "a GPU is present but no GPU variant was built (is nvcc on PATH?)"
else
    echo "no GPU found: running the CPU variants only"
fi

failed=0
set -- $cpu $gpu
progress_start $(($# * 2))   # runs/lib.sh: "[k/n] ... about N min left" after each point
for v in $cpu; do
    for sys in "sp $SP_NE" "lj $LJ_NE"; do
        set -- $sys
        steps=$STEPS equil=$EQUIL
        [ "$v" = cpu-allpairs ] && steps=20 equil=0   # O(N^2): a few steps only
        REDO=1 run_point "$csv" "$run_id-$v-$1" -- "$BUILD/double/$v" --system "$1" --ne "$2" \
            --steps "$steps" --equil "$equil" || failed=1
    done
done
for v in $gpu; do
    for sys in "sp $GPU_SP_NE" "lj $GPU_LJ_NE"; do
        set -- $sys
        REDO=1 run_point "$csv" "$run_id-$v-$1" -- "$BUILD/float/$v" --system "$1" --ne "$2" || failed=1
    done
done
echo
driver_table "$csv" "$run_id" || failed=1
exit $failed
