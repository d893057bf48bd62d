# Trust, second round (issue 24, items 1 and 3): the state a row names is the state it measured,
# and --check fails on each thing it checks.
#   state-*        the temperature column, the temperature a rescaled run must reach, and the
#                  energy that may not move from step 0 (or the last rescaling) at any sample point
#   check-plant-*  --check against cpu-grouped with one planted fault (tests/check_plant.c):
#                  atom 0's force, the virial, the total energy, the potential shift, a stored pair;
#                  moved to the last and a random atom, the last pair; an extra pair at each end;
#                  the last step's forces only (check_last_force)
#   check-tol-*    each --check tolerance T fails a planted error of 3 T
#   check-row-*    the row's check columns: the same numbers as the check's lines, '-' without
#                  --check or where the run stopped inside it, fail and empty for an unstable run
#   (verdicts are read from the row's columns, check_row in tests/lib.sh, not from the lines)
#   params-written-* a program that writes Params or its own options (Sim.opts; init, the steps)
#                  stops: exit 1, one line, no row
#   grow-cpu-*     the CPU lists' capacity grown from a tiny start (--grow-from 5), then --check
#   rebuild-rule-* --config approach: two atoms closing head-on at the largest speed, just outside
#                  the step-0 list; the rule 0.5 delta keeps their pair, 0.6 loses it
b=$BUILD/double
_t22_col() { python3 runs/csvq.py get "$@"; }   # CSV COL: the last row's COL

# --- state-: the temperature a row records ---------------------------------------------------
# A rescaled SP run (the paper's protocol, shorter): exit 0, status ok, temp_measured within 5% of
# --temp 1 and the same as the summary's "temperature" (the 2T rescaling fault gives T 2.0, a
# target of T/2 0.50: both fail here, and every test that equilibrates fails with them).
_t22_temp_ok() {   # BIN ARGS...
    local csv=$TEST_LOG_DIR/state-temp.csv out t tc st rc=0
    rm -f "$csv"
    out=$("$@" --csv "$csv" 2>&1) || rc=$?
    [ $rc -eq 0 ] || { echo "$out" | tail -3; echo "exit $rc"; return 1; }
    t=$(sed -n 's/.*; temperature \([^;]*\);.*/\1/p' <<<"$out")
    tc=$(_t22_col "$csv" temp_measured) && st=$(_t22_col "$csv" status) || return 1
    echo "summary temperature $t, temp_measured $tc, status $st"
    [ "$st" = ok ] && awk -v t="$t" -v c="$tc" 'BEGIN { d = c - 1; exit !(t != "" && (t - c) ^ 2 < 1e-10 && d * d < 0.0025) }'
}
t_grep state-temp-measured-double 'temp_measured' _t22_temp_ok $b/cpu-grouped --ne 10 --steps 1500 --equil 500 \
    --stage-reps 0 --quiet
t_grep state-temp-measured-float 'temp_measured' _t22_temp_ok $BUILD/float/cpu-layer --ne 10 --steps 1500 \
    --equil 500 --stage-reps 0 --quiet

# A run that did not reach --temp says so: LJ rescaled once (--equil 20) melts to T 1.42, not 1.2
# (beyond 10%, the floor of the bound in md_loop.c): exit 4, one line, status wrong-temp.
_t22_wrong_state() {   # STATUS MESSAGE BIN ARGS...: exit 4, one stderr line matching MESSAGE, row STATUS
    local want=$1 msg=$2 csv=$TEST_LOG_DIR/state-wrong.csv err=$TEST_LOG_DIR/state-wrong.err rc=0 st
    shift 2
    rm -f "$csv"
    "$@" --csv "$csv" >/dev/null 2>"$err" || rc=$?
    cat "$err"
    [ $rc -eq 4 ] || { echo "exit $rc, expected 4"; return 1; }
    [ "$(grep -c '' "$err")" -eq 1 ] || { echo "stderr is not one line"; return 1; }
    grep -Eq -- "$msg" "$err" || { echo "message lacks /$msg/"; return 1; }
    st=$(_t22_col "$csv" status) || return 1
    echo "status $st, temp_measured $(_t22_col "$csv" temp_measured)"
    [ "$st" = "$want" ]
}
t_ok state-temp-wrong-lj-short-equil _t22_wrong_state wrong-temp 'wrong-temp: the production temperature 1\.4[0-9]* is [0-9.]+% off --temp 1.2' \
    $b/cpu-grouped --system lj --ne 10 --steps 1000 --equil 20 --stage-reps 0 --quiet
