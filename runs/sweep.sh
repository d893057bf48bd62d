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
# Settings: runs/sweep.sh --help (flags before VARIANT; the old variables CSV, TAG, REPEAT,
# PREC, ... are still read from the environment: docs/drivers.md).
set -euo pipefail
cd "$(dirname "$0")/.."
. runs/lib.sh
settings_begin "runs/sweep.sh [settings] VARIANT SYSTEM [--flag v1,v2,...]..." \
    "the cross product of the flag values, one run_point per point (header of runs/sweep.sh)"
. runs/tables_lib.sh
setting CSV "" "the CSV the rows go to (default OUT_DIR/sweep.csv)"
setting TAG sweep "the tag prefix"
setting REPEAT 1 "runs of each point; the 2nd and later have tags ending -r2, -r3, ..."
setting PREC "" "precision of a VARIANT given by name (default float for gpu-*, else double)"
settings_parse_head "$@"
set -- "${SETTINGS_ARGS[@]}"

if [ $# -lt 2 ]; then
    echo "usage: runs/sweep.sh [settings] VARIANT SYSTEM [--flag v1,v2,...]... (--help)" >&2
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
prefix=$TAG

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

repeat=$REPEAT
total=$((${#points[@]} * repeat)) k=0 failed=0
echo "sweep: $name ($prec) $system, $total runs -> $csv" >&2
progress_start "$total"   # runs/lib.sh: "[k/total] ... about N min left" after each point
# each point's cost (atoms x steps): a sweep over sizes is not a sweep of equal points
weights=()
for rep in $(seq 1 "$repeat"); do for p in "${points[@]}"; do weights+=("$(point_weight $p)"); done; done
progress_weights "${weights[@]}"
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
