#!/usr/bin/env bash
# runs/table6.sh - Rapaport 2011 Table 6: threads per block N_T on system S, GPU. The paper's
# GPU had 32 cores and 512 threads per block at most; the H200 allows 1024.
# Settings: runs/table6.sh --help (docs/drivers.md).
set -euo pipefail
cd "$(dirname "$0")/.."
. runs/lib.sh
settings_begin "runs/table6.sh [settings]" "Rapaport 2011 Table 6"
. runs/tables_lib.sh
setting THREADS "32,64,96,128,192,256,512,1024" "threads per block"
setting NE 48 "system size (Ne)"
setting STEPS 6000 "steps"
setting EQUIL 500 "equilibration steps"
setting REPEAT 3 "runs of each point"
setting PREC "" "gpu-layer's precision (runs/sweep.sh: default float)"
settings_parse "$@"
[ "$QUICK" = 1 ] && settings_prefer REPEAT 1 THREADS 32,128,512 STEPS 2000
csv=$OUT_DIR/table6.csv
rc=0
layer_sweep "$csv" t6 sp "$NE" --threads "$THREADS" || rc=$?
_point_record "$csv"   # this driver's own settings, beside its sweeps' blocks
driver_table "$csv" t6- || rc=1
exit $rc
