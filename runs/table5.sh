#!/usr/bin/env bash
# runs/table5.sh - Rapaport 2011 Table 5: shell thickness delta on system S (SP, Ne = 48),
# GPU. A thicker shell means fewer, larger cells (more layers N_l), rarer rebuilds (N_u up)
# and more pairs to test in the force loop; the paper finds the minimum time near 0.6.
#   env: DELTAS (0.2,...,1.0) NE (48) STEPS (6000) EQUIL (500) PREC (float) REPEAT (3; QUICK 1) GPU_LOOP QUICK REDO OUT_DIR
set -euo pipefail
cd "$(dirname "$0")/.."
. runs/lib.sh
. runs/tables_lib.sh
if [ "$QUICK" = 1 ]; then : "${REPEAT:=1}" "${DELTAS:=0.3,0.6,0.9}" "${STEPS:=2000}"; fi
: "${DELTAS:=0.2,0.3,0.4,0.5,0.6,0.7,0.8,0.9,1.0}" "${NE:=48}" "${STEPS:=6000}" "${EQUIL:=500}"
csv=$OUT_DIR/table5.csv
rc=0
REPEAT=${REPEAT:-3} CSV=$csv TAG=t5 runs/sweep.sh gpu-layer sp --ne "$NE" --delta "$DELTAS" --steps "$STEPS" --equil "$EQUIL" || rc=$?
runs/table.sh "$csv" t5- || rc=1
exit $rc
