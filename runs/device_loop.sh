#!/usr/bin/env bash
# runs/device_loop.sh - the GPU step without the host (issue "The GPU step stays on the GPU"):
# gpu-layer in float on SP at N = 4 096, 110 592 (system S) and 1 000 000 and LJ at 1 000 000,
# the paper's host-decided loop against the device running ahead (--decide device), graphs off
# on and cond (rebuild kernels under a conditional node), and --sample-every K = 1, 10, 100, 1000. Production timing (us_per_step) and the
# kernel columns (t_*_us) of every point go to results/<machine>/device_loop.csv.
#   env: SIZES ("sp:16 sp:48 sp:100 lj:100")  SAMPLE (1,10,100,1000)  GRAPHS (off,on,cond)
#        STEPS (3000)  REPEAT (1)  OUT_DIR  REDO  KEEP_OLD
set -euo pipefail
cd "$(dirname "$0")/.."
. runs/lib.sh
. runs/tables_lib.sh
: "${SIZES:=sp:16 sp:48 sp:100 lj:100}" "${STEPS:=3000}" "${SAMPLE:=1,10,100,1000}" "${GRAPHS:=off,on,cond}"
export CSV=$OUT_DIR/device_loop.csv TAG=dl
dev="--layers device --reorder-at device --reduce device --read ldg"
for point in $SIZES; do
    sys=${point%%:*} ne=${point#*:}
    # the paper's loop: the host decides every step (its best settings otherwise)
    runs/sweep.sh gpu-layer "$sys" --ne "$ne" --steps "$STEPS" --equil 500 $dev --decide host
    runs/sweep.sh gpu-layer "$sys" --ne "$ne" --steps "$STEPS" --equil 500 $dev --decide device \
        --graph "$GRAPHS" --sample-every "$SAMPLE"
done
runs/table.sh "$CSV" dl-
