#!/usr/bin/env bash
# runs/bench.sh [--rev REV] [SUITE] - the benchmark suites (make bench = quick, make
# bench-full = full; suites in runs/suites.txt): every CPU variant, and every GPU variant where
# a GPU is found, on SP and LJ. Each run appends one row (the programs' schema, provenance
# included) to results/<machine>/bench.csv with the tag SUITE/ID/RUNID-rK; runs/history.sh
# draws these rows against the commit order.
#
#   --rev REV   build REV in its own worktree (runs/revs.sh; removed when bench.sh ends) and
#               bench that build: fills in the history of an earlier revision; the rows name
#               REV, a committed revision
# Settings: runs/bench.sh --help (docs/drivers.md); REPEAT, BENCH_CSV, BUILD, ALLOW_DIRTY
# (rows of an uncommitted tree are refused under results/ otherwise; history leaves them out)
# and NBR_LOCK are still read from the environment.
# Times: quick, 3 passes: 76-86 s on the 2-core CPU machine (measured while other work shared
# it); on the H200 not measured yet (4 GPU runs of ~2-4 s a pass are the estimate). full: one
# pass, 44 CPU runs, 128 s here.
set -u
cd "$(dirname "$0")/.." || exit 2
. runs/lib.sh
. runs/revs.sh

settings_begin "runs/bench.sh [settings] [SUITE]" "the benchmark suites of runs/suites.txt (default quick) -> bench.csv"
setting rev "" "build REV in its own worktree (runs/revs.sh) and bench that build"
setting REPEAT "" "passes over the suite, interleaved (default 3 for quick, 1 for full)"
setting BENCH_CSV "" "the CSV (default results/<machine>/bench.csv)"
settings_parse_args "$@"
set -- "${SETTINGS_ARGS[@]}"
[ $# -le 1 ] || { echo "bench.sh: one SUITE at most, not '$*'" >&2; exit 2; }
suite=${1:-quick}
repeat=${REPEAT:-$([ "$suite" = quick ] && echo 3 || echo 1)}
machine=$(machine_name)
csv=${BENCH_CSV:-results/$machine/bench.csv}
mkdir -p "$(dirname "$csv")"

if [ -n "$rev" ]; then
    REV_PRECISIONS=$(awk -v s="$suite" '$1 == s { print $3 }' runs/suites.txt | sort -u | tr '\n' ' ')
    REV_TARGETS=cpu
    have_gpu && REV_TARGETS="cpu gpu"
    export REV_PRECISIONS REV_TARGETS
    # its worktree goes when bench.sh ends, as compare.sh's do (runs/revs.sh rev_cleanup)
    trap rev_cleanup EXIT; trap 'exit 130' INT; trap 'exit 143' TERM
    rev_tree "$rev" || exit 2
    BUILD=$REV_BUILD
fi

list=$(python3 runs/perfstat.py suite "$suite" --build "$BUILD") || exit 2
[ -n "$list" ] || { echo "bench.sh: suite $suite has nothing to run with $BUILD" >&2; exit 2; }
run_id=$(date -u +%Y%m%dT%H%M%S)
bench_lock() {   # one benchmark at a time on this machine, as run_point does
    local lock=${NBR_LOCK:-/tmp/nbrlab-bench.lock}
    if [ "$lock" != none ] && command -v flock >/dev/null 2>&1; then flock "$lock" "$@"; else "$@"; fi
}
n=$(echo "$list" | wc -l)
echo "bench $suite: $n benchmarks x $repeat passes with $BUILD -> $csv (tags $suite/ID/$run_id-rK)" >&2
t0=$(date +%s) failed=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"; rev_cleanup' EXIT
for k in $(seq 1 "$repeat"); do
    while IFS=$'\t' read -r id prec variant flags; do
        prog=$BUILD/$prec/$variant
        eval "args=($flags)"
        echo "  run  $suite/$id r$k: $prog ${args[*]}" >&2
        # the row goes to a scratch file first, then into bench.csv with the union of the
        # columns: one file across schema changes (older revisions have fewer columns; the
        # programs refuse to append to a file with another header). The programs' rule on
        # dirty revisions is kept by the merge (ALLOW_DIRTY=1 to override).
        rm -f "$tmp/row.csv"
        if ! bench_lock "$prog" "${args[@]}" --csv "$tmp/row.csv" --tag "$suite/$id/$run_id-r$k" --quiet >&2; then
            echo "bench.sh: $suite/$id failed" >&2
            failed=1
        elif ! python3 runs/perfstat.py merge $([ "$ALLOW_DIRTY" = 1 ] && echo --allow-dirty) "$csv" "$tmp/row.csv"; then
            exit 2
        fi
    done <<<"$list"
done
echo "bench $suite: $((n * repeat)) runs in $(( $(date +%s) - t0 )) s -> $csv" >&2
[ -s "$csv" ] && settings_record "$csv"   # its rows come through perfstat.py merge, not run_point
[ -s "$csv" ] && python3 plots/history.py "$csv" --run "$run_id" --table-only
exit $failed
