#!/usr/bin/env bash
# runs/device_loop.sh - the GPU step without the host (issue "The GPU step stays on the GPU"):
# gpu-layer in float on SP at N = 4 096, 110 592 (system S) and 1 000 000 and LJ at 1 000 000,
# the paper's host-decided loop against the device running ahead (--decide device), graphs off
# on and cond (rebuild kernels under a conditional node), and --sample-every K = 1, 10, 100, 1000. Production timing (us_per_step) and the
# kernel columns (t_*_us) of every point go to results/<machine>/device_loop.csv.
# Settings: runs/device_loop.sh --help (docs/drivers.md).
set -euo pipefail
cd "$(dirname "$0")/.."
. runs/lib.sh
settings_begin "runs/device_loop.sh [settings]" "gpu-layer: the host-decided loop against the device running ahead -> device_loop.csv"
. runs/tables_lib.sh
setting SIZES "sp:16 sp:48 sp:100 lj:100" "SYSTEM:NE points"
setting STEPS 3000 "steps"
setting SAMPLE 1,10,100,1000 "--sample-every values"
setting GRAPHS off,on,cond "--graph values"
setting REPEAT 1 "runs of each point"
settings_parse "$@"
settings_shared   # SETTINGS_SHARED: the shared settings, handed on to runs/sweep.sh
csv=$OUT_DIR/device_loop.csv
sweep=(runs/sweep.sh "${SETTINGS_SHARED[@]}" --csv="$csv" --tag=dl --repeat="$REPEAT")
dev="--layers device --reorder-at device --reduce device --read ldg"
for point in $SIZES; do
    sys=${point%%:*} ne=${point#*:}
    # the paper's loop: the host decides every step (its best settings otherwise)
    "${sweep[@]}" gpu-layer "$sys" --ne "$ne" --steps "$STEPS" --equil 500 $dev --decide host
    "${sweep[@]}" gpu-layer "$sys" --ne "$ne" --steps "$STEPS" --equil 500 $dev --decide device \
        --graph "$GRAPHS" --sample-every "$SAMPLE"
done
_point_record "$csv"   # this driver's own settings, beside its sweeps' blocks
driver_table "$csv" dl-
