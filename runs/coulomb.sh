#!/usr/bin/env bash
# runs/coulomb.sh - Sirny 2010 (thesis) on today's hardware: the all-pairs Coulomb energy of
# water boxes (TIP3P-like charges) and of a real solvated protein (reference/adk_oplsaa: the
# thesis's enzyme BsoBI system is not published, so its Table 2 runs on a water box of the same
# size, 117 555 atoms = 39 185 molecules, and on the protein, 47 681 atoms).
#   Table 2: unroll 1/2/4/8 at UNROLL_N (GPU: 117 555; CPU: 43 239) and on the protein
#   Table 3: unroll 1/2/4/8 at 541 956 atoms (GPU machines only)
#   Table 4 and Fig. 10: time, CPU/GPU ratio and relative error against N (sqrt(t) vs N), for
#            every implementation here and every accumulation mode (ACCS), and the protein
# Implementations: the C reference over the cores (OpenMP: double, the thesis's CPU loop, and
# float / kahan), OpenCL wherever the coulomb program has it (PoCL on a CPU, NVIDIA's on a GPU;
# COULOMB_CL names another build of it, e.g. one linked against a private OpenCL loader) and
# CUDA where coulomb-cuda and a GPU are present. The reference of each system is computed once,
# by the first row of that system, and passed on with --e-ref: on a CPU machine the C reference
# (row ref-double-<system>), on a GPU machine coulomb-cuda in --acc exact (double terms,
# compensated sums; row ref-exact-<system>, ref_source device), since the C reference of the
# largest boxes takes minutes. On a GPU machine the CPU rows are the host's OpenMP double and
# float loops at CPU_SIZES only (the CPU/GPU ratio at other N scales as N^2).
# Rows go to $OUT_DIR/coulomb.csv, tagged t<table>-<impl>-<precision>-u<unroll>-<system>,
# systems n<N> (water box) and bio (the protein).
# Settings: runs/coulomb.sh --help (the table below, or the old variables; docs/drivers.md).
set -euo pipefail
cd "$(dirname "$0")/.."
. runs/lib.sh
settings_begin "runs/coulomb.sh [settings]" "Sirny 2010's Tables 2-4 and Fig. 10 for what the machine has -> coulomb.csv"
setting OUT_DIR "" "where the CSV goes (default results/<machine>)"
setting WATER_SIZES "" "water box sizes (GPU: the thesis's 43239 ... 630828; CPU: 4998 10002 20001 43239)"
setting UNROLL_N "" "Table 2's N (GPU: 117555; CPU: 43239)"
setting UNROLL3_N "" "Table 3's N (GPU: 541956; CPU: none)"
setting REPS "" "timed evaluations per row (GPU: 5; CPU: 2)"
setting CPU_SIZES "" "on a GPU machine, the CPU rows' sizes (43239 117555)"
setting CL_PLATFORM 0 "the OpenCL platform"
setting ACCS "float double kahan pairwise exact" "accumulation modes"
setting BIO reference/adk_oplsaa/adk_oplsaa.xyzq.gz "the protein's file (empty: none)"
setting COULOMB_CL "" "the coulomb program for OpenCL (default BUILD/double/coulomb)"
settings_parse "$@"
points_tally_begin   # runs/lib.sh: the summary only of points that ran (driver_table)
: "${OUT_DIR:=results/$(machine_name)}"
c=$BUILD/double/coulomb
cu=$BUILD/double/coulomb-cuda
cl_bin=${COULOMB_CL:-$c}
[ -x "$c" ] || { echo "coulomb.sh: $c not built (make)" >&2; exit 2; }
gpu=0
if [ -x "$cu" ] && have_gpu; then gpu=1; fi
opencl=0
if [ -x "$cl_bin" ] && $cl_bin --impl opencl --cl-platform "$CL_PLATFORM" --random 8 --reps 1 --warmup 0 --quiet >/dev/null 2>&1; then
    opencl=1
else
    echo "coulomb.sh: no OpenCL here: $($cl_bin --impl opencl --random 8 --reps 1 --warmup 0 --quiet 2>&1 | tail -1)" >&2
fi
# the machine's defaults, for the settings left at theirs
if [ $gpu = 1 ]; then
    settings_prefer WATER_SIZES "43239 140460 239922 339216 447627 541956 630828" UNROLL_N 117555 UNROLL3_N 541956 \
        REPS 5 CPU_SIZES "43239 117555"
else
    settings_prefer WATER_SIZES "4998 10002 20001 43239" UNROLL_N 43239 REPS 2
fi
mkdir -p "$OUT_DIR"
csv=$OUT_DIR/coulomb.csv
common=(--reps "$REPS" --warmup 1)
cl=(--impl opencl --cl-platform "$CL_PLATFORM")

# a system's name (n<N>: water box of N atoms; bio: the protein) -> its input flags
sys_args() { case $1 in bio) echo "--input $BIO" ;; n*) echo "--water ${1#n}" ;; esac; }

