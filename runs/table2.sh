#!/usr/bin/env bash
# runs/table2.sh - Rapaport 2011 Table 2: the C version of the layer-matrix program
# (cpu-layer) on one CPU core, at the sizes of Table 1 that a CPU finishes in minutes.
# The speed-up is CPU time / GPU time at the same system and size: the GPU side is Table 1
# (results/h200/table1.csv, runs/table1.sh), joined by plots/report.py and the figure.
# Runs on whatever machine it is started on (results/<machine>/table2.csv); precision float
# by default, the GPU program's arithmetic, so the two sides do the same sums.
# hyperfine times a few points whole (table2_hyperfine.csv).
#   env: SP_NE (16 24 32 48 64) LJ_NE (16 24 32 48) STEPS (1500: 1000 timed) EQUIL (500)
#        PRECISIONS (float) HYPER_RUNS (3; 0 = none) QUICK REDO OUT_DIR
set -euo pipefail
cd "$(dirname "$0")/.."
. runs/lib.sh
. runs/tables_lib.sh
if [ "$QUICK" = 1 ]; then : "${SP_NE:=16 24}" "${LJ_NE:=16}" "${STEPS:=700}" "${HYPER_RUNS:=2}"; fi
: "${SP_NE:=16 24 32 48 64}" "${LJ_NE:=16 24 32 48}" "${STEPS:=1500}" "${EQUIL:=500}"
: "${PRECISIONS:=float}" "${HYPER_RUNS:=3}"
csv=$OUT_DIR/table2.csv
failed=0
for prec in $PRECISIONS; do
    need_bin "$BUILD/$prec/cpu-layer"
    for sys in sp lj; do
        [ $sys = sp ] && sizes=$SP_NE || sizes=$LJ_NE
        CSV=$csv TAG=t2 runs/sweep.sh "$BUILD/$prec/cpu-layer" $sys --ne "$(echo $sizes | tr ' ' ,)" \
            --steps "$STEPS" --equil "$EQUIL" || failed=1
    done
    if [ "$HYPER_RUNS" -gt 0 ]; then
        # small points only: hyperfine runs each HYPER_RUNS + 1 times
        for pt in "sp 16" "sp 24" "lj 16"; do
            set -- $pt
            hyperfine_point "$OUT_DIR/table2_hyperfine.csv" "t2-cpu-layer-$prec-$1-ne=$2-steps=$STEPS-equil=$EQUIL" "$HYPER_RUNS" \
                "$(($2 * $2 * $2))" "$STEPS" -- "$BUILD/$prec/cpu-layer" --system "$1" --ne "$2" \
                --steps "$STEPS" --equil "$EQUIL" || failed=1
        done
    fi
done
runs/table.sh "$csv" t2- || failed=1
exit $failed
