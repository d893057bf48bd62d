#!/usr/bin/env bash
# runs/compare.sh [options] A B [SUITE] - is B slower than A on this machine, beyond noise?
#
# Builds A and B each in its own tree and build directory (never the main checkout's build/),
# runs SUITE (runs/suites.txt; default quick) interleaved in pairs, A B / B A alternating, at
# least --min-pairs pairs and more for benchmarks whose verdict is not settled (up to
# --max-pairs and --budget seconds), and prints per benchmark the median of each side, the
# ratio B/A with its interval (Hodges-Lehmann estimate of the paired log-ratios, exact
# Wilcoxon signed-rank interval: runs/perfstat.py), the verdict faster / slower / no change at
# the threshold, and which stage moved (stage fraction x time).
#
#   A, B   a git revision (HEAD, HEAD~1, a hash or tag: a git worktree under NBR_WT_ROOT,
#          removed again when compare.sh ends); WT = the working tree as it is now
#          (a snapshot; its rows say -dirty); dir:PATH = a source tree without git (see
#          --export), built in place; build:PATH = programs already built (PATH/<prec>/<prog>)
#   SUITE  a suite of runs/suites.txt: gate, quick (default), full
#
# options:
#   --threshold PCT   verdict threshold in percent (default 5)
#   --conf X          nominal confidence of the interval (default 0.95)
#   --min-pairs N     (default 6)   --max-pairs N (default 20)   --budget S (default 900: no
#                     new pair starts after S seconds of runs; the first N pairs always run)
#   --only GLOBS      only benchmarks whose id matches one of these comma-separated globs
#   --metric COL      the CSV column compared (default us_per_atom_step; lower is better)
#   --gate            the CI gate: suite gate, --threshold 25, --max-pairs 12, --budget 150,
#                     results under build/gate/ (not committed) unless --out is given
#   --patch-b FILE    apply FILE to B's tree first (a throwaway tree: the planted-slowdown
#                     fixture tests/fixtures/slow-force.sh)
#   --out DIR         where the CSV, report and plot go (default results/<machine>/compare)
#   --name NAME       file name stem (default A_B, the two revisions)
#   --jobs N          make -j for the builds (default 2: this machine's two cores are shared)
#   --no-plot         no figure
#   --suite-file FILE suites from FILE (default runs/suites.txt)
#   --export DIR      do not run: write the sources of A and B (git archive + .git-rev) to DIR/a
#                     and DIR/b for a machine without git; print the command to run there
# Output: OUT/NAME.csv (the programs' row schema plus compare_id, bench, pair, side, order,
# labels; appended, one compare_id per invocation), OUT/NAME.txt (the report), OUT/NAME.png
# (ratio per benchmark with its interval, per-stage bars; needs matplotlib).
# Exit: 0 no significant slowdown beyond the threshold; 1 a benchmark is slower (significant
# and beyond the threshold); 2 could not compare (build failed, a run failed, bad input).
# env: NBR_WT_ROOT (trees, default /tmp/nbrlab-wt), NBR_LOCK (runs take turns, runs/lib.sh),
#      NBR_MACHINE (results/<machine>)
set -u
cd "$(dirname "$0")/.." || exit 2
. runs/lib.sh
. runs/revs.sh

usage() { sed -n '2,/^set -u/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2; exit 2; }

threshold=5 conf=0.95 min_pairs=6 max_pairs=20 budget=900 only="" metric=us_per_atom_step
suite_file=runs/suites.txt gate=0 patch_b="" out="" name="" jobs=2 plot=1 export_dir="" pos=() suite=""
# --gate sets defaults that the other options may still override, wherever they stand
case " $* " in *" --gate "*)
    gate=1 suite=gate threshold=${GATE_THRESHOLD:-25} max_pairs=${GATE_MAX_PAIRS:-12}
    budget=${GATE_BUDGET:-150} out=build/gate ;;
esac
while [ $# -gt 0 ]; do
    case "$1" in
    --threshold) threshold=$2; shift 2 ;;
    --conf) conf=$2; shift 2 ;;
    --min-pairs) min_pairs=$2; shift 2 ;;
    --max-pairs) max_pairs=$2; shift 2 ;;
    --budget) budget=$2; shift 2 ;;
    --only) only=$2; shift 2 ;;
    --metric) metric=$2; shift 2 ;;
    --gate) gate=1; shift ;;
    --patch-b) patch_b=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --name) name=$2; shift 2 ;;
    --jobs) jobs=$2; shift 2 ;;
    --no-plot) plot=0; shift ;;
    --suite-file) suite_file=$2; shift 2 ;;
    --export) export_dir=$2; shift 2 ;;
    -h | --help) usage ;;
    --*) echo "compare.sh: unknown option $1 (--help lists them)" >&2; exit 2 ;;
    *) pos+=("$1"); shift ;;
    esac
done
[ ${#pos[@]} -ge 2 ] && [ ${#pos[@]} -le 3 ] || usage
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
    --conf "$conf" --min-pairs "$min_pairs" --max-pairs "$max_pairs" --budget "$budget" --metric "$metric" \
    ${only:+--only "$only"} --machine "$machine" --csv "$csv" --report "$out/$name.txt"
rc=$?
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
