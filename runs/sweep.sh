#!/usr/bin/env bash
# runs/sweep.sh VARIANT SYSTEM [--flag v1,v2,...]... - run the cross product of flag values.
#
#   runs/sweep.sh gpu-layer sp --ne 48 --threads 32,64,128,256
#   runs/sweep.sh build/double/cpu-grouped sp --ne 8 --delta 0.4,0.6 --steps 20 --equil 0
#
# VARIANT is a program path, or a name under $BUILD/$PREC (PREC: float for gpu-*, the paper's
# GPU precision; double otherwise). Each point goes through run_point (runs/lib.sh): it is
# skipped when its tag is already in the CSV with status ok, measured at the program's
# revision (a row of another revision is measured again unless KEEP_OLD=1; REDO=1 runs it again), and
# benchmarks on one machine take turns. The tag names every value, so a point is the same
# point in every run of the sweep, and a changed --steps is a new point, never a replacement.
# A GPU program (gpu-*) runs the step loop GPU_LOOP (runs/tables_lib.sh: device by default, or
# paper): its flags are added to each point but for the knobs the sweep sets itself, and the
# loop is in the tag (prefix-variant-precision-system-loop=device-...; none for paper).
#   env: CSV (default $OUT_DIR/sweep.csv)   TAG (tag prefix, default "sweep")
#        LOGDIR (set: keep each point's full output, block lines included, in LOGDIR/TAG.log)
#        REPEAT (1: runs of each point; the 2nd and later have tags ending -r2, -r3, ...; the
#                figures show the median and the range: run-to-run spread is part of a result)
#        BLOCKS_CSV (set: the programs append one row per averaging block to this file)
#        GPU_LOOP (device | paper)   OUT_DIR (default results/<machine>)   PREC   REDO   KEEP_OLD
#        ALLOW_DIRTY (runs/lib.sh)
set -euo pipefail
cd "$(dirname "$0")/.."
. runs/lib.sh
. runs/tables_lib.sh

if [ $# -lt 2 ]; then
    sed -n '2,4p' "$0" | sed 's/^# //' >&2
    exit 2
fi
variant=$1 system=$2
shift 2
if [ -x "$variant" ]; then prog=$variant
else
    case "$variant" in gpu-*) prec=${PREC:-float} ;; *) prec=${PREC:-double} ;; esac
    prog=$BUILD/$prec/$variant
fi
need_bin "$prog"
name=$(basename "$prog") prec=$(basename "$(dirname "$prog")")
csv=${CSV:-$OUT_DIR/sweep.csv}
prefix=${TAG:-sweep}

# The cross product, one line of flags per point: ("" ) -> ("--a 1" "--a 2") -> ...
points=("")
while [ $# -gt 0 ]; do
    flag=$1
    case "$flag" in --*) ;; *) echo "sweep.sh: expected --flag v1,v2,... at '$flag'" >&2; exit 2 ;; esac
    [ $# -ge 2 ] || { echo "sweep.sh: $flag needs a list of values" >&2; exit 2; }
    IFS=, read -r -a values <<<"$2"
    [ ${#values[@]} -gt 0 ] || { echo "sweep.sh: $flag has an empty list" >&2; exit 2; }
    next=()
    for p in "${points[@]}"; do
        for v in "${values[@]}"; do next+=("$p $flag $v"); done
    done
    points=("${next[@]}")
    shift 2
done

repeat=${REPEAT:-1}
total=$((${#points[@]} * repeat)) k=0 failed=0
echo "sweep: $name ($prec) $system, $total runs -> $csv" >&2
progress_start "$total"   # runs/lib.sh: "[k/total] ... about N min left" after each point
for rep in $(seq 1 "$repeat"); do
for p in "${points[@]}"; do
    k=$((k + 1))
    loop=paper
    case "$name" in gpu-*) loop=$(gpu_loop_of $p) ;; esac
    tag=$(point_tag "$prefix" "$name" "$prec" "$system" "$loop" "$p" "$rep")
    # shellcheck disable=SC2086  # $p and the loop's flags are lists of flags and values without spaces
    run_point "$csv" "$tag" -- "$prog" --system "$system" $p $(gpu_loop_flags "$loop" $p) || failed=$((failed + 1))
done
done
[ $failed -eq 0 ] || echo "sweep: $failed of $total runs failed" >&2
[ $failed -eq 0 ]
