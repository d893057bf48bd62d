#!/usr/bin/env bash
# runs/gate_check.sh [N_AA] [N_PLANTED] - does the CI gate cry wolf, and does it catch a real
# slowdown? Runs the gate (runs/compare.sh --gate) N_AA times as an A/A comparison (HEAD
# against HEAD: two builds of one revision; every failure is a false alarm) and N_PLANTED
# times against HEAD with the planted slowdown tests/fixtures/slow-force.sh (+30% per step,
# in the force stage; every pass is a miss), alternating the two kinds so both see the same
# machine conditions. Defaults 30 and 15.
# Writes results/<machine>/compare/: gate-aa.csv and gate-planted.csv (every run's row, one
# compare_id per gate run), gate-runs.log (one line per gate run: kind, exit code, seconds)
# and gate-summary.md (false-alarm and detection rates, recomputed from the CSVs).
# Settings: runs/gate_check.sh --help (REV: the revision, resolved once at the start).
set -u
cd "$(dirname "$0")/.." || exit 2
. runs/lib.sh
settings_begin "runs/gate_check.sh [settings] [N_AA] [N_PLANTED]" "the CI gate's false alarms (N_AA A/A runs, default 30) and misses (N_PLANTED runs with tests/fixtures/slow-force.sh, default 15)"
setting REV HEAD "the revision (resolved once at the start)"
setting OUT "" "where the CSVs, log and summary go (default results/<machine>/compare)"
settings_parse_args "$@"
set -- "${SETTINGS_ARGS[@]}"
[ $# -le 2 ] || { echo "gate_check.sh: N_AA N_PLANTED at most, not '$*'" >&2; exit 2; }
n_aa=${1:-30} n_pl=${2:-15}
rev=$(git rev-parse --short=7 "$REV") || exit 2
out=${OUT:-results/$(machine_name)/compare}
mkdir -p "$out"
log=$out/gate-runs.log
: >"$log"
started=$(date -u +%Y-%m-%dT%H:%M:%SZ)
echo "gate_check: $n_aa A/A and $n_pl planted gate runs of $rev -> $out" >&2
max=$((n_aa > n_pl ? n_aa : n_pl))
for i in $(seq 1 "$max"); do
    for kind in aa planted; do
        if [ "$kind" = aa ]; then [ "$i" -le "$n_aa" ] || continue; extra=()
        else [ "$i" -le "$n_pl" ] || continue; extra=(--patch-b tests/fixtures/slow-force.sh); fi
        t0=$(date +%s)
        runs/compare.sh --gate "${extra[@]}" --out "$out" --name "gate-$kind" --no-plot "$rev" "$rev" \
            >"$out/gate-last-$kind.txt" 2>&1
        rc=$?
        echo "$kind $i rc=$rc seconds=$(( $(date +%s) - t0 )) $(tail -1 "$out/gate-$kind.txt" 2>/dev/null | cut -c1-160)" >>"$log"
        tail -1 "$log" >&2
    done
done
rm -f "$out"/gate-last-*.txt

# The summary, from the CSVs (perfstat.py summary re-derives every verdict).
python3 runs/perfstat.py summary --threshold 0.25 "$out/gate-aa.csv" >"$out/gate-aa.summary" 2>&1
python3 runs/perfstat.py summary --threshold 0.25 "$out/gate-planted.csv" >"$out/gate-planted.summary" 2>&1
rate() { awk -v k="$1" -v want="$2" '$1 == k { n++; if ($3 == "rc=" want) f++ } END { printf "%d of %d (%.0f%%)", f, n, n ? 100 * f / n : 0 }' "$log"; }
secs() { awk -v k="$1" '$1 == k { sub("seconds=", "", $4); print $4 }' "$log" | sort -n |
    awk '{ s[++n] = $1 } END { if (n) printf "median %d s, max %d s", s[int((n + 1) / 2)], s[n] }'; }
{
    echo "# CI gate: false alarms and detection ($(machine_name))"
    echo
    echo "Revision $rev; $started to $(date -u +%Y-%m-%dT%H:%M:%SZ); runs/gate_check.sh $n_aa $n_pl on this"
    echo "shared 2-core machine while other engineers built and tested in the same tree."
    echo "Gate: \`runs/compare.sh --gate\` = suite gate (5 CPU benchmarks), 12 pairs A B / B A (fixed;"
    echo "budget 150 s), fails (exit 1) only when a benchmark is slower at 25%: the one-sided sign test,"
    echo "Holm-corrected over the 5 benchmarks at family-wise 0.05, finds B slower and the"
    echo "Hodges-Lehmann estimate of B/A exceeds 1.25."
    echo
    echo "| experiment | gate runs | failed (exit 1) | errors (exit 2) | time per gate run |"
    echo "|---|---|---|---|---|"
    echo "| A/A: HEAD vs HEAD (two builds) | $n_aa | false alarms: $(rate aa 1) | $(rate aa 2) | $(secs aa) |"
    echo "| planted +30% in the force stage (tests/fixtures/slow-force.sh) | $n_pl | detected: $(rate planted 1) | $(rate planted 2) | $(secs planted) |"
    echo
    echo "## A/A (gate-aa.csv), per gate run"
    echo '```'
    cat "$out/gate-aa.summary"
    echo '```'
    echo "## Planted slowdown (gate-planted.csv), per gate run"
    echo '```'
    cat "$out/gate-planted.summary"
    echo '```'
    echo "Each run's exit code: gate-runs.log."
} >"$out/gate-summary.md"
rm -f "$out/gate-aa.summary" "$out/gate-planted.summary"
cat "$out/gate-summary.md"
