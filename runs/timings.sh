#!/usr/bin/env bash
# runs/timings.sh [ITEM...] - the durations README.md and docs/ state, measured (issue 39 point
# 4): each ITEM runs as a user runs it, from a fresh clone of HEAD (builds included where the
# command builds), one after another, and appends one row to results/<machine>/timings.csv:
#   item, command, wall_s, load1 before and after (/proc/loadavg: other work on the cores),
#   cores, git_rev, timestamp (UTC, start), rc
# Items (default: all but make-test):
#   make-run        make run                        (a fresh clone: the CPU programs' build too)
#   make-test       make test                       (about 22 minutes on 2 cores)
#   tour            make tour                       (after make run's build)
#   gate            runs/compare.sh --gate --no-plot HEAD^1 HEAD   (CI's gate: two builds, 12 pairs)
#   table2-quick    runs/table2.sh --quick
#   salt-quick      runs/salt_mats.sh --quick
# runs/timings.sh --table prints README.md's "Durations" table from the newest row of each item
# that exited 0 (tests/cases_15_docs.sh checks that the README's is this one). Commit the CSV (it is data: it
# leaves the code's revision clean).
set -euo pipefail
cd "$(dirname "$0")/.."
. runs/lib.sh
order=(make-run make-test tour gate table2-quick salt-quick)
declare -A cmd=([make-run]="make run" [make-test]="make test" [tour]="make tour"
                [gate]="runs/compare.sh --gate --no-plot HEAD^1 HEAD"
                [table2-quick]="runs/table2.sh --quick" [salt-quick]="runs/salt_mats.sh --quick")
case "${1:-}" in -h | --help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;; esac
if [ "${1:-}" = --table ]; then
    csv=${2:-results/$(machine_name)/timings.csv}
    echo "| command | wall time | load before, after |"
    echo "|---|---|---|"
    for it in "${order[@]}"; do
        awk -F, -v it="$it" -v c="${cmd[$it]}" '
            NR > 1 && $1 == it && $9 == 0 { w = $3; l = $4 ", " $5 }
            END { if (w == "") printf "| `%s` | not measured yet (`runs/timings.sh %s`) | - |\n", c, it
                  else printf "| `%s` | %s | %s |\n", c, (w < 100 ? sprintf("%d s", w + 0.5) : sprintf("%.1f min", w / 60)), l }' \
            "$csv"
    done
    exit 0
fi
items=("$@")
[ ${#items[@]} -gt 0 ] || items=(make-run tour gate table2-quick salt-quick)
for it in "${items[@]}"; do
    [ -n "${cmd[$it]:-}" ] || { echo "timings.sh: no item '$it' (items: ${!cmd[*]})" >&2; exit 2; }
done
rev=$(runs/code_rev.sh)
case "$rev" in *-dirty|unknown) echo "timings.sh: the code is not committed ($rev): commit first" >&2; exit 2 ;; esac
csv=results/$(machine_name)/timings.csv
mkdir -p "$(dirname "$csv")"
[ -s "$csv" ] || echo "item,command,wall_s,load1_before,load1_after,cores,git_rev,timestamp,rc" >"$csv"
clone=$(mktemp -d "${TMPDIR:-/tmp}/nbrlab-timings.XXXXXX")
trap 'rm -rf "$clone"; git worktree prune 2>/dev/null || true' EXIT
git clone -q "$PWD" "$clone/nbrlab"
load1() { cut -d' ' -f1 /proc/loadavg; }
for it in "${items[@]}"; do
    echo "== $it: ${cmd[$it]}"
    l0=$(load1) ts=$(date -u +%Y-%m-%dT%H:%M:%SZ) t0=$EPOCHREALTIME rc=0
    # shellcheck disable=SC2086  # the command is words
    # the gate's revision trees in the scratch folder, as CI's are; only the gate's environment has
    # it (a driver make test runs names an unknown variable on stderr)
    wt=(); [ "$it" = gate ] && wt=(NBR_WT_ROOT="$clone/wt")
    (cd "$clone/nbrlab" && env "${wt[@]}" ${cmd[$it]}) >"$clone/$it.log" 2>&1 || rc=$?
    wall=$(awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }')
    tail -n 3 "$clone/$it.log"
    echo "$it,${cmd[$it]},$wall,$l0,$(load1),$(nproc),$rev,$ts,$rc" >>"$csv"
    echo "   $wall s (load $l0 before, $(load1) after), exit $rc"
done
