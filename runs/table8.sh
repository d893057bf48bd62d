#!/usr/bin/env bash
# runs/table8.sh - Rapaport 2011 Table 8: performance over time without reordering, system S
# on the GPU: --reorder 0 against the default 100, a long run, and the time of every
# 1000-step block (the programs' --blocks-csv rows -> table8_blocks.csv). As atoms diffuse away from
# their initial lattice order, neighbours stop being neighbours in memory and reads scatter;
# the paper saw an eventual 4x drop. BIG_NE adds a system larger than the H200's L2 cache
# (positions of Ne = 160 are 65 MB of float4), where scattered reads cost the most; system S
# (1.8 MB of positions) fits in L2.
#   env: NE (48) STEPS (50000) EQUIL (500) BIG_NE (160; "" = none) BIG_STEPS (16000)
#        PREC (float) GPU_LOOP QUICK REDO OUT_DIR
set -euo pipefail
cd "$(dirname "$0")/.."
. runs/lib.sh
. runs/tables_lib.sh
if [ "$QUICK" = 1 ]; then : "${STEPS:=10000}" "${BIG_NE=}"; fi
: "${NE:=48}" "${STEPS:=50000}" "${EQUIL:=500}" "${BIG_NE=160}" "${BIG_STEPS:=16000}"
csv=$OUT_DIR/table8.csv
export BLOCKS_CSV=$OUT_DIR/table8_blocks.csv
failed=0
CSV=$csv TAG=t8 runs/sweep.sh gpu-layer sp --ne "$NE" --reorder 100,0 \
    --steps "$STEPS" --equil "$EQUIL" || failed=1
if [ -n "$BIG_NE" ]; then
    CSV=$csv TAG=t8 runs/sweep.sh gpu-layer sp --ne "$BIG_NE" --reorder 100,0 \
        --steps "$BIG_STEPS" --equil "$EQUIL" || failed=1
fi
runs/table.sh "$csv" t8- || failed=1
exit $failed
