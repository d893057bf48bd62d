#!/usr/bin/env bash
# runs/texture.sh - how the force and list kernels read positions, on S (SP Ne 48) and LJ:
# texture (the paper), ldg (the read-only data cache), plain (no cache hint: the paper's
# "texture cache off", 1.85x slower on its GPU). Since 2014-era GPUs, plain global loads
# are cached in L1 too, so the three are expected to be much closer on the H200.
#   env: READS (texture,ldg,plain) SP_NE (48) LJ_NE (48) STEPS (6000) EQUIL (500) PREC REPEAT (3; QUICK 1) GPU_LOOP QUICK REDO OUT_DIR
set -euo pipefail
cd "$(dirname "$0")/.."
. runs/lib.sh
. runs/tables_lib.sh
if [ "$QUICK" = 1 ]; then : "${REPEAT:=1}" "${STEPS:=2000}"; fi
: "${READS:=texture,ldg,plain}" "${SP_NE:=48}" "${LJ_NE:=48}" "${STEPS:=6000}" "${EQUIL:=500}"
csv=$OUT_DIR/texture.csv
failed=0
REPEAT=${REPEAT:-3} CSV=$csv TAG=tex runs/sweep.sh gpu-layer sp --ne "$SP_NE" --read "$READS" --steps "$STEPS" --equil "$EQUIL" || failed=1
REPEAT=${REPEAT:-3} CSV=$csv TAG=tex runs/sweep.sh gpu-layer lj --ne "$LJ_NE" --read "$READS" --steps "$STEPS" --equil "$EQUIL" || failed=1
runs/table.sh "$csv" tex- || failed=1
exit $failed
