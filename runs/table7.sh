#!/usr/bin/env bash
# runs/table7.sh - Rapaport 2011 Table 7: nominal steps N_R between reorderings (done at the
# next rebuild after N_R steps) on system S, GPU; 0 = never. The paper's 6000-step runs:
# the effect of reordering grows with time, so the run length is part of the measurement.
#   env: REORDERS (0,10,...,5000) NE (48) STEPS (6000) EQUIL (500) PREC (float) REPEAT (3; QUICK 1) GPU_LOOP QUICK REDO OUT_DIR
set -euo pipefail
cd "$(dirname "$0")/.."
. runs/lib.sh
. runs/tables_lib.sh
if [ "$QUICK" = 1 ]; then : "${REPEAT:=1}" "${REORDERS:=0,20,100,1000}" "${STEPS:=3000}"; fi
: "${REORDERS:=0,10,20,50,100,200,500,1000,2000,5000}" "${NE:=48}" "${STEPS:=6000}" "${EQUIL:=500}"
csv=$OUT_DIR/table7.csv
rc=0
REPEAT=${REPEAT:-3} CSV=$csv TAG=t7 runs/sweep.sh gpu-layer sp --ne "$NE" --reorder "$REORDERS" --steps "$STEPS" --equil "$EQUIL" || rc=$?
runs/table.sh "$csv" t7- || rc=1
exit $rc
