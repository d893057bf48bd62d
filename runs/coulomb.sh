#!/usr/bin/env bash
# runs/coulomb.sh - Sirny 2010 (thesis) on today's hardware: the all-pairs Coulomb energy of
# water boxes (TIP3P-like charges; the thesis's enzyme BsoBI system is not available, so its
# Table 2 runs on a water box of the same size, 117 555 atoms = 39 185 molecules).
#   Table 2: unroll 1/2/4/8 at UNROLL_N (GPU: 117 555; CPU: 43 239), time, CPU/GPU, energies
#   Table 3: unroll 1/2/4/8 at 541 956 atoms (GPU machines only)
#   Table 4 and Fig. 10: time, CPU/GPU ratio and relative error against N (sqrt(t) vs N), for
#            every implementation here and float / double / kahan / pairwise
# Implementations: the C reference over the cores (OpenMP: double, the thesis's CPU loop, and
# float / kahan), OpenCL wherever coulomb has it (PoCL on a CPU, NVIDIA's on a GPU) and CUDA
# where coulomb-cuda and a GPU are present. The exact reference of each box is computed once
# (the first row of each size) and passed on with --e-ref. Rows go to results/<machine>/
# coulomb.csv, tagged t<table>-<impl>-<precision>-u<unroll>-n<N>.
#   env: WATER_SIZES (GPU: the thesis's 43239 ... 630828; CPU: 4998 10002 20001 43239)
#        UNROLL_N, UNROLL3_N (541956; GPU only), REPS (GPU 5, CPU 2), CL_PLATFORM (0),
#        ACCS (float double kahan pairwise), REDO, KEEP_OLD, OUT_DIR, BUILD
set -euo pipefail
cd "$(dirname "$0")/.."
. runs/lib.sh
: "${OUT_DIR:=results/$(machine_name)}"
c=$BUILD/double/coulomb
cu=$BUILD/double/coulomb-cuda
[ -x "$c" ] || { echo "coulomb.sh: $c not built (make)" >&2; exit 2; }
gpu=0
if [ -x "$cu" ] && have_gpu; then gpu=1; fi
opencl=0
if $c --impl opencl --cl-platform "${CL_PLATFORM:-0}" --random 8 --reps 1 --warmup 0 --quiet >/dev/null 2>&1; then
    opencl=1
else
    echo "coulomb.sh: no OpenCL here: $($c --impl opencl --random 8 --reps 1 --warmup 0 --quiet 2>&1 | tail -1)" >&2
fi
if [ $gpu = 1 ]; then
    : "${WATER_SIZES:=43239 140460 239922 339216 447627 541956 630828}" "${UNROLL_N:=117555}" "${UNROLL3_N:=541956}"
    : "${REPS:=5}"
else
    : "${WATER_SIZES:=4998 10002 20001 43239}" "${UNROLL_N:=43239}" "${UNROLL3_N:=}" "${REPS:=2}"
fi
: "${ACCS:=float double kahan pairwise}"
mkdir -p "$OUT_DIR"
csv=$OUT_DIR/coulomb.csv
common=(--reps "$REPS" --warmup 1)
cl=(--impl opencl --cl-platform "${CL_PLATFORM:-0}")

# the exact reference of water box N: computed by the first row of that size (ref, double)
ref_of() {   # N -> e_ref
    local n=$1 key=ref-double-n$1
    run_point "$csv" "$key" -- $c --impl ref --acc double --water "$n" "${common[@]}" >&2
    csv_get "$csv" "$key" e_ref
}

unroll_table() {   # TABLE N
    local t=$1 n=$2 e u
    e=$(ref_of "$n")
    for u in 1 2 4 8; do
        [ $opencl = 1 ] && run_point "$csv" "t$t-opencl-float-u$u-n$n" -- \
            $c "${cl[@]}" --acc float --unroll "$u" --water "$n" --e-ref "$e" "${common[@]}"
        [ $gpu = 1 ] && run_point "$csv" "t$t-cuda-float-u$u-n$n" -- \
            $cu --acc float --unroll "$u" --water "$n" --e-ref "$e" "${common[@]}"
    done
    return 0
}

echo "== Table 2: unroll at N = $UNROLL_N" >&2
unroll_table 2 "$UNROLL_N"
if [ -n "$UNROLL3_N" ]; then
    echo "== Table 3: unroll at N = $UNROLL3_N" >&2
    unroll_table 3 "$UNROLL3_N"
fi
echo "== Table 4 / Fig. 10: N = $WATER_SIZES" >&2
for n in $WATER_SIZES; do
    e=$(ref_of "$n")
    for acc in float kahan; do
        run_point "$csv" "t4-ref-$acc-n$n" -- $c --impl ref --acc "$acc" --water "$n" --e-ref "$e" "${common[@]}"
    done
    for acc in $ACCS; do
        [ $opencl = 1 ] && run_point "$csv" "t4-opencl-$acc-u4-n$n" -- \
            $c "${cl[@]}" --acc "$acc" --water "$n" --e-ref "$e" "${common[@]}"
        [ $gpu = 1 ] && run_point "$csv" "t4-cuda-$acc-u4-n$n" -- \
            $cu --acc "$acc" --water "$n" --e-ref "$e" "${common[@]}"
    done
    [ $gpu = 1 ] && run_point "$csv" "t4-cuda-float-full-n$n" -- \
        $cu --acc float --sweep full --water "$n" --e-ref "$e" "${common[@]}"
done

# summary: the last row of each tag
echo
csvq table "$csv" --last --cols tag,impl,precision,unroll,n,t_eval_s,pairs_per_s,energy,rel_error,git_rev
