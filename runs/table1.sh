#!/usr/bin/env bash
# runs/table1.sh - Rapaport 2011 Table 1: GPU time per atom-step against system size, SP and
# LJ, gpu-layer in float (the paper's precision). The paper's sizes stop at SP N = 8.8e5
# (Ne 96) and LJ N = 2.6e5 (Ne 64), the 512 MB of its GPU; the H200 goes further.
# Also the paper's observables per size (N_p/N_a, N_l, N_u, time fractions, bytes/atom) are
# in each row. A few points are timed whole by hyperfine (start-up and set-up included) into
# table1_hyperfine.csv beside the in-program timers. The GPU step loop: GPU_LOOP (runs/tables_lib.sh).
#   env: SP_NE LJ_NE (sizes) STEPS (6000, the paper's) EQUIL (500) BIG (Ne from which BIG_STEPS, 100)
#        BIG_STEPS (3000) PRECISIONS (float) HYPER_RUNS (3; 0 = no hyperfine) GPU_LOOP QUICK REDO OUT_DIR
set -euo pipefail
cd "$(dirname "$0")/.."
. runs/lib.sh
. runs/tables_lib.sh
if [ "$QUICK" = 1 ]; then
    : "${SP_NE:=16 32 64 128}" "${LJ_NE:=16 32 64}" "${STEPS:=2000}" "${BIG_STEPS:=1500}" "${HYPER_RUNS:=2}"
fi
: "${SP_NE:=16 24 32 48 64 80 96 128 160}" "${LJ_NE:=16 24 32 48 64 80 100}"
: "${STEPS:=6000}" "${EQUIL:=500}" "${BIG:=100}" "${BIG_STEPS:=3000}"
: "${PRECISIONS:=float}" "${HYPER_RUNS:=3}"
csv=$OUT_DIR/table1.csv
failed=0
for prec in $PRECISIONS; do
    need_bin "$BUILD/$prec/gpu-layer"
    for sys in sp lj; do
        [ $sys = sp ] && sizes=$SP_NE || sizes=$LJ_NE
        for ne in $sizes; do
            # the biggest systems: fewer steps (a few 1000-step blocks still give the median)
            steps=$STEPS; [ "$ne" -ge "$BIG" ] && steps=$BIG_STEPS
            CSV=$csv TAG=t1 runs/sweep.sh "$BUILD/$prec/gpu-layer" $sys --ne "$ne" \
                --steps "$steps" --equil "$EQUIL" || failed=1
        done
    done
    if [ "$HYPER_RUNS" -gt 0 ]; then
        for pt in "sp 48" "lj 32"; do
            set -- $pt
            # the sweep's point of the same size: its tag, its loop, so the report sets them side by side
            flags="--ne $2 --steps $STEPS --equil $EQUIL"
            hyperfine_point "$OUT_DIR/table1_hyperfine.csv" "$(point_tag t1 gpu-layer "$prec" "$1" "$GPU_LOOP" "$flags")" \
                "$HYPER_RUNS" "$(($2 * $2 * $2))" "$STEPS" -- "$BUILD/$prec/gpu-layer" --system "$1" $flags \
                $(gpu_loop_flags "$GPU_LOOP" $flags) || failed=1
        done
    fi
done
runs/table.sh "$csv" t1- || failed=1
exit $failed
