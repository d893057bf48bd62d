# tests/cases_70_compare.sh - regression tracking: the statistics of runs/perfstat.py against
# known answers, runs/compare.sh end to end on stand-in programs (exit status 0 / 1 / 2, the
# CSV, the stage that moved), suites, history, and the planted-slowdown fixture.
# Sourced by tests/run.sh (tests/lib.sh loaded). Fast: no real benchmark runs here (the fake
# programs take milliseconds); everything is written under a temporary directory.

T70=$(mktemp -d "${TMPDIR:-/tmp}/nbrlab-t70.XXXXXX")
_t70_ps=(python3 runs/perfstat.py)

# --- statistics, known answers -------------------------------------------------------------
# 6 pairs: the exact signed-rank interval is the widest one, [min, max] of the pair ratios,
# with coverage 1 - 2/2^6 = 0.96875; the estimate is exp(median of the Walsh averages).
_t70_six() { "${_t70_ps[@]}" pairs 1,1,1,1,1,1 1.10,1.12,1.14,1.16,1.18,1.20; [ $? = 1 ]; }
t_grep stats_six_pairs_interval 'ratio 1\.1496  interval \[1\.1000, 1\.2000\]  cover 0\.9688  signs 6/6  p 0\.01562  verdict slower$' _t70_six
# the same samples at 25%: significant but within the threshold
t_grep stats_six_pairs_threshold 'verdict no change$' "${_t70_ps[@]}" pairs --threshold 0.25 1,1,1,1,1,1 1.10,1.12,1.14,1.16,1.18,1.20
# 10 pairs with log-ratios 0.01..0.10: Walsh averages of 1..10 (/100); the 95% interval is the
# 9th smallest and 9th largest (signed-rank critical value 8 for n = 10), 0.03 and 0.08;
# the estimate their median 0.055; coverage 1 - 2*47/1024 = 0.9512.
_t70_ten() {
    local a b
    a=$(printf '1,%.0s' $(seq 10)); a=${a%,}
    b=$(awk 'BEGIN { for (k = 1; k <= 10; k++) printf "%s%.9f", (k > 1 ? "," : ""), exp(k / 100) }')
    "${_t70_ps[@]}" pairs "$@" "$a" "$b"
}
_t70_ten_slower() { _t70_ten; [ $? = 1 ]; }
t_grep stats_ten_pairs_interval 'ratio 1\.0565  interval \[1\.0305, 1\.0833\]  cover 0\.9512  signs 10/10  p 0\.0009766  verdict slower$' _t70_ten_slower
t_grep stats_ten_pairs_10pct 'verdict no change$' _t70_ten --threshold 0.10
# A/A-like: ratios around 1 in both directions: no change, not significant
t_grep stats_aa_no_change 'interval \[0\.9[0-9]*, 1\.0[0-9]*\].*verdict no change' \
    "${_t70_ps[@]}" pairs 1,1,1,1,1,1,1,1 1.01,0.99,1.02,0.98,1.005,0.995,1.03,0.97
