#!/usr/bin/env bash
# runs/report.sh [OUT.md] - make report: results/<cpu machine>/REPORT.md, every table of the paper
# measured against it (plots/report.py; the tables are defined in plots/tables.py, the
# paper's numbers in reference/paper.csv, the explanations in reference/report_text.md).
# Figures are linked from plots/out/ (make plots draws them). Runs in the project's virtual
# environment (plots/venv.sh sets it up from plots/requirements.txt the first time).
#   env: NBR_RESULTS NBR_GPU_MACHINE (h200) NBR_CPU_MACHINE (cpu-amd-epyc) NBR_PLOTS_OUT
set -euo pipefail
cd "$(dirname "$0")/.."
. runs/lib.sh
# named after the CPU machine whose rows it reports (NBR_CPU_MACHINE, as plots/tables.py), not
# after the machine it is written on: a checkout on another CPU rewrites the committed report
out=${1:-results/${NBR_CPU_MACHINE:-cpu-amd-epyc}/REPORT.md}
py=$(plots/venv.sh)
exec "$py" plots/report.py "$out"
