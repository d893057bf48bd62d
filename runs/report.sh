#!/usr/bin/env bash
# runs/report.sh [OUT.md] - make report: results/<cpu machine>/REPORT.md, every table of the paper
# measured against it (plots/report.py; the tables are defined in plots/tables.py, the
# paper's numbers in reference/paper.csv, the explanations in reference/report_text.md).
# Figures are linked from where make plots draws them. Runs in the project's virtual
# environment (plots/venv.sh sets it up from plots/requirements.txt the first time).
# The committed report is that of the committed machines' committed CSVs; for another machine
# (NBR_GPU_MACHINE, NBR_CPU_MACHINE) or other CSVs (NBR_RESULTS) it goes beside that one's
# figures, build/plots/<gpu>+<cpu>/REPORT.md (plots/outdir.sh): nothing committed is rewritten.
# NBR_RESULTS, NBR_GPU_MACHINE (h200), NBR_CPU_MACHINE (cpu-amd-epyc): the plots' own
# environment (plots/outdir.sh, plots/*.py read it), passed through. Settings: --help.
set -euo pipefail
cd "$(dirname "$0")/.."
. runs/lib.sh
settings_begin "runs/report.sh [settings] [OUT.md]" "make report: every table of the paper measured against it (default: plots/outdir.sh --report)"
settings_parse_args "$@"
set -- "${SETTINGS_ARGS[@]}"
[ $# -le 1 ] || { echo "report.sh: one OUT.md at most, not '$*'" >&2; exit 2; }
out=${1:-$(plots/outdir.sh --report)}
NBR_PLOTS_OUT=$(plots/outdir.sh)
export NBR_PLOTS_OUT
mkdir -p "$(dirname "$out")"
py=$(plots/venv.sh)
exec "$py" plots/report.py "$out"