_t22_temp_none() {
    local csv=$TEST_LOG_DIR/state-none.csv
    rm -f "$csv"
    "$@" --csv "$csv" || return 1
    echo "temp_measured $(_t22_col "$csv" temp_measured), status $(_t22_col "$csv" status)"
}
# No rescaling, no target: lammps-lj is NVE from the fcc start (T 1.44 falls to ~0.74) and passes.
t_grep state-temp-no-target-lammps-lj 'status ok' _t22_temp_none $b/cpu-grouped --system lammps-lj --ne 6 \
    --steps 600 --stage-reps 0 --quiet

# --- state-explode-: the energy watched from step 0, equilibration included ----------------
# Both ran to the end with "check PASS", exit 0 and status ok before (E/N 6.9e26; T 4.9e20): the
# drift was measured from the first production sample only.
# with --check, the row's verdict is fail and its errors empty: the state was not compared
_t22_explode_checked() {   # as _t22_wrong_state, and the row's check columns
    _t22_wrong_state "$@" || return 1
    check_row "$TEST_LOG_DIR/state-wrong.csv" fail || return 1
    python3 runs/csvq.py wide "$TEST_LOG_DIR/state-wrong.csv" | python3 -c '
import csv, sys
r = list(csv.DictReader(sys.stdin))[-1]
errs = {k: v for k, v in r.items() if k.startswith("check_")}
assert len(errs) == 6 and set(errs.values()) == {""}, errs
print("an unstable run: check fail, no error measured")'
}
t_grep state-explode-dt 'check fail, no error measured' _t22_explode_checked unstable \
    'step 10: unstable: the energy E/N = .* moved from .* at step 0' $b/cpu-grouped --dt 0.05 --ne 8 --steps 300 --equil 0 --check
t_ok state-explode-temp _t22_wrong_state unstable 'step 10: unstable: the energy E/N = .* moved from .* at step 0' \
    $b/cpu-grouped --temp 1000 --ne 8 --steps 200 --equil 10 --quiet
# an explosion inside equilibration stops there (step 10 of 500), not at the first production block
t_ok state-explode-in-equil _t22_wrong_state unstable 'step 10: unstable: the energy' \
    $b/cpu-grouped --dt 0.05 --ne 8 --steps 1000 --equil 500 --quiet

