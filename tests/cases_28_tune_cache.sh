# tests/cases_28_tune_cache.sh - the autotuner's cache (common/tune.c; issue 38, point 4):
#  - the time stored is the tuned run's: the fastest ok trial row's us_per_step (the search
#    keeps the best; the warm-up row is no trial), to the cache's 6 digits. The search starts
#    at the smallest skin (a rebuild nearly every step, ~1.7x the best time here), so the
#    start trial is never the fastest and storing its time instead is seen;
#  - the last line written for a key wins: a line appended after the tuner's, with another skin,
#    is what the next run applies (its row's delta), and the line before it is not.
# Sourced by tests/run.sh (tests/lib.sh loaded).
_t28_cache() (
    local d prog=$BUILD/double/cpu-grouped flags=(--ne 5 --steps 600 --delta 0.05 --quiet)
    d=$(mktemp -d) && trap 'rm -rf "$d"' EXIT
    "$prog" "${flags[@]}" --autotune --autotune-cache "$d/cache" --csv "$d/t.csv" >/dev/null || return 1
    python3 - "$d/t.csv" "$d/cache" <<'PY' || return 1
import sys
sys.path.insert(0, "runs"); import csvq
rows = list(csvq.read(sys.argv[1]).rows)
# the warm-up run is not a trial of the search (tune.c): on a loaded machine it can be the fastest
trials = [r for r in rows if r["tag"].startswith("autotune-") and r["tag"] != "autotune-warmup" and r["status"] == "ok"]
lines = open(sys.argv[2]).read().splitlines()
assert len(lines) == 1, lines
stored = float(lines[0].split("|")[1].split()[-1])
best = min(float(r["us_per_step"]) for r in trials) * 1e-6
start = [float(r["us_per_step"]) * 1e-6 for r in trials if r["tag"] == "autotune-start"]
assert len(start) == 1 and start[0] > 1.05 * best, f"start {start} not slower than the best {best}: the test cannot tell them apart"
print(f"stored {stored:.6g} s/step, fastest of {len(trials)} ok trials {best:.6g}")
assert abs(stored / best - 1) < 2e-5, "the stored time is not the tuned run's"
PY
    # another skin, written last for the same key
    local key vals rest
    key=$(head -n 1 "$d/cache" | cut -d'|' -f1)
    vals=$(head -n 1 "$d/cache" | cut -d'|' -f2)
    rest=${vals#* }
    printf '%s|0.43 %s\n' "$key" "$rest" >>"$d/cache"
    "$prog" "${flags[@]}" --autotune --autotune-cache "$d/cache" --csv "$d/t.csv" >/dev/null || return 1
    local delta; delta=$(python3 runs/csvq.py get "$d/t.csv" delta)
    echo "first line's skin ${vals%% *}, last line's 0.43, the run's $delta"
    awk -v d="$delta" 'BEGIN { exit !(d + 0 == 0.43) }'
)
if [ -x "$BUILD/double/cpu-grouped" ]; then t_ok tune-cache-stored-and-last-wins _t28_cache
else t_skip tune-cache-stored-and-last-wins "cpu-grouped not built"; fi
