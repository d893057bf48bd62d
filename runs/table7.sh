#!/usr/bin/env bash
# runs/table7.sh - Rapaport 2011 Table 7: nominal steps N_R between reorderings (done at the
# next rebuild after N_R steps) on system S, GPU; 0 = never. The paper's 6000-step runs:
# the effect of reordering grows with time, so the run length is part of the measurement.
# Settings: runs/table7.sh --help (docs/drivers.md).
set -euo pipefail
cd "$(dirname "$0")/.."
. runs/lib.sh
settings_begin "runs/table7.sh [settings]" "Rapaport 2011 Table 7"
. runs/tables_lib.sh
setting REORDERS "0,10,20,50,100,200,500,1000,2000,5000" "steps between reorderings"
setting NE 48 "system size (Ne)"
setting STEPS 6000 "steps"
setting EQUIL 500 "equilibration steps"
setting REPEAT 3 "runs of each point"
setting PREC "" "gpu-layer's precision (runs/sweep.sh: default float)"
settings_parse "$@"
[ "$QUICK" = 1 ] && settings_prefer REPEAT 1 REORDERS 0,20,100,1000 STEPS 3000
csv=$OUT_DIR/table7.csv
rc=0
layer_sweep "$csv" t7 sp "$NE" --reorder "$REORDERS" || rc=$?
_point_record "$csv"   # this driver's own settings, beside its sweeps' blocks
driver_table "$csv" t7- || rc=1
exit $rc
