#!/usr/bin/env bash
# runs/history.sh [--metric COL] [--suite SUITE] [--out FILE.png] [BENCH_CSV...] - a metric of
# the committed bench rows (runs/bench.sh, make bench) against the commit order of their
# revisions: one line per benchmark (variant x system [x size]), the median of each
# revision's repeats, their min-max as a band. Prints the table (with the change from the
# previous revision) and draws plots/out/mpl/history-<machine>-<suite>.png (matplotlib; the table
# alone without it). Rows of a dirty or unknown revision are left out: they name no commit.
#   --metric COL  default us_per_atom_step (any numeric column: frac_force, nbr_per_atom, ...)
#   --suite S     default quick
#   BENCH_CSV     default results/<machine>/bench.csv
# Filling in earlier revisions: runs/bench.sh --rev REV (builds REV in its own worktree).
set -u
cd "$(dirname "$0")/.." || exit 2
. runs/lib.sh
settings_begin "runs/history.sh [settings] [BENCH_CSV...]" "a metric of the committed bench rows against the commit order (BENCH_CSV: default results/<machine>/bench.csv)"
setting metric us_per_atom_step "any numeric column: frac_force, nbr_per_atom, ..."
setting suite quick "the suite of runs/suites.txt"
setting out "" "the figure (default plots/out/mpl/history-<machine>-<suite>.png)"
settings_parse_args "$@"
csvs=("${SETTINGS_ARGS[@]}")
machine=$(machine_name)
[ ${#csvs[@]} -gt 0 ] || csvs=(results/$machine/bench.csv)
for c in "${csvs[@]}"; do
    [ -f "$c" ] || { echo "history.sh: no $c (make bench writes it)" >&2; exit 1; }
done
[ -n "$out" ] || out=plots/out/mpl/history-$machine-$suite.png
order=$(mktemp)
trap 'rm -f "$order"' EXIT
# the commit order: every commit reachable from HEAD, oldest first (the GPU machine's tree has
# no .git: the order of first appearance in the CSV then)
order_opt=()
if git rev-list --topo-order --reverse HEAD >"$order" 2>/dev/null; then order_opt=(--order "$order"); fi
table_only=() py=""
for c in "${NBR_PYTHON:-}" "${BUILD:-build}/venv/bin/python" python3; do
    [ -n "$c" ] && "$c" -c 'import matplotlib' 2>/dev/null && { py=$c; break; }
done
[ -n "$py" ] || { py=python3 table_only=(--table-only); echo "history.sh: no matplotlib (plots/venv.sh sets it up): the table only" >&2; }
"$py" plots/history.py "${csvs[@]}" "${order_opt[@]}" --metric "$metric" --suite "$suite" --out "$out" "${table_only[@]}"
