#!/usr/bin/env bash
# runs/table5.sh - Rapaport 2011 Table 5: shell thickness delta on system S (SP, Ne = 48),
# GPU. A thicker shell means fewer, larger cells (more layers N_l), rarer rebuilds (N_u up)
# and more pairs to test in the force loop; the paper finds the minimum time near 0.6.
# Settings: runs/table5.sh --help (docs/drivers.md).
set -euo pipefail
cd "$(dirname "$0")/.."
. runs/lib.sh
settings_begin "runs/table5.sh [settings]" "Rapaport 2011 Table 5"
. runs/tables_lib.sh
setting DELTAS "0.2,0.3,0.4,0.5,0.6,0.7,0.8,0.9,1.0" "shell thicknesses"
setting NE 48 "system size (Ne)"
setting STEPS 6000 "steps"
setting EQUIL 500 "equilibration steps"
setting REPEAT 3 "runs of each point"
setting PREC "" "gpu-layer's precision (runs/sweep.sh: default float)"
settings_parse "$@"
[ "$QUICK" = 1 ] && settings_prefer REPEAT 1 DELTAS 0.3,0.6,0.9 STEPS 2000
csv=$OUT_DIR/table5.csv
rc=0
layer_sweep "$csv" t5 sp "$NE" --delta "$DELTAS" || rc=$?
_point_record "$csv"   # this driver's own settings, beside its sweeps' blocks
driver_table "$csv" t5- || rc=1
exit $rc
