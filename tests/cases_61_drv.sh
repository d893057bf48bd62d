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
2 4 2 2 2 16 2|[2/4] elapsed 2 s, about 16 s left
1 3 1 1 1 0 1|[1/3] elapsed 1 s, about 0 s left
2 4 2 0 0 16 0|[2/4] elapsed 2 s, time left not known yet
CASES
    [ $fail = 0 ] && echo "estimates ok"
)
t_grep drv-progress-estimate '^estimates ok$' _t61_eta

# a sweep over sizes (issue 39 point 4: "about 10 s left", then minutes): points of ne 10, 10,
# 30 on a stand-in whose time grows as ne^3 (0.125 s, 0.125 s, 3.4 s); after the second point the
# time left is the big point's, about 3 s or more (the points' overhead counts too), where the
# mean point's time said under a second
_t61_sweep_eta() (
    export BUILD=$T61/sweb OUT_DIR=$T61/swe NBR_LOCK=none
    _t61_fake_build "$BUILD" 0
    echo 0.000125 >"$BUILD/sleep_ne3"
    runs/sweep.sh --tag=swe "$BUILD/double/cpu-grouped" sp --ne 10,10,30 2>"$T61/swe.err" >/dev/null ||
        { cat "$T61/swe.err"; return 1; }
    cat "$T61/swe.err"
    local left
    left=$(sed -n 's/^\[2\/3\] elapsed [0-9]* s, about \([0-9]*\) s left.*/\1/p' "$T61/swe.err")
    [ -n "$left" ] && [ "$left" -ge 3 ] && echo "size-weighted estimate: $left s left"
)
t_grep drv-progress-by-size '^size-weighted estimate: ' _t61_sweep_eta

# progress_plan: a plan's points counted by a dry call (nothing runs), then one "[k/N]" line per
# point of the real call; a point that cannot run in the dry call does not stop the count
_t61_progress_plan() (
    . runs/lib.sh
    export NBR_LOCK=none
    local csv=$T61/plan.csv ran=$T61/plan.ran
    : >"$ran"
    plan() {
        for k in 1 2 3; do run_point "$csv" "p$k" -- sh -c "echo x >>$ran"; done
        false   # as a driver's point whose program is missing
    }
    progress_plan plan
    [ "$NBR_PROGRESS_N" = 3 ] || { echo "counted $NBR_PROGRESS_N points, expected 3"; return 1; }
    [ ! -s "$ran" ] || { echo "the counting call ran points"; return 1; }
    plan 2>"$T61/plan.err" || true
    [ "$(grep -c '^\[[1-3]/3\] elapsed' "$T61/plan.err")" = 3 ] || { cat "$T61/plan.err"; return 1; }
    [ "$(grep -c '' "$ran")" = 3 ] && echo "plan counted and run"
)
t_grep drv-progress-plan '^plan counted and run$' _t61_progress_plan

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
# (where nothing would be built or written, should it run after all)
t_error drv-chain-bad-flag 2 'cpu_chain.sh: unknown option --nope' \
    env BUILD="$T61/none" OUT_DIR="$T61/bad" runs/cpu_chain.sh --nope

# --- compare.sh: the worktrees it adds go when it ends, also when interrupted ---------------------
# a repository of its own (runs/ and a Makefile whose `cpu` builds the stand-in in a moment,
# after NBR_T61_SLEEP seconds), so that `git worktree list` is this test's alone
_t61_repo() {
    local r=$T61/repo
    [ -d "$r/.git" ] && return 0
    mkdir -p "$r/tests/fixtures" && cp -r runs "$r/" && cp tests/fixtures/fake-variant.sh "$r/tests/fixtures/" &&
        printf 'cpu:\n\tsleep $${NBR_T61_SLEEP:-0}\n\tmkdir -p build/double\n\tcp tests/fixtures/fake-variant.sh build/double/cpu-fake\n' \
            >"$r/Makefile" &&
        printf 'fake fake-sp double cpu-fake --system sp --ne 8\n' >"$r/suites.txt" &&
        git -C "$r" init -q && git -C "$r" add -A &&
        git -C "$r" -c user.name=t -c user.email=t@t commit -qm fixture
}
_t61_trees() { git -C "$T61/repo" worktree list --porcelain | grep -c '^worktree '; }
_t61_cmp() {
    NBR_LOCK=none NBR_MACHINE=t61 NBR_WT_ROOT=$T61/wt "${T_SIGDFL[@]}" "$T61/repo/runs/compare.sh" --no-plot \
        --suite-file "$T61/repo/suites.txt" --out "$T61/cmp" --pairs 6 HEAD HEAD fake
}
_t61_compare_clean() {
    _t61_repo || return 1
    _t61_cmp || { echo "compare.sh exit $?"; return 1; }
    [ "$(_t61_trees)" = 1 ] || { git -C "$T61/repo" worktree list; echo "worktrees left registered"; return 1; }
    [ -z "$(ls -A "$T61/wt")" ] || { ls "$T61/wt"; echo "trees left in NBR_WT_ROOT"; return 1; }
    echo "compare cleaned up"
}
t_grep drv-compare-removes-worktrees '^compare cleaned up$' _t61_compare_clean
# Ctrl-C during a build: its process group gets SIGINT, as from a terminal (set -m: a job of
# its own; T_SIGDFL: SIGINT not ignored even where the suite itself runs as a background job)
_t61_compare_interrupt() (
    _t61_repo || return 1
    set -m
    NBR_T61_SLEEP=30 _t61_cmp >"$T61/int.log" 2>&1 &
    local pid=$! k rc=0
    for k in $(seq 100); do
        [ "$(_t61_trees)" -ge 2 ] && [ -n "$(ls "$T61"/wt/*/build.log 2>/dev/null)" ] && break
        sleep 0.2
    done
    [ "$(_t61_trees)" -ge 2 ] || { kill -TERM -- -"$pid"; cat "$T61/int.log"; echo "no worktree added"; return 1; }
    kill -INT -- -"$pid"
    wait "$pid" || rc=$?
    cat "$T61/int.log"
    [ "$rc" = 130 ] || { echo "exit $rc after SIGINT, expected 130"; return 1; }
    [ "$(_t61_trees)" = 1 ] || { git -C "$T61/repo" worktree list; echo "worktrees left registered"; return 1; }
    [ -z "$(ls -A "$T61/wt")" ] || { ls "$T61/wt"; echo "trees left in NBR_WT_ROOT"; return 1; }
    echo "interrupted compare cleaned up"
)
t_grep drv-compare-interrupted-removes-worktrees '^interrupted compare cleaned up$' _t61_compare_interrupt

