#!/usr/bin/env bash
# plots/outdir.sh - where make plots draws and make report writes (plots/all.sh, runs/report.sh).
# plots/out/ and results/cpu-amd-epyc/REPORT.md are committed: they are drawn from the
# committed CSVs of the committed machines (h200, cpu-amd-epyc: plots/tables.py's defaults)
# and nothing else may overwrite them, or the tree turns dirty and every later append under
# results/ is refused. Other machines (NBR_GPU_MACHINE, NBR_CPU_MACHINE) or other CSVs
# (NBR_RESULTS) draw into $BUILD/plots/<gpu>+<cpu>/ (ignored by git), their report beside.
# NBR_PLOTS_OUT names the figures' folder outright (to commit figures of a new machine).
#   plots/outdir.sh          the figures' folder
#   plots/outdir.sh --report the report's path
set -euo pipefail
cd "$(dirname "$0")/.."
gpu=${NBR_GPU_MACHINE:-h200} cpu=${NBR_CPU_MACHINE:-cpu-amd-epyc}
committed=0
if [ "$gpu" = h200 ] && [ "$cpu" = cpu-amd-epyc ] &&
    [ "$(cd "${NBR_RESULTS:-results}" 2>/dev/null && pwd -P)" = "$(pwd -P)/results" ]; then committed=1; fi
if [ $committed = 1 ]; then dir=plots/out report=results/$cpu/REPORT.md
else dir=${BUILD:-build}/plots/$gpu+$cpu report=$dir/REPORT.md; fi
dir=${NBR_PLOTS_OUT:-$dir}
case "${1:-}" in
    --report) echo "$report" ;;
    "") echo "$dir" ;;
    *) echo "usage: plots/outdir.sh [--report]" >&2; exit 2 ;;
esac
