#!/usr/bin/env bash
# runs/texture.sh - how the force and list kernels read positions, on S (SP Ne 48) and LJ:
# texture (the paper), ldg (the read-only data cache), plain (no cache hint: the paper's
# "texture cache off", 1.85x slower on its GPU). Since 2014-era GPUs, plain global loads
# are cached in L1 too, so the three are expected to be much closer on the H200.
# Settings: runs/texture.sh --help (docs/drivers.md).
set -euo pipefail
cd "$(dirname "$0")/.."
. runs/lib.sh
settings_begin "runs/texture.sh [settings]" "gpu-layer on S and LJ: --read"
. runs/tables_lib.sh
setting READS "texture,ldg,plain" "how the kernels read positions"
setting SP_NE 48 "SP size (Ne)"
setting LJ_NE 48 "LJ size (Ne)"
setting STEPS 6000 "steps"
setting EQUIL 500 "equilibration steps"
setting REPEAT 3 "runs of each point"
setting PREC "" "gpu-layer's precision (runs/sweep.sh: default float)"
settings_parse "$@"
[ "$QUICK" = 1 ] && settings_prefer REPEAT 1 STEPS 2000
csv=$OUT_DIR/texture.csv
failed=0
layer_sweep "$csv" tex sp "$SP_NE" --read "$READS" || failed=1
layer_sweep "$csv" tex lj "$LJ_NE" --read "$READS" || failed=1
_point_record "$csv"   # this driver's own settings, beside its sweeps' blocks
driver_table "$csv" tex- || failed=1
exit $failed