# 30% faster: the interval below 1, exit 0
t_grep stats_faster 'verdict faster$' "${_t70_ps[@]}" pairs 2,2,2,2,2,2 1.40,1.41,1.39,1.42,1.38,1.40
# the interval's order statistic against the exact null distribution, by brute force over all
# sign patterns (n = 4..12): coverage = 1 - 2 P(W+ <= k-1), and k is the largest allowed
_t70_null() {
    python3 - <<'EOF'
import itertools, sys
sys.path.insert(0, "runs")
import perfstat
for n in range(4, 13):
    counts = [0] * (n * (n + 1) // 2 + 1)
    for signs in itertools.product((0, 1), repeat=n):
        counts[sum(r for r, s in zip(range(1, n + 1), signs) if s)] += 1
    assert counts == perfstat.signed_rank_counts(n), n
    k, cover = perfstat.signed_rank_k(n, 0.95)
    tail = sum(counts[:k]) / 2 ** n
    assert abs(cover - (1 - 2 * tail)) < 1e-12, (n, k, cover)
    if k > 1:
        assert 2 * tail <= 0.05 + 1e-12 and 2 * sum(counts[:k + 1]) / 2 ** n > 0.05, (n, k)
print("null distribution ok for n = 4..12")
EOF
}
t_grep stats_null_distribution 'null distribution ok' _t70_null
# the decision (issue 38): the exact one-sided sign test and Holm's step-down, known answers.
# 10 of 12 pairs slower: p = (C(12,10) + C(12,11) + 1) / 4096 = 79/4096; Holm at 0.05 over
# p = (0.01, 0.04, 0.03) rejects only 0.01 (0.03 > 0.05/2), over (0.01, 0.02, 0.04) all three
# (Bonferroni would keep 0.02 and 0.04)
_t70_rule() {
    python3 - <<'EOF'
import sys
sys.path.insert(0, "runs")
import perfstat as ps
d = [0.01] * 10 + [-0.01] * 2
assert abs(ps.sign_p(d)[0] - 79 / 4096) < 1e-15 and abs(ps.sign_p(d)[1] - 4083 / 4096) < 1e-15, ps.sign_p(d)
assert ps.sign_p([0.0, 0.0]) == (1.0, 1.0) and ps.sign_p([0.0, 0.1])[0] == 0.5   # zeros dropped
assert ps.holm([0.01, 0.04, 0.03], 0.05) == [True, False, False]
assert ps.holm([0.01, 0.02, 0.04], 0.05) == [True, True, True]
assert ps.holm([0.06, 0.001], 0.05) == [False, True]
# twelve benchmarks, one of them 6 of 6 pairs 10% slower (p = 1/64), the rest A/A: alone it
# is slower; in a family of 12 Holm needs p <= 0.05/12, so no benchmark is slower
def rows(nb, slow):
    out = []
    for b in range(nb):
        for i in range(1, 7):
            f = 1.10 if b == 0 and slow else (1.01 if i % 2 else 0.99)
            for side, v in (("A", 1.0), ("B", f)):
                out.append(dict(compare_id="x", bench=f"b{b}", pair=str(i), side=side, us_per_atom_step=str(v)))
    return out
one = ps.analyze(rows(1, True), thr=0.05)
assert [r["verdict"] for r in one] == ["slower"], one
twelve = ps.analyze(rows(12, True), thr=0.05)
assert all(r["verdict"] == "no change" for r in twelve), [(r["bench"], r["verdict"]) for r in twelve]
print("sign test and Holm ok")
EOF
}
t_grep stats_sign_test_holm 'sign test and Holm ok' _t70_rule
# the user's false alarm (issue 38: "SLOWER: cpu-full-lj x1.054 [1.000, 1.204]" for commits
# touching no CPU code): 5 of the 6 nonzero pairs slower is p = 7/64, no verdict
t_grep stats_user_false_alarm 'signs 5/6  p 0\.1094  verdict no change$' "${_t70_ps[@]}" pairs 1,1,1,1,1,1,1 \
    1.084,1.033,0.974,1.000,1.339,1.048,1.105
# "faster" needs the estimate under 1/(1 + t) = 0.952 at 5%: every pair 4% faster is no
# change, 6% faster is faster (and the reverse for slower: 4% slower no change)
t_grep stats_faster_threshold 'verdict no change$' "${_t70_ps[@]}" pairs 1,1,1,1,1,1,1,1 0.96,0.96,0.96,0.96,0.96,0.96,0.96,0.96
t_grep stats_faster_beyond 'verdict faster$' "${_t70_ps[@]}" pairs 1,1,1,1,1,1,1,1 0.94,0.94,0.94,0.94,0.94,0.94,0.94,0.94
t_grep stats_slower_threshold 'verdict no change$' "${_t70_ps[@]}" pairs 1,1,1,1,1,1,1,1 1.04,1.04,1.04,1.04,1.04,1.04,1.04,1.04
t_error stats_unpaired 2 'must pair up' "${_t70_ps[@]}" pairs 1,2,3 1,2
t_error stats_nonpositive 2 'must be positive' "${_t70_ps[@]}" pairs 1,2,0 1,2,3

# --- compare.sh end to end on stand-in programs ----------------------------------------------
# build:DIR specs: DIR/double/cpu-fake is tests/fixtures/fake-variant.sh; DIR/factor scales
# its time, DIR/exit makes it fail, DIR/extra_col adds a column (a newer schema).
_t70_build() {   # _t70_build NAME FACTOR [EXIT] [EXTRA_COL]
    local d=$T70/$1
    mkdir -p "$d/double"
    ln -sf "$PWD/tests/fixtures/fake-variant.sh" "$d/double/cpu-fake"
    ln -sf "$PWD/tests/fixtures/fake-variant.sh" "$d/double/cpu-fake2"
    echo "$2" >"$d/factor"
    echo "${3:-0}" >"$d/exit"
    [ -n "${4:-}" ] && echo "$4" >"$d/extra_col"
    echo "$1" >"$d/.git-rev"
}
cat >"$T70/suites.txt" <<'EOF'
fake   fake-sp   double  cpu-fake  --system sp --ne 8
fake   {v}-lj    double  cpu-*     --system lj --ne 8
EOF
_t70_build base 1
_t70_build base2 1
_t70_build slow 1.5 0 frac_newstage
_t70_build fast 0.6
_t70_build broken 1 3
_t70_build big-a 1 "3 sp"   # refuses the sp benchmark as beyond its capacity, as big-b does
_t70_build big-b 1 "3 sp"
_t70_cmp() {   # _t70_cmp A B [options]: compare.sh on the fakes, results under $T70/out
    local a=$1 b=$2
    shift 2
    NBR_LOCK=none runs/compare.sh --suite-file "$T70/suites.txt" --out "$T70/out" --no-plot \
        --pairs 8 "$@" "build:$T70/$a" "build:$T70/$b" fake
}
_t70_rc() { local want=$1; shift; "$@"; local rc=$?; echo "exit status $rc"; [ "$rc" = "$want" ]; }
t_grep compare_slower_exit1 'verdict: SLOWER beyond 5%: fake-sp x1\.[45].*cpu-fake2-lj x1\.[45]' _t70_rc 1 _t70_cmp base slow
t_grep compare_stage_moved 'fake-sp .* slower +force x' cat "$T70/out/base_slow.txt"
t_grep compare_same_exit0 '^verdict: no significant slowdown beyond 5% \(exit 0\)' _t70_rc 0 _t70_cmp base base2
t_grep compare_faster_exit0 'faster: fake-sp, cpu-fake2-lj \(exit 0\)' _t70_rc 0 _t70_cmp base fast
# a slowdown of 50% passes a 60% threshold
t_grep compare_threshold 'no significant slowdown beyond 60%' _t70_rc 0 _t70_cmp base slow --threshold 60 --name thr
# too few pairs for the corrected test (2 benchmarks need 6): undecided (exit 2), even with
# B 50% slower in every pair; and a budget of 0 s stops at those 6 pairs, not at --min-pairs 5
t_grep compare_too_few_pairs_undecided '^verdict: undecided: 5 pairs .* at least 6 pairs \(exit 2\)' \
    _t70_rc 2 _t70_cmp base slow --pairs 5 --min-pairs 5 --name few
_t70_budget_floor() {
    _t70_cmp base base2 --pairs 8 --min-pairs 5 --budget 0 --name floor >/dev/null || return 1
    python3 - "$T70/out/floor.csv" <<'EOF'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
n = {b: max(int(r["pair"]) for r in rows if r["bench"] == b) for b in {r["bench"] for r in rows}}
assert set(n.values()) == {6}, n
print("pairs kept:", n)
EOF
}
t_grep compare_budget_keeps_decidable_pairs '^pairs kept:' _t70_budget_floor
t_grep compare_run_fails_exit2 'fake: failing on purpose \(exit 3\)' _t70_rc 2 _t70_cmp base broken
# a benchmark both sides refuse as beyond this machine (exit 3) is left out, the rest compared;
# refused by one side only it is a failed run
t_grep compare_refused_both_left_out 'left out, refused by both sides on this machine .*fake-sp' _t70_rc 0 _t70_cmp big-a big-b
t_grep compare_refused_one_side_exit2 'errors: fake-sp \(B\): exit 3' _t70_rc 2 _t70_cmp base big-b --name one-side
t_error compare_bad_revision 2 "not a revision" runs/compare.sh no-such-revision-xyz HEAD gate
t_error compare_bad_suite 2 "no suite 'nosuch'" runs/compare.sh --suite-file "$T70/suites.txt" build:$T70/base build:$T70/slow nosuch
# the CSV: the programs' columns plus pair and side, every row complete although B's rows have
# a column A's do not (the union header, '-' where a side has none); 2 sides x pairs x 2 benches
_t70_csv() {
    python3 - "$T70/out/base_slow.csv" <<'EOF'
import csv, sys
sys.path.insert(0, "runs"); import csvq  # the rows with knobs expanded (docs/csv.md)
rows = list(csvq.read(sys.argv[1]).rows)
need = {"compare_id", "bench", "pair", "side", "order", "us_per_atom_step", "frac_force", "git_rev", "frac_newstage"}
assert need <= set(rows[0]), need - set(rows[0])
assert all(None not in r and None not in r.values() for r in rows)
ids = {r["compare_id"] for r in rows}
for cid in ids:
    sub = [r for r in rows if r["compare_id"] == cid]
    assert {r["side"] for r in sub} == {"A", "B"}
    for b in {r["bench"] for r in sub}:
        pairs = [int(r["pair"]) for r in sub if r["bench"] == b and r["side"] == "A"]
        assert sorted(pairs) == list(range(1, 9)), pairs   # --pairs 8, every benchmark
    assert {r["frac_newstage"] for r in sub if r["side"] == "A"} == {"-"}
    # order alternates: pair 1 of the first benchmark runs A first, pair 2 B first
    first = {(r["pair"], r["side"]): r["order"] for r in sub if r["bench"] == "fake-sp"}
    assert first[("1", "A")] == "1" and first[("2", "B")] == "1", first
print(f"csv ok: {len(rows)} rows, {len(ids)} comparison(s)")
EOF
}
t_grep compare_csv_schema 'csv ok' _t70_csv
# per-stage times: frac_<stage> x metric, each side's median over the pairs, derived here with
# pandas from the CSV and compared with what the report's analysis holds (fake-variant.sh: B's
# extra time is all in force, so list's time is the same on both sides and force's grows)
_t70_pd=""
for c in "${NBR_PYTHON:-}" "$BUILD/venv/bin/python" python3; do
    [ -n "$c" ] && "$c" -c 'import pandas' 2>/dev/null && { _t70_pd=$c; break; }
done
_t70_stages() {
    "$_t70_pd" - "$T70/out/base_slow.csv" <<'EOF'
import sys
import pandas as pd
sys.path.insert(0, "runs")
import perfstat
_, rows = perfstat.read_csv(sys.argv[1])
cid = rows[-1]["compare_id"]
rows = [r for r in rows if r["compare_id"] == cid]
df = pd.DataFrame(rows)
df = df[df.bench == "fake-sp"]
for c in ("us_per_atom_step", "frac_list", "frac_force"):
    df[c] = df[c].astype(float)
res = [r for r in perfstat.analyze(rows) if r["bench"] == "fake-sp"][0]
st = {s["stage"]: s for s in res["stages"]}
for stage in ("list", "force"):
    for side in "AB":
        want = (df[df.side == side]["frac_" + stage] * df[df.side == side].us_per_atom_step).median()
        got = st[stage]["med_" + side.lower()]
        assert abs(got - want) < 1e-12 * want, (stage, side, got, want)
assert abs(st["list"]["med_b"] / st["list"]["med_a"] - 1) < 0.05, st["list"]
assert st["force"]["est"] > 1.5, st["force"]
print("stage times ok")
EOF
}
if [ -n "$_t70_pd" ]; then t_grep compare_stage_times 'stage times ok' _t70_stages
else t_skip compare_stage_times "no python with pandas (plots/venv.sh)"; fi
# analyze re-derives the verdict and exit status from the CSV alone
_t70_analyze() { "${_t70_ps[@]}" analyze "$T70/out/base_slow.csv"; [ $? = 1 ]; }
t_grep compare_analyze 'SLOWER beyond 5%' _t70_analyze
t_grep compare_summary '1 of 1 comparisons failed the gate' "${_t70_ps[@]}" summary --threshold 0.25 "$T70/out/base_slow.csv"
_t70_py=""
for c in "${NBR_PYTHON:-}" "$BUILD/venv/bin/python" python3; do
    [ -n "$c" ] && "$c" -c 'import matplotlib' 2>/dev/null && { _t70_py=$c; break; }
done
if [ -n "$_t70_py" ]; then
    _t70_plots() {
        "$_t70_py" plots/compare.py "$T70/out/base_slow.csv" --out "$T70/out/base_slow.png" &&
            [ -s "$T70/out/base_slow.png" ] &&
            "$_t70_py" plots/history.py "$T70/bench.csv" --order "$T70/order" --suite quick --out "$T70/h.png" &&
            [ -s "$T70/h.png" ]
    }
else
    _t70_plots() { return 0; }
fi

# --- suites, history, fixture ----------------------------------------------------------------
if [ -x "$BUILD/double/cpu-grouped" ]; then
    t_grep suite_gate_lists '^grouped-lj	double	cpu-grouped	' "${_t70_ps[@]}" suite gate --build "$BUILD"
    # globs take every built CPU program except those with a line of their own (cpu-allpairs)
    _t70_quick() {
        local out n
        out=$("${_t70_ps[@]}" suite quick --build "$BUILD" 2>/dev/null) || return 1
        echo "$out"
        n=$(ls "$BUILD/double" | grep -c '^cpu-')
        # the CPU programs' SP lines (a machine with a GPU lists the gpu-* programs too)
        [ "$(echo "$out" | grep -c -- '^cpu-[^	]*-sp	')" = "$n" ] || { echo "expected $n CPU SP benchmarks"; return 1; }
        [ "$(echo "$out" | grep -c 'cpu-allpairs	')" = 2 ] || { echo "cpu-allpairs twice"; return 1; }
    }
    t_ok suite_quick_every_cpu_variant _t70_quick
else
    t_skip suite_gate_lists "$BUILD/double/cpu-grouped not built"
fi
_t70_history() {
    local csv=$T70/bench.csv
    {
        echo "git_rev,tag,variant,system,us_per_atom_step,status"
        echo "aaaaaaa,quick/cpu-x-sp/r1-r1,cpu-x,sp,1.0,ok"
        echo "aaaaaaa,quick/cpu-x-sp/r1-r2,cpu-x,sp,1.2,ok"
        echo "bbbbbbb,quick/cpu-x-sp/r2-r1,cpu-x,sp,1.1,ok"
        echo "bbbbbbb,quick/cpu-x-sp/r2-r2,cpu-x,sp,1.1,ok"
        echo "ccccccc-dirty,quick/cpu-x-sp/r3-r1,cpu-x,sp,9.9,ok"
    } >"$csv"
    printf '%s\n' bbbbbbb0000 aaaaaaa0000 >"$T70/order"
    python3 plots/history.py "$csv" --order "$T70/order" --suite quick --table-only
}
# bench.csv merges: the union of the columns; a dirty row is refused under results/
_t70_merge() {
    mkdir -p "$T70/results/m"
    printf 'git_rev,tag,us_per_atom_step,status\naaaaaaa,quick/x/1-r1,1.0,ok\n' >"$T70/r1.csv"
    printf 'git_rev,tag,us_per_atom_step,t_force_us,status\nbbbbbbb,quick/x/2-r1,1.1,5,ok\n' >"$T70/r2.csv"
    "${_t70_ps[@]}" merge "$T70/results/m/bench.csv" "$T70/r1.csv" &&
        "${_t70_ps[@]}" merge "$T70/results/m/bench.csv" "$T70/r2.csv" && cat "$T70/results/m/bench.csv"
}
t_grep bench_merge_union_columns '^aaaaaaa,quick/x/1-r1,1.0,ok,-$' _t70_merge
printf 'git_rev,tag,us_per_atom_step,status\nccccccc-dirty,quick/x/3-r1,1.0,ok\n' >"$T70/r3.csv"
t_error bench_merge_refuses_dirty 2 "refusing to append .* 'ccccccc-dirty' is not a committed one" \
    "${_t70_ps[@]}" merge "$T70/results/m/bench.csv" "$T70/r3.csv"
# commit order from the order file (bbbbbbb first), median of repeats, dirty rows left out
t_grep history_table 'cpu-x-sp +aaaaaaa +2 +1\.1 +1 +1\.2 +\+0\.0%' _t70_history
if [ -n "$_t70_py" ]; then t_ok compare_history_plots _t70_plots
else t_skip compare_history_plots "no python with matplotlib (plots/venv.sh)"; fi
# the planted-slowdown fixture still finds the force call it slows down in this tree
_t70_fixture() {
    mkdir -p "$T70/fixture/common" && cp common/md_loop.c "$T70/fixture/common/" &&
        tests/fixtures/slow-force.sh "$T70/fixture" && grep -c 'vp->forces = planted_forces;' "$T70/fixture/common/md_loop.c"
}
t_grep fixture_slow_force_applies '^[1-9]' _t70_fixture

# --- the CI gate's own settings (runs/compare.sh --gate) ------------------------------------
# The real gate suite (runs/suites.txt) on two "revisions" of stand-in programs, one slower by
# a known factor (fake-variant.sh: B's metric is FACTOR x A's, +-2% noise each): 10% and 20%
# slower must pass the 25% gate, 30% and 60% slower must fail it. The GATE_* overrides are
# cleared so the defaults are what is tested. Planted fault, caught: the threshold 25 -> 250
# in compare.sh (30% and 60% then pass).
_t70_gate_build() {   # NAME FACTOR: every CPU program name linked to the fake
    local d=$T70/gate-$1 v
    mkdir -p "$d/double"
    for v in $(basename -s .c variants/cpu-*.c); do ln -sf "$PWD/tests/fixtures/fake-variant.sh" "$d/double/$v"; done
    echo "$2" >"$d/factor"
    echo "gate-$1" >"$d/.git-rev"
}
_t70_gate() {   # PCT WANT_RC: the gate on base vs PCT% slower; its exit status and CSV
    local pct=$1 want=$2 rc
    _t70_gate_build "$pct" "$(awk -v p="$pct" 'BEGIN { print 1 + p / 100 }')"
    env -u GATE_THRESHOLD -u GATE_PAIRS -u GATE_BUDGET NBR_LOCK=none runs/compare.sh --gate --no-plot \
        --out "$T70/gate" --name "gate-$pct" "build:$T70/gate-base" "build:$T70/gate-$pct"
    rc=$?
    echo "exit status $rc (want $want)"
    [ "$rc" = "$want" ] || return 1
    # every benchmark of the real gate suite compared, in exactly 12 pairs (fixed)
    python3 - "$T70/gate/gate-$pct.csv" <<'EOF'
import csv, sys
sys.path.insert(0, "runs"); import csvq  # the rows with knobs expanded (docs/csv.md)
rows = list(csvq.read(sys.argv[1]).rows)
want = {l.split()[1] for l in open("runs/suites.txt") if l.split()[:1] == ["gate"]}
got = {r["bench"] for r in rows}
assert got == want, (got, want)
for b in want:
    n = max(int(r["pair"]) for r in rows if r["bench"] == b)
    assert n == 12, (b, n)
print(f"gate suite compared: {len(want)} benchmarks")
EOF
}
_t70_gate_build base 1
t_grep gate-threshold-10pct-passes 'gate suite compared' _t70_gate 10 0
t_grep gate-threshold-20pct-passes 'gate suite compared' _t70_gate 20 0
t_grep gate-threshold-30pct-fails 'gate suite compared' _t70_gate 30 1
t_grep gate-threshold-60pct-fails 'gate suite compared' _t70_gate 60 1
# --config sets compare.sh's settings as its flags do, over --gate's defaults (a 30% slowdown
# passes a 40% threshold from the config), and the run's record names it
_t70_gate_config() {
    printf '# gate at 40%%\nthreshold=40\n' >"$T70/gate40.conf"
    _t70_gate_build 30 1.3
    env -u GATE_THRESHOLD -u GATE_PAIRS -u GATE_BUDGET NBR_LOCK=none runs/compare.sh --config "$T70/gate40.conf" \
        --gate --no-plot --out "$T70/gate" --name gate-conf "build:$T70/gate-base" "build:$T70/gate-30"
    echo "exit status $?"
    grep -x 'threshold=40' "$T70/gate/gate-conf.csv.settings" && grep -x 'pairs=12' "$T70/gate/gate-conf.csv.settings"
}
t_grep compare_config_over_gate '^pairs=12$' _t70_gate_config
t_grep compare_config_over_gate_verdict 'no significant slowdown beyond 40% \(exit 0\)' cat "$T70/gate/gate-conf.txt"
rm -rf "$T70"
