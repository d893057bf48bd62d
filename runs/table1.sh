#!/usr/bin/env bash
# runs/table1.sh - Rapaport 2011 Table 1: GPU time per atom-step against system size, SP and
# LJ, gpu-layer in float (the paper's precision). The paper's sizes stop at SP N = 8.8e5
# (Ne 96) and LJ N = 2.6e5 (Ne 64), the 512 MB of its GPU; the H200 goes further.
# Also the paper's observables per size (N_p/N_a, N_l, N_u, time fractions, bytes/atom) are
# in each row. A few points are timed whole by hyperfine (start-up and set-up included) into
# table1_hyperfine.csv beside the in-program timers. The GPU step loop: GPU_LOOP (runs/tables_lib.sh).
# Settings: runs/table1.sh --help (docs/drivers.md).
set -euo pipefail
cd "$(dirname "$0")/.."
. runs/lib.sh
settings_begin "runs/table1.sh [settings]" "Rapaport 2011 Table 1: gpu-layer time per atom-step against size"
. runs/tables_lib.sh
setting SP_NE "16 24 32 48 64 80 96 128 160" "SP sizes (Ne)"
setting LJ_NE "16 24 32 48 64 80 100" "LJ sizes (Ne)"
setting STEPS 6000 "steps (the paper's)"
setting EQUIL 500 "equilibration steps"
setting BIG 100 "Ne from which BIG_STEPS"
setting BIG_STEPS 3000 "steps of the biggest systems"
setting PRECISIONS float "precisions"
setting HYPER_RUNS 3 "hyperfine runs per point (0: none)"
settings_parse "$@"
[ "$QUICK" = 1 ] && settings_prefer SP_NE "16 32 64 128" LJ_NE "16 32 64" STEPS 2000 BIG_STEPS 1500 HYPER_RUNS 2
settings_shared   # SETTINGS_SHARED: the shared settings, handed on to runs/sweep.sh
csv=$OUT_DIR/table1.csv
failed=0
for prec in $PRECISIONS; do
    need_bin "$BUILD/$prec/gpu-layer"
    for sys in sp lj; do
        [ $sys = sp ] && sizes=$SP_NE || sizes=$LJ_NE
        for ne in $sizes; do
            # the biggest systems: fewer steps (a few 1000-step blocks still give the median)
            steps=$STEPS; [ "$ne" -ge "$BIG" ] && steps=$BIG_STEPS
            runs/sweep.sh "${SETTINGS_SHARED[@]}" --csv="$csv" --tag=t1 "$BUILD/$prec/gpu-layer" $sys --ne "$ne" \
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
_point_record "$csv"   # this driver's own settings, beside its sweeps' blocks
driver_table "$csv" t1- || failed=1
exit $failed
