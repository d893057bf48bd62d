#!/usr/bin/env bash
# plots/check_committed.sh [REV] - are the committed report and figures what the committed rows
# give? Exports REV (default HEAD) whole (git archive) into a scratch tree, removes its figures,
# redraws them and rewrites REPORT.md there (make plots, make report: the committed machines'
# committed CSVs), and compares with what REV holds: a figure or report that differs, one that
# is committed but no longer drawn, or one drawn but not committed fails (exit 1, the files
# named). Regenerate with `make plots report` and commit (docs/csv.md "Committed figures").
# The figures depend on the drawing tools and on the knob defaults a built GPU program states
# (plots/figdata.py program_defaults): it needs the project's python (plots/venv.sh), gnuplot
# and $BUILD/float/gpu-layer (nvcc; CI builds it), else it says which is missing (exit 3).
# About 1 minute on 2 cores.
set -euo pipefail
cd "$(dirname "$0")/.."
rev=${1:-HEAD}
build=$(cd "${BUILD:-build}" && pwd)
py=$(plots/venv.sh) && py=$(cd "$(dirname "$py")" && pwd)/$(basename "$py") || { echo "check_committed: no python with pandas and matplotlib (plots/venv.sh)" >&2; exit 3; }
command -v gnuplot >/dev/null 2>&1 || { echo "check_committed: gnuplot is not installed: the gp figures cannot be redrawn" >&2; exit 3; }
[ -x "$build/float/gpu-layer" ] || { echo "check_committed: $build/float/gpu-layer not built (make gpu): the figures' knob defaults come from it" >&2; exit 3; }
scratch=$(mktemp -d "${TMPDIR:-/tmp}/nbrlab-committed.XXXXXX")
trap 'rm -rf "$scratch"' EXIT
mkdir -p "$scratch/tree" "$scratch/old"
git archive "$rev" | tar -x -C "$scratch/tree"
report=$(cd "$scratch/tree" && plots/outdir.sh --report)
cp -a "$scratch/tree/plots/out" "$scratch/old/out"
cp "$scratch/tree/$report" "$scratch/old/REPORT.md"
rm -rf "$scratch/tree/plots/out" "$scratch/tree/$report"
# no .git in the export: the tree is the committed machines' (plots/outdir.sh), drawn in place
(cd "$scratch/tree" && NBR_PYTHON=$py BUILD=$build plots/all.sh && NBR_PYTHON=$py BUILD=$build runs/report.sh) \
    >"$scratch/log" 2>&1 || { tail -n 15 "$scratch/log"; echo "check_committed: make plots / make report failed" >&2; exit 2; }
# plots/out/data/ is ignored by git: the gnuplot data files, not committed. The history figures
# are make history's (runs/history.sh: bench.csv against git's commit order, which an export
# without .git lacks), not make plots': left out here
rm -rf "$scratch/tree/plots/out/data" "$scratch/old/out/data"
rm -f "$scratch/old/out/mpl"/history-*
bad=$(diff -rq "$scratch/old/out" "$scratch/tree/plots/out" | sed "s|$scratch/old/out|plots/out|g; s|$scratch/tree/plots/out|plots/out|g" || true)
cmp -s "$scratch/old/REPORT.md" "$scratch/tree/$report" || {
    diff "$scratch/old/REPORT.md" "$scratch/tree/$report" >"$scratch/report.diff" || true
    head -n 20 "$scratch/report.diff"
    bad+=$'\n'"$report differs"; }
bad=$(sed '/^$/d' <<<"$bad")
if [ -n "$bad" ]; then
    echo "$bad"
    echo "check_committed: $(grep -c '' <<<"$bad") committed figure(s) or report(s) are not what $rev's rows give: make plots report, then commit them"
    exit 1
fi
echo "check_committed: $report and $(find "$scratch/old/out" -type f | wc -l) figure files are what $rev's rows give"
