# tests/cases_61_drv.sh - the drivers as a newcomer meets them (issue 25): progress with the
# time left, cpu_chain's plan and labels, make plots / make report for another machine,
# the report's count of tables with data, compare.sh's worktrees. Sourced by tests/run.sh
# (tests/lib.sh loaded). Stand-in programs (tests/fixtures/fake-program.sh): milliseconds a
# point; everything is written under a temporary directory.

T61=$(mktemp -d "${TMPDIR:-/tmp}/nbrlab-t61.XXXXXX")

# a build of stand-ins: $T61/fb/double/<variant>, the chain's times per atom-step
_t61_fake_build() {   # _t61_fake_build DIR SLEEP
    local d=$1 v
    mkdir -p "$d/double"
    for v in cpu-pairlist cpu-grouped cpu-full cpu-layer cpu-cells cpu-allpairs; do
        ln -sf "$PWD/tests/fixtures/fake-program.sh" "$d/double/$v"
    done
    echo "$2" >"$d/sleep"
    echo 1.0 >"$d/us.cpu-pairlist"; echo 1.2 >"$d/us.cpu-grouped"
    echo 1.8 >"$d/us.cpu-full"; echo 2.7 >"$d/us.cpu-layer"
}

# --- progress: the estimate, then a driver's whole plan ----------------------------------------
_t61_eta() (
    . runs/lib.sh
    local got want fail=0
    while IFS='|' read -r args want; do
        got=$(progress_eta $args)
        [ "$got" = "$want" ] || { echo "progress_eta $args: '$got', expected '$want'"; fail=1; }
    done <<'CASES'
1 4 10 1 10|[1/4] elapsed 10 s, about 30 s left
3 10 200 2 180|[3/10] elapsed 3 min, about 11 min left
2 5 0.1 0 0|[2/5] elapsed 0 s, time left not known yet
4 10 30 2 20|[4/10] elapsed 30 s, about 60 s left
4 10 90 3 80|[4/10] elapsed 90 s, about 3 min left
1 3 5000 1 5000|[1/3] elapsed 83 min, about 2.8 h left
5 5 100 5 100|[5/5] elapsed 2 min, done
6 5 99 5 100|[6/6] elapsed 99 s, done
CASES
    [ $fail = 0 ] && echo "estimates ok"
)
t_grep drv-progress-estimate '^estimates ok$' _t61_eta

# cpu_chain on stand-ins (milliseconds a point, plus the driver's own seconds: its python
# look-ups): one "[k/10]" line per point, the time left = the points to go at the rate so far;
# the rows: only what the table reports; each system's ratios under its own name. Then
# --allpairs on the same CSV: 10 points skipped (no time known), the 2 references run.
_t61_chain() (
    export BUILD=$T61/cb OUT_DIR=$T61/chain NBR_LOCK=none
    _t61_fake_build "$BUILD" 0.1
    runs/cpu_chain.sh >"$T61/chain.out" 2>"$T61/chain.err" || { cat "$T61/chain.err"; return 1; }
    runs/cpu_chain.sh --allpairs >/dev/null 2>"$T61/chain.err2" || { cat "$T61/chain.err2"; return 1; }
    cat "$T61/chain.out"
    python3 - "$T61/chain.err" "$T61/chain.err2" "$BUILD/calls" <<'PY'
import re, sys
first, again = (re.findall(r"^\[(\d+)/(\d+)\] elapsed (\d+) (s|min), (.*) \(chain-\S+\)$", open(f).read(), re.M)
                for f in sys.argv[1:3])
calls = open(sys.argv[3]).read().splitlines()
assert [int(k) for k, *_ in first] == list(range(1, 11)) and {n for _, n, *_ in first} == {"10"}, first
for k, n, el, unit, rest in first[:-1]:
    m = re.fullmatch(r"about (\d+) s left", rest)
    assert unit == "s" and m, (k, el, unit, rest)
    # every point ran and costs about the same: the points to go at the rate so far,
    # give or take the rounding to whole seconds and the driver's time between points
    k, want = int(k), (10 - int(k)) * int(el) / int(k)
    assert abs(int(m.group(1)) - want) <= 0.4 * want + 2 * (10 - k) / k + 1, (k, el, rest)
assert first[-1][4] == "done", first[-1]
# resumed: the skipped points know no time; the two that ran (allpairs, 6th and 12th) do
assert [int(k) for k, *_ in again] == list(range(1, 13)) and {n for _, n, *_ in again} == {"12"}, again
assert all(r[4] == "time left not known yet" for r in again[:5]), again[:5]
assert all(re.fullmatch(r"about \d+ s left", r[4]) for r in again[5:11]) and again[11][4] == "done", again[5:]
# without --allpairs the reference never ran; with it, twice (SP, LJ), 3 steps each
assert len(calls) == 12 and not any(c.startswith("cpu-allpairs") for c in calls[:10]), calls
assert all(re.match(r"cpu-allpairs .*--steps 3 ", c) for c in calls[10:]), calls[10:]
print("progress and plan ok")
PY
    # SP: its own name and the paper's numbers beside; LJ: its own name, no paper numbers
    grep -Eq '^  ratios, sp Ne=48 .*grouped/pairlist 1\.20x \(1\.16x\).*layer/pairlist 2\.70x \(1\.92x\)$' "$T61/chain.out" ||
        { echo "no SP ratio line with the paper's"; return 1; }
    grep -Eq '^  ratios, lj Ne=32 .*grouped/pairlist 1\.20x  full/grouped 1\.50x  layer/full 1\.50x  layer/pairlist 2\.70x$' \
        "$T61/chain.out" || { echo "no LJ ratio line of its own"; return 1; }
    [ "$(grep -c 'paper, SP' "$T61/chain.out")" = 0 ] || { echo "a ratio line labelled '(paper, SP Ne=48)'"; return 1; }
    echo "chain ok"
)
t_grep drv-progress-and-chain '^chain ok$' _t61_chain
_t61_plan() (
    export BUILD=$T61/cb2 OUT_DIR=$T61/plan/none
    _t61_fake_build "$BUILD" 0
    runs/cpu_chain.sh --print-plan >"$T61/plan.out" || return 1
    cat "$T61/plan.out"
    [ "$(grep -c '' "$T61/plan.out")" = 10 ] && ! grep -q allpairs "$T61/plan.out" && [ ! -e "$OUT_DIR" ] &&
        [ ! -e "$BUILD/calls" ] && [ "$(runs/cpu_chain.sh --allpairs --print-plan | grep -c allpairs)" = 2 ]
)
t_ok drv-chain-print-plan _t61_plan
t_error drv-chain-bad-flag 2 'usage: runs/cpu_chain.sh .*unknown: --nope' runs/cpu_chain.sh --nope
rm -rf "$T61"
