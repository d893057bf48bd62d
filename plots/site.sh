#!/usr/bin/env bash
# plots/site.sh - make site: REPORT.md, the figures, the regression history and the comparison
# reports as static HTML under results/<cpu>/site/ (the report's folder; built on demand, ignored
# by git: it cannot go stale in a commit), opened from the file system (plots/site.py).
# Run make plots report first (the site shows what they wrote). env: as plots/all.sh, and
# NBR_SITE_OUT (the site's folder outright).
set -euo pipefail
cd "$(dirname "$0")/.."
report=$(plots/outdir.sh --report)
py=$(plots/venv.sh) || { echo "plots/site.sh: no python with pandas, matplotlib and markdown (see above)" >&2; exit 3; }
out=${NBR_SITE_OUT:-$(dirname "$report")/site}
order=$(mktemp)
trap 'rm -f "$order"' EXIT
# the commit order of the history (a tree without .git: the order of first appearance)
order_opt=()
git rev-list --topo-order --reverse HEAD >"$order" 2>/dev/null && order_opt=(--order "$order")
rev=$(runs/code_rev.sh 2>/dev/null || echo unknown)
"$py" plots/site.py --report "$report" --out "$out" --rev "$rev" \
    --machines "${NBR_GPU_MACHINE:-h200}" "${NBR_CPU_MACHINE:-cpu-amd-epyc}" --results "${NBR_RESULTS:-results}" "${order_opt[@]}"
