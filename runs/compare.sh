#!/usr/bin/env bash
# runs/compare.sh [options] A B [SUITE] - is B slower than A on this machine, beyond noise?
#
# Builds A and B each in its own tree and build directory (never the main checkout's build/),
# runs SUITE (runs/suites.txt; default quick) interleaved in pairs, A B / B A alternating,
# --pairs pairs per benchmark (fixed; --budget seconds may cut it, never below --min-pairs),
# and prints per benchmark the median of each side, the ratio B/A with its interval
# (Hodges-Lehmann estimate of the paired log-ratios, exact Wilcoxon signed-rank interval), the
# verdict faster / slower / no change (one-sided sign test, Holm-corrected across the suite's
# benchmarks, and the estimate beyond the threshold: runs/perfstat.py, docs/regression.md) and
# which stage moved (stage fraction x time).
#
#   A, B   a git revision (HEAD, HEAD~1, a hash or tag: a git worktree under NBR_WT_ROOT,
#          removed again when compare.sh ends); WT = the working tree as it is now
#          (a snapshot; its rows say -dirty); dir:PATH = a source tree without git (see
#          --export), built in place; build:PATH = programs already built (PATH/<prec>/<prog>)
#   SUITE  a suite of runs/suites.txt: gate, quick (default), full
#
# Settings: runs/compare.sh --help (the table below; docs/regression.md). --gate sets the CI
# gate's defaults (suite gate, GATE_THRESHOLD, GATE_MAX_PAIRS, GATE_BUDGET, results under
# build/gate/, not committed); a setting given as a flag or in --config keeps its value.
# Output: OUT/NAME.csv (the programs' row schema plus compare_id, bench, pair, side, order,
# labels; appended, one compare_id per invocation), OUT/NAME.txt (the report), OUT/NAME.png
# (ratio per benchmark with its interval, per-stage bars; needs matplotlib).
# Exit: 0 no significant slowdown beyond the threshold; 1 a benchmark is slower (significant
# and beyond the threshold); 2 could not compare (build failed, a run failed, bad input). A
# benchmark both sides refuse as beyond this machine (exit 3 in its first pair) is left out and
# named in the report, not a failed run.
# The run's settings go to OUT/NAME.csv.settings (runs/settings.sh).
set -u
cd "$(dirname "$0")/.." || exit 2
. runs/lib.sh
. runs/revs.sh

settings_begin "runs/compare.sh [settings] A B [SUITE]" \
    "is B slower than A on this machine, beyond noise? SUITE of runs/suites.txt: gate, quick (default), full" \
    "A, B: a git revision, WT (the working tree now), dir:PATH (a tree without git), build:PATH (built programs)"