# --- check-plant-: --check fails on each thing it checks ----------------------------------------
# SP jittered by 0.4 spacings, N = 512, checked on its start (--steps 0): U/N ~ 20, moderate, so
# the float tolerances mean something (the random start's U ~ 5e11 hides a missing potential
# shift in float: relative 2.5e-7 against a tolerance of 2e-5). Each fault must fail the check,
# in its own column of the row (COLUMN beyond its tolerance: check_row), with exit 1, status
# check-failed and the row's verdict fail; "none" must pass (status untimed: no production step).
_t22_plant() {   # PREC FAULT COLUMN [SIZE [ARGS...]]: --check fails (COLUMN: f_err, e_rel, w_err, pairs_bad, ...)
    local csv=$TEST_LOG_DIR/check-plant-$1-$2.csv out rc=0 st size=()
    [ $# -ge 4 ] && [ "$4" != - ] && size=("$4")
    rm -f "$csv"
    out=$("$BUILD/$1/test-plant" "$2" "${size[@]}" --ne 8 --config jitter --steps 0 --equil 0 --check --quiet --csv "$csv" \
        "${@:5}") || rc=$?
    echo "$out" | grep -E '^planted'
    st=$(_t22_col "$csv" status) || return 1
    if [ "$2" = none ]; then
        check_row "$csv" && [ $rc -eq 0 ] && [ "$st" = untimed ] && echo "passes unplanted"
        return
    fi
    check_row "$csv" fail "$3" || return 1
    [ $rc -eq 1 ] || { echo "exit $rc, expected 1 (a failed check)"; return 1; }
    [ "$st" = check-failed ] || { echo "status $st"; return 1; }
    echo "the check fails on check_$3"
}
_t22_plant_at() {   # AT PREC FAULT LINE: the fault moved (tests/check_plant.c PLANT_AT)
    local PLANT_AT=$1
    export PLANT_AT
    shift
    echo "planted at $PLANT_AT"
    _t22_plant "$@"
}
# test-plant last SIZE: 20 steps, then --check (the program declares check_last_force)
_t22_last() {   # PREC SIZE
    local csv=$TEST_LOG_DIR/check-plant-$1-last-$2.csv rc=0
    rm -f "$csv"
    "$BUILD/$1/test-plant" last "$2" --ne 8 --config jitter --steps 20 --equil 0 --stage-reps 0 --check --quiet \
        --csv "$csv" >/dev/null || rc=$?
    if [ "$2" = 0 ]; then
        check_row "$csv" || return 1
        [ $rc -eq 0 ] && [ "$(_t22_col "$csv" check_last_f_err)" != - ] && echo "the last forces compared, pass"
        return
    fi
    check_row "$csv" fail last_f_err || return 1
    [ $rc -eq 1 ] && [ "$(_t22_col "$csv" status)" = check-failed ] || { echo "exit $rc, status $(_t22_col "$csv" status)"; return 1; }
    # the rebuilt structure's forces and sums are right: everything but the last forces passes
    python3 runs/csvq.py wide "$csv" | python3 -c '
import csv, sys
r = list(csv.DictReader(sys.stdin))[-1]
atom, total = (1e-12, 1e-12) if r["precision"] == "double" else (2e-4, 2e-5)
assert float(r["check_f_err"]) <= atom and float(r["check_e_rel"]) <= total and float(r["check_w_err"]) <= total \
    and r["check_pairs_bad"] == "0", r' && echo "the last forces fail alone"
}
# (test-plant is one of make's TEST_BINS, as test-core and test-loop: missing, these fail)
for prec in double float; do
    t_grep "check-plant-none-$prec" 'passes unplanted' _t22_plant $prec none -
    t_grep "check-plant-force-$prec" 'fails on check_f_err' _t22_plant $prec force f_err
    t_grep "check-plant-virial-$prec" 'fails on check_w_err' _t22_plant $prec virial w_err
    t_grep "check-plant-energy-$prec" 'fails on check_e_rel' _t22_plant $prec energy e_rel
    t_grep "check-plant-shift-$prec" 'fails on check_e_rel' _t22_plant $prec shift e_rel
    t_grep "check-plant-pair-$prec" 'fails on check_pairs_bad' _t22_plant $prec pair pairs_bad
    # the same faults spread over the system (issue 38): the last atom, a random one, the last pair
    t_grep "check-plant-force-last-$prec" 'fails on check_f_err' _t22_plant_at last $prec force f_err
    t_grep "check-plant-force-random-$prec" 'fails on check_f_err' _t22_plant_at $((1 + RANDOM % 510)) $prec force f_err
    t_grep "check-plant-pair-last-$prec" 'fails on check_pairs_bad' _t22_plant_at last $prec pair pairs_bad
    # a pair not within r_n reported too, before the first and after the last pair in the check's
    # order (random positions, seed 1: atoms 0 and 1, and the last two, are far apart)
    for _t22_at in first last; do
        t_grep "check-plant-extra-$_t22_at-$prec" "planted: extra pair .* (before|after) every pair within r_n" \
            _t22_plant_at $_t22_at $prec extra pairs_bad - --config random --seed 1
    done
    # each tolerance T fails a fault of 3 T (so a tolerance 10x looser would pass it): double
    # 1e-12 (forces, total energy, virial), float 2e-4 (forces), 2e-5 (total energy, virial)
    if [ $prec = double ]; then _t22_ta=1e-12 _t22_tt=1e-12; else _t22_ta=2e-4 _t22_tt=2e-5; fi
    t_grep "check-tol-force-$prec" 'fails on check_f_err' _t22_plant $prec force f_err "$(awk -v t=$_t22_ta 'BEGIN { print 3 * t }')"
    t_grep "check-tol-energy-$prec" 'fails on check_e_rel' _t22_plant $prec energy e_rel \
        "$(awk -v t=$_t22_tt 'BEGIN { print 3 * t }')"
    t_grep "check-tol-virial-$prec" 'fails on check_w_err' _t22_plant $prec virial w_err "$(awk -v t=$_t22_tt 'BEGIN { print 3 * t }')"
    # the last step's forces wrong, the check's own right (a structure wrong between builds, as
    # gpu-cluster's pruned rows): only check_last_f_err sees it; planted 0, it is compared and passes
    t_grep "check-plant-last-$prec" 'the last forces fail alone' _t22_last $prec 1e-3
    t_grep "check-plant-last-none-$prec" 'the last forces compared, pass' _t22_last $prec 0
done

# --- params-written-: a program that writes Params (not Sim.ran) is stopped ----------------------
# test-plant params-init writes --reorder in init, params-run --seed in the steps' forces: the loop
# compares Params with its copy from before init (md_loop.c), so each stops with exit 1, one line
# naming the program and when, and no row (the row would name options that did not run).
_t22_params() {   # PREC FAULT WHEN [LINE]
    local csv=$TEST_LOG_DIR/params-written-$1-$2.csv err=$TEST_LOG_DIR/params-written-$1-$2.err rc=0 rows
    rm -f "$csv"
    "$BUILD/$1/test-plant" "$2" --ne 8 --config jitter --steps 20 --equil 0 --stage-reps 0 --quiet --csv "$csv" \
        >/dev/null 2>"$err" || rc=$?
    cat "$err"
    [ $rc -eq 1 ] || { echo "exit $rc, expected 1"; return 1; }
    [ "$(grep -c '' "$err")" -eq 1 ] || { echo "stderr is not one line"; return 1; }
    grep -qx "${4:-cpu-grouped: wrote Params during $3; record resolved choices in Sim.ran}" "$err" || return 1
    rows=$([ -f "$csv" ] && grep -c '' "$csv" || echo 0)
    [ "$rows" -le 1 ] || { echo "$rows lines in the CSV: a row was written"; return 1; }
    echo "stopped: exit 1, no row"
}
t_grep params-written-init-double 'stopped: exit 1, no row' _t22_params double params-init init
t_grep params-written-run-double 'stopped: exit 1, no row' _t22_params double params-run 'the run'
# the same for a program's own options (Variant.opts): opts-init and opts-run write test-plant's own
_t22_own() { echo "cpu-grouped: wrote its own options (Sim.opts) during $1; record resolved choices in Sim.ran_opts"; }
t_grep params-written-opts-init-double 'stopped: exit 1, no row' _t22_params double opts-init init "$(_t22_own init)"
t_grep params-written-opts-run-double 'stopped: exit 1, no row' _t22_params double opts-run 'the run' \
    "$(_t22_own 'the run')"

# --- grow-cpu-: the CPU capacities grown from a tiny start -------------------------------------
# --grow-from 5: room for ~7 neighbours per atom where the jittered SP start stores ~9 (Newton 3)
# or ~18 (full): every list grows at its first build; then --check rebuilds and compares. The
# grouped list's capacity floored (m / n instead of rounding up) keeps the start's 8 per atom for
# 8.8 needed: 1341 of 15165 pairs lost at step 0, the run explodes (E/N 2.7e21 at step 20) and
# ends unstable.
_t22_grow() {   # CSV BIN ARGS...: grows at least once (the row's capacity_grows), the check passes (its check columns)
    local csv=$1 rc=0 grows
    shift
    rm -f "$csv"
    "$@" --csv "$csv" >/dev/null || rc=$?
    [ -s "$csv" ] || { echo "exit $rc, no row"; return 1; }
    grows=$(_t22_col "$csv" capacity_grows) || return 1
    echo "capacity_grows $grows"
    [ "$grows" -ge 1 ] || { echo "nothing grew"; return 1; }
    check_row "$csv" && [ $rc -eq 0 ] && echo "grew and passed"
}
for v in cpu-grouped cpu-full cpu-layer cpu-pairlist; do
    for prec in double float; do
        t_grep "grow-cpu-$v-$prec" 'grew and passed' _t22_grow "$TEST_LOG_DIR/grow-cpu-$v-$prec.csv" "$BUILD/$prec/$v" \
            --grow-from 5 --config jitter --ne 12 --steps 200 --equil 0 --stage-reps 0 --check
    done
done

# --- check-row-: the row's check columns say what the check did ------------------------------
# The columns hold the numbers the check's lines print (cpu-layer: per-atom energies too; float
# salt, whose errors are not 0), pass or fail as the last line; without --check every one is '-'.
_t22_row_lines() {   # BIN ARGS...
    local csv=$TEST_LOG_DIR/check-row-lines.csv out=$TEST_LOG_DIR/check-row-lines.out
    rm -f "$csv"
    "$@" --check --csv "$csv" >"$out" || return 1
    python3 - "$csv" "$out" <<'PY'
import re, sys
sys.path.insert(0, "runs"); import csvq
r = csvq.read(sys.argv[1]).rows[-1]
out = open(sys.argv[2]).read()
num = r"([-+0-9.e]+|nan|inf)"
lines = {"f_err": rf"^check forces: max per-atom error {num}", "u_err": rf"^check energies: max per-atom error {num}",
         "e_rel": rf"^check total energy: .*\({num} beyond", "w_err": rf"^check virial: .* error {num} relative"}
want = {k: re.search(p, out, re.M).group(1) for k, p in lines.items()}
m = re.search(r"^check pairs .*missing (\d+), extra (\d+), wrong multiplicity (\d+), self (\d+), out of range (\d+)", out, re.M)
want["pairs_bad"] = str(sum(int(x) for x in m.groups()))
want["last_f_err"] = "-"   # cpu-layer does not declare check_last_force
verdict = re.search(r"^check cpu-layer: (PASS|FAIL)$", out, re.M).group(1).lower()
got = {k: r["check_" + k] for k in want}
assert r["check"] == verdict and got == want, (r["check"], verdict, got, want)
assert float(got["f_err"]) > 0 and float(got["u_err"]) > 0, got   # float salt: errors to compare
print(f"the row's check columns are the lines': check {verdict}, " + ", ".join(f"{k} {v}" for k, v in got.items()))
PY
}
t_grep check-row-lines "the row's check columns are the lines'" _t22_row_lines $BUILD/float/cpu-layer --system salt --ne 14 \
    --steps 60 --equil 30 --stage-reps 0 --quiet
_t22_row_none() {
    local csv=$TEST_LOG_DIR/check-row-none.csv
    rm -f "$csv"
    $b/cpu-grouped --ne 6 --steps 20 --equil 0 --stage-reps 0 --quiet --csv "$csv" >/dev/null || return 1
    python3 runs/csvq.py wide "$csv" | python3 -c '
import csv, sys
r = list(csv.DictReader(sys.stdin))[-1]
c = {k: v for k, v in r.items() if k.startswith("check")}
assert len(c) == 7 and set(c.values()) == {"-"}, c
print("no --check: every check column -")'
}
t_grep check-row-none 'every check column -' _t22_row_none
# SIGTERM inside the check (its O(N^2) reference polls per row: N = 131072, about 4 s here), sent
# once the last block row is written: the row says interrupted, and no verdict
_t22_row_interrupted() (
    set -m
    local csv=$TEST_LOG_DIR/check-row-int.csv blocks=$TEST_LOG_DIR/check-row-int-blocks.csv pid rc k
    rm -f "$csv" "$blocks"
    $b/cpu-grouped --ne 32 --steps 20 --equil 0 --avg-block 10 --stage-reps 0 --check --quiet --csv "$csv" \
        --blocks-csv "$blocks" >/dev/null 2>"$TEST_LOG_DIR/check-row-int.err" &
    pid=$!
    for k in $(seq 600); do [ -s "$blocks" ] && [ "$(grep -c "" "$blocks")" -ge 3 ] && break; sleep 0.05; done
    sleep 0.2
    kill -TERM $pid
    for k in $(seq 100); do kill -0 $pid 2>/dev/null || break; sleep 0.05; done
    kill -0 $pid 2>/dev/null && { kill -KILL $pid; echo "still running 5 s after SIGTERM"; return 1; }
    wait $pid; rc=$?
    cat "$TEST_LOG_DIR/check-row-int.err"
    [ $rc -eq 143 ] || { echo "exit $rc, not death by SIGTERM (the check ended first?)"; return 1; }
    [ "$(_t22_col "$csv" status)" = interrupted ] && [ "$(_t22_col "$csv" steps_done)" = 20 ] ||
        { echo "not the row of an interrupted check"; return 1; }
    [ "$(_t22_col "$csv" check)" = - ] && [ "$(_t22_col "$csv" check_f_err)" = - ] && echo "interrupted inside the check: no verdict"
)
t_grep check-row-interrupted 'inside the check: no verdict' _t22_row_interrupted

# --- rebuild-rule-: a pair loss made certain -------------------------------------------------
# --config approach (common/state.c): SP at rho 1/64 (sites 4 apart, beyond 2 r_n), atoms 0 and 1
# r_n + 0.01 apart closing at v = sqrt(3 x 1.75) = 2.29 each (v dt = 0.0115). Under a rule of
# f delta an atom moves under f delta between builds, so the pair closes by under 2 f delta: at
# 0.5 by 0.596 < delta + 0.01, never within r_c unlisted; at 0.6 by 0.71, to r = 1.04 < r_c = 1.12
# at step 32, which --verify-lists reports (exit 5). The step-0 structure's first drift, once not
# counted, let 0.5 lose it too (step 27, r = 1.114).
approach=(--ne 4 --rho 0.015625 --config approach --temp 1.75 --steps 200 --equil 0 --avg-block 100 --verify-lists
          --stage-reps 0 --quiet)
for v in cpu-grouped cpu-pairlist cpu-layer; do
    for prec in double float; do
        t_verified "rebuild-rule-safe-$v-$prec" "$BUILD/$prec/$v" "${approach[@]}"
        t_error "rebuild-rule-unsafe-$v-$prec" 5 'verify-lists: step [0-9]+: pair \(0, 1\) at r = 1\.0.* missing' \
            "$BUILD/$prec/$v" "${approach[@]}" --rebuild-frac 0.6
    done
done
t_error rebuild-rule-approach-needs-room 2 'config approach needs lattice sites over 2 r_n' \
    $b/cpu-grouped --ne 4 --config approach --steps 10 --equil 0 --quiet