# --- make plots / make report for another machine: nothing committed changes ----------------------
_t61_py=$(plots/venv.sh 2>/dev/null) || _t61_py=""
# results of made-up machines: a few committed CPU rows; the GPU side only with "gpu"
_t61_results() {   # _t61_results DIR [gpu]
    mkdir -p "$1/made-up" "$1/made-up-gpu"
    head -4 results/cpu-amd-epyc/cpu_chain.csv >"$1/made-up/cpu_chain.csv"
    head -3 results/cpu-amd-epyc/table2.csv >"$1/made-up/table2.csv"
    [ "${2:-}" = gpu ] && cp results/h200/table1.csv "$1/made-up-gpu/"
    return 0
}
_t61_other_machine() {
    local before after fig=$T61/pbuild/plots/made-up-gpu+made-up
    _t61_results "$T61/res"
    before=$(git status --porcelain plots results)
    NBR_PYTHON=$_t61_py NBR_RESULTS=$T61/res NBR_CPU_MACHINE=made-up NBR_GPU_MACHINE=made-up-gpu \
        make -s plots report BUILD="$T61/pbuild" || return 1
    after=$(git status --porcelain plots results)
    [ "$before" = "$after" ] || { echo "make plots/report changed the tree:"; diff <(echo "$before") <(echo "$after"); return 1; }
    [ -s "$fig/mpl/chain.png" ] && [ -s "$fig/REPORT.md" ] || { echo "no figures or report in $fig"; return 1; }
    grep -q '(mpl/chain\.png)' "$fig/REPORT.md" || { echo "the report does not link its own figures"; return 1; }
    echo "committed files untouched"
}
# a table counts as having data only when every side it needs is there: Table 2 with its CPU
# rows alone is not, with the GPU rows beside them it is
_t61_count() {   # _t61_count DIR: the report's summary line
    NBR_PYTHON=$_t61_py NBR_RESULTS=$1 NBR_CPU_MACHINE=made-up NBR_GPU_MACHINE=made-up-gpu \
        runs/report.sh "$1/REPORT.md" | tail -1
}
_t61_report_count() {
    local one both
    _t61_results "$T61/cpu-only" && _t61_results "$T61/both" gpu || return 1
    one=$(_t61_count "$T61/cpu-only") && both=$(_t61_count "$T61/both") || return 1
    echo "$one"; echo "$both"
    python3 - "$one" "$both" "$T61/cpu-only/REPORT.md" <<'PY'
import re, sys
one, both, report = sys.argv[1:]
ids = lambda line: re.search(r": (\d+) of \d+ tables with data \((.*)\)$", line).group(2).split(", ")
assert "table2" not in ids(one), one
assert "table2" in ids(both) and "table1" in ids(both), both
assert re.search(r"table2 \(`[^`]*`; no GPU side yet\)", open(report).read()), "no 'no GPU side yet' for table2"
print("count ok")
PY
}
if [ -n "$_t61_py" ]; then
    t_grep drv-plots-other-machine-keeps-tree '^committed files untouched$' _t61_other_machine
    t_grep drv-report-counts-complete-tables '^count ok$' _t61_report_count
else
    t_skip drv-plots-other-machine-keeps-tree "no python with pandas and matplotlib (plots/venv.sh)"
    t_skip drv-report-counts-complete-tables "no python with pandas and matplotlib (plots/venv.sh)"
fi

rm -rf "$T61"