setting threshold 5 "verdict threshold in percent"
setting conf 0.95 "nominal confidence of the interval"
setting pairs 18 "pairs per benchmark, fixed: the verdict never decides how many run"
setting max_pairs "" "the old name of --pairs (scripts that still pass it)"
setting min_pairs 6 "pairs that run even past --budget"
setting budget 900 "no new pair starts after this many seconds of runs (the first min-pairs always run)"
setting only "" "only benchmarks whose id matches one of these comma-separated globs"
setting metric us_per_atom_step "the CSV column compared (lower is better)"
setting_switch gate "the CI gate: suite gate and the GATE_* values below, results under build/gate/"
setting GATE_THRESHOLD 25 "--gate's threshold in percent"
setting GATE_PAIRS 12 "--gate's pairs"
setting GATE_BUDGET 150 "--gate's budget in seconds"
setting patch_b "" "apply FILE to B's tree first (a diff, or tests/fixtures/slow-force.sh)"
setting out "" "where the CSV, report and plot go (default results/<machine>/compare)"
setting name "" "file name stem (default A_B, the two revisions)"
setting jobs 2 "make -j for the builds (this machine's two cores are shared)"
setting_switch no_plot "no figure"
setting suite_file runs/suites.txt "the suites"
setting export "" "do not run: write the sources of A and B (git archive + .git-rev) to DIR/a and DIR/b"
settings_parse_args "$@"
pos=("${SETTINGS_ARGS[@]}") suite=""
[ ${#pos[@]} -ge 2 ] && [ ${#pos[@]} -le 3 ] ||
    { echo "compare.sh: expected A B [SUITE], not ${#pos[@]} argument(s) (--help)" >&2; exit 2; }
# --gate: its defaults, where a flag or --config has not set the value
if [ "$gate" = 1 ]; then
    suite=gate
    settings_prefer threshold "$GATE_THRESHOLD" pairs "$GATE_PAIRS" budget "$GATE_BUDGET" out build/gate
fi
plot=$((1 - no_plot)) export_dir=$export
[ -z "$max_pairs" ] || pairs=$max_pairs
[ "$min_pairs" -le "$pairs" ] || min_pairs=$pairs
spec_a=${pos[0]} spec_b=${pos[1]} suite=${pos[2]:-${suite:-quick}}

if [ -n "$export_dir" ]; then
    rev_export "$spec_a" "$export_dir/a" && rev_export "$spec_b" "$export_dir/b" || exit 2
    echo "exported: $export_dir/a ($(cat "$export_dir/a/.git-rev")), $export_dir/b ($(cat "$export_dir/b/.git-rev"))"
    echo "run there (carry $export_dir): runs/compare.sh --jobs 16 dir:$export_dir/a dir:$export_dir/b $suite"
    exit 0
fi

machine=$(machine_name)
[ -n "$out" ] || out=results/$machine/compare
[ -n "$patch_b" ] && patch_b=$(cd "$(dirname "$patch_b")" && pwd)/$(basename "$patch_b")

# What to build: the precisions the suite uses; GPU programs only where a GPU runs them.
suite_lines=$(awk -v s="$suite" '$1 == s' "$suite_file" 2>/dev/null)
[ -n "$suite_lines" ] || { echo "compare.sh: no suite '$suite' in $suite_file" >&2; exit 2; }
REV_PRECISIONS=$(echo "$suite_lines" | awk '{ print $3 }' | sort -u | tr '\n' ' ')
REV_TARGETS=cpu
have_gpu && echo "$suite_lines" | awk '$4 ~ /^gpu-/' | grep -q . && REV_TARGETS="cpu gpu"
REV_JOBS=$jobs
export REV_PRECISIONS REV_TARGETS REV_JOBS

t0=$(date +%s)
# the worktrees it adds go when it ends, interrupted or not (runs/revs.sh rev_cleanup)
trap rev_cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
rev_tree "$spec_a" "" || exit 2
a_build=$REV_BUILD a_label=$REV_LABEL a_tree=$REV_TREE
suffix=""
# A/A: the same revision twice gets two trees and two builds (as two revisions would)
[ "$spec_a" = "$spec_b" ] || [ "$(git rev-parse --verify --quiet "$spec_a^{commit}" 2>/dev/null)" = \
    "$(git rev-parse --verify --quiet "$spec_b^{commit}" 2>/dev/null)" ] && suffix=.b
case "$spec_b" in WT | worktree | .) [ "$spec_a" = "$spec_b" ] && suffix=.b || suffix="" ;; esac
rev_tree "$spec_b" "$suffix" "$patch_b" || exit 2
b_build=$REV_BUILD b_label=$REV_LABEL
echo "builds ready in $(( $(date +%s) - t0 )) s: A = $a_label ($a_build), B = $b_label ($b_build)" >&2

[ -n "$name" ] || name=$(echo "${a_label}_${b_label}" | tr -c 'A-Za-z0-9._+\n-' '-')
mkdir -p "$out" || exit 2
csv=$out/$name.csv
python3 runs/perfstat.py run --a-build "$a_build" --b-build "$b_build" --a-label "$a_label" \
    --b-label "$b_label" --suite "$suite" --suite-file "$suite_file" --threshold "$(awk -v t="$threshold" 'BEGIN { print t / 100 }')" \
    --conf "$conf" --pairs "$pairs" --min-pairs "$min_pairs" --budget "$budget" --metric "$metric" \
    ${only:+--only "$only"} --machine "$machine" --csv "$csv" --report "$out/$name.txt"
rc=$?
[ -s "$csv" ] && settings_record "$csv"   # its rows come through perfstat.py, not run_point
if [ "$plot" = 1 ] && [ -s "$csv" ]; then
    # the plots' python (plots/venv.sh: build/venv), else python3, whichever has matplotlib
    py=""
    for c in "${NBR_PYTHON:-}" "${BUILD:-build}/venv/bin/python" python3; do
        [ -n "$c" ] && "$c" -c 'import matplotlib' 2>/dev/null && { py=$c; break; }
    done
    if [ -n "$py" ]; then
        "$py" plots/compare.py "$csv" --out "$out/$name.png" --threshold "$threshold" --conf "$conf" \
            --metric "$metric" >&2 || echo "compare.sh: the plot failed (the verdict stands)" >&2
    else
        echo "compare.sh: no matplotlib, no plot (later: python3 plots/compare.py $csv)" >&2
    fi
fi
echo "compare.sh: $csv, $out/$name.txt$([ -f "$out/$name.png" ] && echo ", $out/$name.png") ($(( $(date +%s) - t0 )) s)" >&2
exit $rc
