#!/usr/bin/env bash
# runs/table6.sh - Rapaport 2011 Table 6: threads per block N_T on system S, GPU. The paper's
# GPU had 32 cores and 512 threads per block at most; the H200 allows 1024.
#   env: THREADS (32,...,1024) NE (48) STEPS (6000) EQUIL (500) PREC (float) REPEAT (3; QUICK 1) GPU_LOOP QUICK REDO OUT_DIR
set -euo pipefail
cd "$(dirname "$0")/.."
. runs/lib.sh
. runs/tables_lib.sh
if [ "$QUICK" = 1 ]; then : "${REPEAT:=1}" "${THREADS:=32,128,512}" "${STEPS:=2000}"; fi
: "${THREADS:=32,64,96,128,192,256,512,1024}" "${NE:=48}" "${STEPS:=6000}" "${EQUIL:=500}"
csv=$OUT_DIR/table6.csv
rc=0
REPEAT=${REPEAT:-3} CSV=$csv TAG=t6 runs/sweep.sh gpu-layer sp --ne "$NE" --threads "$THREADS" --steps "$STEPS" --equil "$EQUIL" || rc=$?
runs/table.sh "$csv" t6- || rc=1
exit $rc
