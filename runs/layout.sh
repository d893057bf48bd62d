#!/usr/bin/env bash
# runs/layout.sh - the neighbour matrix W(m,i) stored by rows (the m-th neighbours of all atoms
# adjacent: coalesced reads by the threads of a warp) or transposed (each atom's neighbours
# adjacent); the paper: the transpose is about 9% slower. S and LJ on the GPU.
# Settings: runs/layout.sh --help (docs/drivers.md).
set -euo pipefail
cd "$(dirname "$0")/.."
. runs/lib.sh
settings_begin "runs/layout.sh [settings]" "gpu-layer on S and LJ: --wlayout"
. runs/tables_lib.sh
setting SP_NE 48 "SP size (Ne)"
setting LJ_NE 48 "LJ size (Ne)"
setting STEPS 6000 "steps"
setting EQUIL 500 "equilibration steps"
setting REPEAT 3 "runs of each point"
setting PREC "" "gpu-layer's precision (runs/sweep.sh: default float)"
settings_parse "$@"
[ "$QUICK" = 1 ] && settings_prefer REPEAT 1 STEPS 2000
csv=$OUT_DIR/layout.csv
failed=0
layer_sweep "$csv" lay sp "$SP_NE" --wlayout row,col || failed=1
layer_sweep "$csv" lay lj "$LJ_NE" --wlayout row,col || failed=1
_point_record "$csv"   # this driver's own settings, beside its sweeps' blocks
driver_table "$csv" lay- || failed=1
exit $failed
