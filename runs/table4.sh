#!/usr/bin/env bash
# runs/table4.sh - Rapaport 2011 Table 4: energy conservation of system S (SP, Ne = 48) over
# 10^5 steps on the GPU, "excluding the first 1000 steps that are influenced by velocity
# rescaling": --equil 1000 (rescaled every 20 steps, as the paper) then 10^5 timed steps.
# e_start/e_end in the CSV are means over the first/last 1000 timed steps; the programs write
# one row per 1000-step block (--blocks-csv) into table4_blocks.csv for the E(t) figure.
# float is the paper's; double shows what the precision costs in drift. The device loop
# (GPU_LOOP=device, the default) records the energy every 100 steps (--sample-every), so each
# 1000-step mean is of 10 samples; the trajectory is the same (rebuilds at the same steps).
#   env: NE (48) STEPS (101000) EQUIL (1000) PRECISIONS (float double) GPU_LOOP QUICK REDO OUT_DIR
set -euo pipefail
cd "$(dirname "$0")/.."
. runs/lib.sh
. runs/tables_lib.sh
if [ "$QUICK" = 1 ]; then : "${STEPS:=21000}" "${PRECISIONS:=float}"; fi
: "${NE:=48}" "${STEPS:=101000}" "${EQUIL:=1000}" "${PRECISIONS:=float double}"
csv=$OUT_DIR/table4.csv
failed=0
for prec in $PRECISIONS; do
    need_bin "$BUILD/$prec/gpu-layer"
    CSV=$csv TAG=t4 BLOCKS_CSV=$OUT_DIR/table4_blocks.csv runs/sweep.sh "$BUILD/$prec/gpu-layer" sp --ne "$NE" \
        --steps "$STEPS" --equil "$EQUIL" || failed=1
done
runs/table.sh "$csv" t4- || failed=1
exit $failed
