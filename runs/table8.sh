#!/usr/bin/env bash
# runs/table8.sh - Rapaport 2011 Table 8: performance over time without reordering, system S
# on the GPU: --reorder 0 against the default 100, a long run, and the time of every
# 1000-step block (the programs' --blocks-csv rows -> table8_blocks.csv). As atoms diffuse away from
# their initial lattice order, neighbours stop being neighbours in memory and reads scatter;
# the paper saw an eventual 4x drop. BIG_NE adds a system larger than the H200's L2 cache
# (positions of Ne = 160 are 65 MB of float4), where scattered reads cost the most; system S
# (1.8 MB of positions) fits in L2.
# Settings: runs/table8.sh --help (docs/drivers.md).
set -euo pipefail
cd "$(dirname "$0")/.."
. runs/lib.sh
settings_begin "runs/table8.sh [settings]" "Rapaport 2011 Table 8: performance over time without reordering"
. runs/tables_lib.sh
setting NE 48 "system size (Ne)"
setting STEPS 50000 "steps"
setting EQUIL 500 "equilibration steps"
setting BIG_NE 160 "a system larger than L2 (empty: none)"
setting BIG_STEPS 16000 "its steps"
settings_parse "$@"
[ "$QUICK" = 1 ] && settings_prefer STEPS 10000 BIG_NE ""
settings_shared   # SETTINGS_SHARED: the shared settings, handed on to runs/sweep.sh
csv=$OUT_DIR/table8.csv
failed=0
runs/sweep.sh "${SETTINGS_SHARED[@]}" --csv="$csv" --tag=t8 --blocks-csv="$OUT_DIR/table8_blocks.csv" gpu-layer sp --ne "$NE" --reorder 100,0 \
    --steps "$STEPS" --equil "$EQUIL" || failed=1
if [ -n "$BIG_NE" ]; then
    runs/sweep.sh "${SETTINGS_SHARED[@]}" --csv="$csv" --tag=t8 --blocks-csv="$OUT_DIR/table8_blocks.csv" gpu-layer sp --ne "$BIG_NE" --reorder 100,0 \
        --steps "$BIG_STEPS" --equil "$EQUIL" || failed=1
fi
_point_record "$csv"   # this driver's own settings, beside its sweeps' blocks
driver_table "$csv" t8- || failed=1
exit $failed
