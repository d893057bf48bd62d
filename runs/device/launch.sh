#!/usr/bin/env bash
# runs/device/launch.sh - one launch per stage or one per chunk (issue 36): gpu-rumd, float,
# lammps-lj on the simple cubic lattice at N = 512, 4096 and 32 768 (ne 8, 16, 32), list n2,
# --read plain (which the chunk needs), the device loop, everything else at RUMD's defaults
# for N, in three launch structures:
#   stage   each stage of a step a kernel of its own (kick_drift, the gated sort and build,
#           forces, kick, decide: six launches a step)
#   graph   the same kernels captured once per chunk as a CUDA graph, the rebuild's under a
#           conditional node (--graph cond)
#   chunk   every step between two sample points in one cooperative launch (--launch chunk,
#           kernels/cuda/rumd_chunk.cuh): the same device code, a grid-wide sync between stages
# in interleaved rounds (every point once, then again). Each row has the production timing
# (us_per_step, the median of the timing blocks) and the kernel-level timing (--stage-reps 20:
# t_list_us, t_force_us, t_integrate_us of each stage kernel replayed alone), so the step's
# time can be set against the work of its kernels.
# Writes $OUT/launch.csv (tags launch-ne<ne>-<mode>-r<round>) and $OUT/launch.txt: per point
# the median over the rounds of us_per_step, the kernels' time per step (list / rebuild interval
# + force + integrate) and what is left over, rewritten after every round; the runs' output in
# $OUT/launch-logs.tgz (few files: the device tool brings back a limited number).
# Settings: runs/device/launch.sh --help.
set -u
. "$(dirname "$0")/lib.sh"
settings_begin "runs/device/launch.sh [settings]" "gpu-rumd one launch per stage or per chunk, interleaved rounds"
setting OUT /tmp/launch-out "where launch.csv and launch.txt land (the device tool's \$OUT)"
setting BUILD build "the build directory gpu-rumd is taken from"
setting MODES "stage graph chunk" "launch structures (stage, graph, chunk)"
setting ROUNDS 3 "interleaved rounds"
setting NES "8 16 32" "--ne values (lammps-lj, sc lattice: N = ne^3)"
setting ARGS "" "more flags for every run"
settings_parse "$@"
cd "$(dirname "$0")/../.."
b=$BUILD/float/gpu-rumd
"$b" --help 2>/dev/null | grep -q -- '--launch' || { echo "launch: $b has no --launch (make -j first)" >&2; exit 1; }
mkdir -p "$OUT"
csv=$OUT/launch.csv txt=$OUT/launch.txt logs=$(mktemp -d)
trap 'tar czf "$OUT/launch-logs.tgz" -C "$logs" . && rm -rf "$logs"' EXIT
rm -f "$csv"
base="--system lammps-lj --lattice sc --list n2 --read plain --decide device --stage-reps 20"
mode_args() {
    case $1 in
        stage) echo "--launch stage" ;;
        graph) echo "--launch stage --graph cond" ;;
        chunk) echo "--launch chunk" ;;
    esac
}
steps_of() { case $1 in 32) echo "--steps 1500 --equil 500" ;; *) echo "--steps 6000 --equil 1000" ;; esac; }
summarize() {
    python3 - "$csv" >"$txt" <<'PY'
import statistics, sys
sys.path.insert(0, "runs")
import csvq
rows = [r for r in csvq.read(sys.argv[1]).rows if r["status"] == "ok"]
points = {}
for r in rows:
    points.setdefault(r["tag"].rsplit("-r", 1)[0], []).append(r)
med = lambda rs, k: statistics.median(float(r[k]) for r in rs)
print(f"{'point':24} {'N':>6} {'rounds':>6} {'us/step':>8} {'kernels':>8} {'rest':>8} {'rebuild every':>13}")
for tag, rs in points.items():
    us = med(rs, "us_per_step")
    every = med(rs, "steps_per_rebuild")
    work = med(rs, "t_list_us") / every + med(rs, "t_force_us") + med(rs, "t_integrate_us")
    print(f"{tag:24} {rs[0]['n']:>6} {len(rs):>6} {us:8.2f} {work:8.2f} {us - work:8.2f} {every:13.1f}")
PY
}
failed=0 t0=$SECONDS
for round in $(seq 1 "$ROUNDS"); do
    for ne in $NES; do
        for mode in $MODES; do
            tag=launch-ne$ne-$mode-r$round
            # shellcheck disable=SC2046
            if ! "$b" $base --ne "$ne" $(steps_of "$ne") $(mode_args "$mode") $ARGS --csv "$csv" --tag "$tag" \
                --quiet >"$logs/$tag.out" 2>&1; then
                echo "launch: $tag failed: $(tail -1 "$logs/$tag.out")"
                failed=$((failed + 1))
            fi
        done
    done
    summarize
    echo "launch: round $round done at $((SECONDS - t0)) s"
done
[ -s "$csv" ] || { echo "launch: no rows written" >&2; exit 1; }
summarize
cat "$txt"
[ "$failed" -eq 0 ] || { echo "launch: $failed run(s) failed (their output in $OUT/launch-logs.tgz)"; exit 1; }
