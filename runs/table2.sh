#!/usr/bin/env bash
# runs/table2.sh - Rapaport 2011 Table 2: the C version of the layer-matrix program
# (cpu-layer) on one CPU core, at the sizes of Table 1 that a CPU finishes in minutes.
# The speed-up is CPU time / GPU time at the same system and size: the GPU side is Table 1
# (results/h200/table1.csv, runs/table1.sh), joined by plots/report.py and the figure.
# Runs on whatever machine it is started on (results/<machine>/table2.csv); precision float
# by default, the GPU program's arithmetic, so the two sides do the same sums.
# hyperfine times a few points whole (table2_hyperfine.csv).
# Settings: runs/table2.sh --help (docs/drivers.md).
set -euo pipefail
cd "$(dirname "$0")/.."
. runs/lib.sh
settings_begin "runs/table2.sh [settings]" "Rapaport 2011 Table 2: cpu-layer on one CPU core"
. runs/tables_lib.sh
setting SP_NE "16 24 32 48 64" "SP sizes (Ne)"
setting LJ_NE "16 24 32 48" "LJ sizes (Ne)"
setting STEPS 1500 "steps"
setting EQUIL 500 "equilibration steps"
setting PRECISIONS float "precisions"
setting HYPER_RUNS 3 "hyperfine runs per point (0: none)"
settings_parse "$@"
[ "$QUICK" = 1 ] && settings_prefer SP_NE "16 24" LJ_NE 16 STEPS 700 HYPER_RUNS 2
settings_shared   # SETTINGS_SHARED: the shared settings, handed on to runs/sweep.sh
csv=$OUT_DIR/table2.csv
failed=0
for prec in $PRECISIONS; do
    need_bin "$BUILD/$prec/cpu-layer"
    for sys in sp lj; do
        [ $sys = sp ] && sizes=$SP_NE || sizes=$LJ_NE
        runs/sweep.sh "${SETTINGS_SHARED[@]}" --csv="$csv" --tag=t2 "$BUILD/$prec/cpu-layer" $sys --ne "$(echo $sizes | tr ' ' ,)" \
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
_point_record "$csv"   # this driver's own settings, beside its sweeps' blocks
driver_table "$csv" t2- || failed=1
exit $failed
