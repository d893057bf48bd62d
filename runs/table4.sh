#!/usr/bin/env bash
# runs/table4.sh - Rapaport 2011 Table 4: energy conservation of system S (SP, Ne = 48) over
# 10^5 steps on the GPU, "excluding the first 1000 steps that are influenced by velocity
# rescaling": --equil 1000 (rescaled every 20 steps, as the paper) then 10^5 timed steps.
# e_start/e_end in the CSV are means over the first/last 1000 timed steps; the programs write
# one row per 1000-step block (--blocks-csv) into table4_blocks.csv for the E(t) figure.
# float is the paper's; double shows what the precision costs in drift. The device loop
# (GPU_LOOP=device, the default) records the energy every 100 steps (--sample-every), so each
# 1000-step mean is of 10 samples; the trajectory is the same (rebuilds at the same steps).
# Settings: runs/table4.sh --help (docs/drivers.md).
set -euo pipefail
cd "$(dirname "$0")/.."
. runs/lib.sh
settings_begin "runs/table4.sh [settings]" "Rapaport 2011 Table 4: energy conservation of system S"
. runs/tables_lib.sh
setting NE 48 "system size (Ne)"
setting STEPS 101000 "steps"
setting EQUIL 1000 "equilibration steps"
setting PRECISIONS "float double" "precisions"
settings_parse "$@"
[ "$QUICK" = 1 ] && settings_prefer STEPS 21000 PRECISIONS float
settings_shared   # SETTINGS_SHARED: the shared settings, handed on to runs/sweep.sh
csv=$OUT_DIR/table4.csv
failed=0
for prec in $PRECISIONS; do
    need_bin "$BUILD/$prec/gpu-layer"
    runs/sweep.sh "${SETTINGS_SHARED[@]}" --csv="$csv" --tag=t4 --blocks-csv="$OUT_DIR/table4_blocks.csv" "$BUILD/$prec/gpu-layer" sp --ne "$NE" \
        --steps "$STEPS" --equil "$EQUIL" || failed=1
done
_point_record "$csv"   # this driver's own settings, beside its sweeps' blocks
driver_table "$csv" t4- || failed=1
exit $failed
