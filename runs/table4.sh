#!/usr/bin/env bash
# runs/table4.sh - Rapaport 2011 Table 4: energy conservation of system S (SP, Ne = 48) over
# 10^5 steps on the GPU, "excluding the first 1000 steps that are influenced by velocity
# rescaling": --equil 1000 (rescaled every 20 steps, as the paper) then 10^5 timed steps.
# e_start/e_end in the CSV are means over the first/last 1000 timed steps; the per-1000-step
# energies (the log's block lines) go to table4_blocks.csv for the E(t) figure.
# float is the paper's; double shows what the precision costs in drift.
#   env: NE (48) STEPS (101000) EQUIL (1000) PRECISIONS (float double) QUICK REDO OUT_DIR
set -u
cd "$(dirname "$0")/.." || exit 1
. runs/lib.sh
. runs/tables_lib.sh
if [ "$QUICK" = 1 ]; then : "${STEPS:=21000}" "${PRECISIONS:=float}"; fi
: "${NE:=48}" "${STEPS:=101000}" "${EQUIL:=1000}" "${PRECISIONS:=float double}"
csv=$OUT_DIR/table4.csv logs=$OUT_DIR/logs
failed=0
for prec in $PRECISIONS; do
    need_bin "$BUILD/$prec/gpu-layer"
    CSV=$csv TAG=t4 LOGDIR=$logs runs/sweep.sh "$BUILD/$prec/gpu-layer" sp --ne "$NE" \
        --steps "$STEPS" --equil "$EQUIL" || failed=1
done
shopt -s nullglob
blocks_csv "$OUT_DIR/table4_blocks.csv" "$logs"/t4-*.log || failed=1
runs/table.sh "$csv" t4-
exit $failed