# the reference energy of a system: computed by its first row (see above); in REF_E, not
# printed: a $(...) subshell would lose run_point's progress count
ref_of() {   # SYSTEM -> REF_E
    local s=$1 key
    if [ $gpu = 1 ]; then
        key=ref-exact-$s
        run_point "$csv" "$key" -- $cu --acc exact --ref device $(sys_args "$s") --reps 1 --warmup 0 >&2
    else
        key=ref-double-$s
        run_point "$csv" "$key" -- $c --impl ref --acc double $(sys_args "$s") "${common[@]}" >&2
    fi
    REF_E=$(csv_get "$csv" "$key" e_ref)
}

# the CPU rows of a system (the thesis's CPU column): on a GPU machine the host's double and
# float loops at CPU_SIZES and on the protein only, one evaluation (rows cpu-<precision>-<system>,
# run once whichever table asks first); on a CPU machine float and kahan beside the double row
# that ref_of made (Table 4 only)
cpu_rows() {   # TABLE SYSTEM E_REF
    local t=$1 s=$2 e=$3 acc
    if [ $gpu = 1 ]; then
        case " ${CPU_SIZES:-} bio " in *" ${s#n} "*) ;; *) return 0 ;; esac
        for acc in double float; do
            run_point "$csv" "cpu-$acc-$s" -- $c --impl ref --acc "$acc" $(sys_args "$s") --e-ref "$e" --reps 1 --warmup 0
        done
    elif [ "$t" = 4 ]; then
        for acc in float kahan; do
            run_point "$csv" "t$t-ref-$acc-$s" -- $c --impl ref --acc "$acc" $(sys_args "$s") --e-ref "$e" "${common[@]}"
        done
    fi
}

unroll_table() {   # TABLE SYSTEM
    local t=$1 s=$2 e u
    ref_of "$s"; e=$REF_E
    [ "$t" = 2 ] && cpu_rows 2 "$s" "$e"
    for u in 1 2 4 8; do
        [ $opencl = 1 ] && run_point "$csv" "t$t-opencl-float-u$u-$s" -- \
            $cl_bin "${cl[@]}" --acc float --unroll "$u" $(sys_args "$s") --e-ref "$e" "${common[@]}"
        [ $gpu = 1 ] && run_point "$csv" "t$t-cuda-float-u$u-$s" -- \
            $cu --acc float --unroll "$u" $(sys_args "$s") --e-ref "$e" "${common[@]}"
    done
    return 0
}

# every accumulation mode of every implementation on one system, unroll 4 (the thesis's)
modes_rows() {   # TABLE SYSTEM
    local t=$1 s=$2 e acc
    ref_of "$s"; e=$REF_E
    cpu_rows "$t" "$s" "$e"
    for acc in $ACCS; do
        [ $opencl = 1 ] && run_point "$csv" "t$t-opencl-$acc-u4-$s" -- \
            $cl_bin "${cl[@]}" --acc "$acc" $(sys_args "$s") --e-ref "$e" "${common[@]}"
        [ $gpu = 1 ] && run_point "$csv" "t$t-cuda-$acc-u4-$s" -- \
            $cu --acc "$acc" $(sys_args "$s") --e-ref "$e" "${common[@]}"
    done
    [ $gpu = 1 ] && run_point "$csv" "t$t-cuda-float-full-$s" -- \
        $cu --acc float --sweep full $(sys_args "$s") --e-ref "$e" "${common[@]}"
    return 0
}

# the plan's size for the progress lines (runs/lib.sh): the run_point calls of the tables
# below, system by system (a reference already in the CSV counts again: a skip)
cpu_n() { if [ $gpu = 1 ]; then case " ${CPU_SIZES:-} bio " in *" ${2#n} "*) echo 2 ;; *) echo 0 ;; esac
          elif [ "$1" = 4 ]; then echo 2; else echo 0; fi; }
n_points=0
for s in "n$UNROLL_N" ${BIO:+bio} ${UNROLL3_N:+n$UNROLL3_N}; do
    t=2; [ "$s" = "n$UNROLL3_N" ] && t=3
    n_points=$((n_points + 1 + $(if [ $t = 2 ]; then cpu_n 2 "$s"; else echo 0; fi) + 4 * (opencl + gpu)))
done
for s in $(printf 'n%s ' $WATER_SIZES) ${BIO:+bio}; do
    n_points=$((n_points + 1 + $(cpu_n 4 "$s") + $(echo $ACCS | wc -w) * (opencl + gpu) + gpu))
done
progress_start "$n_points"

echo "== Table 2: unroll at N = $UNROLL_N${BIO:+ and on $BIO}" >&2
unroll_table 2 "n$UNROLL_N"
[ -n "$BIO" ] && unroll_table 2 bio
if [ -n "$UNROLL3_N" ]; then
    echo "== Table 3: unroll at N = $UNROLL3_N" >&2
    unroll_table 3 "n$UNROLL3_N"
fi
echo "== Table 4 / Fig. 10: N = $WATER_SIZES${BIO:+, and $BIO}" >&2
for n in $WATER_SIZES; do modes_rows 4 "n$n"; done
[ -n "$BIO" ] && modes_rows 4 bio

# summary: the last row of each tag
echo
driver_table "$csv" "" --last --cols tag,impl,precision,unroll,n,t_eval_s,pairs_per_s,energy,rel_error,git_rev
