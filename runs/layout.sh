#!/usr/bin/env bash
# runs/layout.sh - the neighbour matrix W(m,i) stored by rows (the m-th neighbours of all atoms
# adjacent: coalesced reads by the threads of a warp) or transposed (each atom's neighbours
# adjacent); the paper: the transpose is about 9% slower. S and LJ on the GPU.
#   env: SP_NE (48) LJ_NE (48) STEPS (6000) EQUIL (500) PREC REPEAT (3; QUICK 1) GPU_LOOP QUICK REDO OUT_DIR
set -euo pipefail
cd "$(dirname "$0")/.."
. runs/lib.sh
. runs/tables_lib.sh
if [ "$QUICK" = 1 ]; then : "${REPEAT:=1}" "${STEPS:=2000}"; fi
: "${SP_NE:=48}" "${LJ_NE:=48}" "${STEPS:=6000}" "${EQUIL:=500}"
csv=$OUT_DIR/layout.csv
failed=0
REPEAT=${REPEAT:-3} CSV=$csv TAG=lay runs/sweep.sh gpu-layer sp --ne "$SP_NE" --wlayout row,col --steps "$STEPS" --equil "$EQUIL" || failed=1
REPEAT=${REPEAT:-3} CSV=$csv TAG=lay runs/sweep.sh gpu-layer lj --ne "$LJ_NE" --wlayout row,col --steps "$STEPS" --equil "$EQUIL" || failed=1
runs/table.sh "$csv" lay- || failed=1
exit $failed
