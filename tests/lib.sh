# tests/lib.sh - the tiny test harness sourced by tests/run.sh and every tests/cases_*.sh.
#
# Each case runs one command, keeps its output under $TEST_LOG_DIR/<name>.log and prints
# one line: PASS, FAIL (with the reason and the last lines of output) or SKIP.
# Cases:
#   t_ok    NAME CMD...                 exit code 0
#   t_grep  NAME REGEX CMD...           exit code 0 and REGEX (grep -E) found in the output
#   t_error NAME RC REGEX CMD...        exit code RC and REGEX in stderr, which must be ONE line
#   t_below NAME WORD BOUND CMD...      exit code 0 and |number after the last "WORD "| <= BOUND
#   t_skip  NAME REASON                 counted as skipped, never as passed
# Binaries: $BUILD/double/<variant> and $BUILD/float/<variant>.
# TEST_ONLY=REGEX (grep -E) runs only the cases whose name matches; the others are not run and
# not counted (iterating on a few cases of a long file, e.g. on the GPU machine).

: "${BUILD:=build}"
: "${TEST_LOG_DIR:=$BUILD/test-logs}"
mkdir -p "$TEST_LOG_DIR"
T_PASSED=0 T_FAILED=0 T_SKIPPED=0
T_FAILED_NAMES=()

_t_pass() { T_PASSED=$((T_PASSED + 1)); printf 'PASS  %s\n' "$1"; }
_t_fail() {
    T_FAILED=$((T_FAILED + 1)); T_FAILED_NAMES+=("$1")
    printf 'FAIL  %s: %s\n' "$1" "$2"
    [ -f "$TEST_LOG_DIR/$1.log" ] && tail -n 8 "$TEST_LOG_DIR/$1.log" | sed 's/^/      | /'
}

_t_wanted() { [ -z "${TEST_ONLY:-}" ] || grep -Eq -- "$TEST_ONLY" <<<"$1"; }

t_skip() { _t_wanted "$1" || return 0; T_SKIPPED=$((T_SKIPPED + 1)); printf 'SKIP  %s: %s\n' "$1" "$2"; }

t_ok() {
    _t_wanted "$1" || return 0
    local name=$1; shift
    if "$@" >"$TEST_LOG_DIR/$name.log" 2>&1; then _t_pass "$name"; else _t_fail "$name" "exit code $? from: $*"; fi
}

t_grep() {
    _t_wanted "$1" || return 0
    local name=$1 regex=$2; shift 2
    "$@" >"$TEST_LOG_DIR/$name.log" 2>&1
    local rc=$?
    if [ $rc -ne 0 ]; then _t_fail "$name" "exit code $rc from: $*"
    elif ! grep -Eq -- "$regex" "$TEST_LOG_DIR/$name.log"; then _t_fail "$name" "output lacks /$regex/"
    else _t_pass "$name"; fi
}

t_error() {
    _t_wanted "$1" || return 0
    local name=$1 want=$2 regex=$3; shift 3
    "$@" >"$TEST_LOG_DIR/$name.out" 2>"$TEST_LOG_DIR/$name.log"
    local rc=$? lines
    lines=$(grep -c '' "$TEST_LOG_DIR/$name.log")
    if [ $rc -ne "$want" ]; then _t_fail "$name" "exit code $rc, expected $want"
    elif [ "$lines" -ne 1 ]; then _t_fail "$name" "stderr has $lines lines, expected one message"
    elif ! grep -Eq -- "$regex" "$TEST_LOG_DIR/$name.log"; then _t_fail "$name" "message lacks /$regex/"
    else _t_pass "$name"; fi
}

# --prune's faults lose pairs only on the steps that read the inner rows, and --check compares
# the run's last force: FN ARGS... run with each of four consecutive lengths (a prune every one
# or two steps). Some: FN passes for one of them (a fault caught); every: for all four.
at_some_length() {
    local fn=$1 steps; shift
    for steps in 200 201 202 203; do "$fn" "$@" --steps $steps && return 0; done
    return 1
}
at_every_length() {
    local fn=$1 steps; shift
    for steps in 200 201 202 203; do "$fn" "$@" --steps $steps || return 1; done
}

t_below() {
    _t_wanted "$1" || return 0
    local name=$1 word=$2 bound=$3; shift 3
    "$@" >"$TEST_LOG_DIR/$name.log" 2>&1
    local rc=$? value
    value=$(awk -v w="$word" '{ for (k = 1; k < NF; k++) if ($k == w) v = $(k + 1) } END { print v }' "$TEST_LOG_DIR/$name.log")
    if [ $rc -ne 0 ]; then _t_fail "$name" "exit code $rc from: $*"
    elif [ -z "$value" ]; then _t_fail "$name" "output has no '$word' value"
    elif awk -v v="$value" -v b="$bound" 'BEGIN { exit !(v == v + 0 && (v < 0 ? -v : v) <= b) }'; then
        _t_pass "$name ($word $value, bound $bound)"
    else _t_fail "$name" "$word $value exceeds the bound $bound"; fi
}

# awk_rel: an awk function for comparing two numbers, as awk -v ... "$awk_rel"' BEGIN { ... }':
# rel(x, y, floor) = |x - y| / max(|x|, floor), x the reference; floor 1: relative above magnitude 1,
# absolute below (where a number printed with fixed decimals, as E/N with 8, has its resolution),
# floor 0: relative throughout
awk_rel='function rel(x, y, floor,  d) { x += 0; d = x - y; if (d < 0) d = -d; if (x < 0) x = -x; return d / (x > floor ? x : floor) }'

# A python with numpy for the tests that derive values with it: NBR_PYTHON, the plot environment
# (plots/venv.sh: pandas brings numpy) or python3; empty where none has it, and those tests SKIP.
T_NUMPY_PY=""
for _t_py in "${NBR_PYTHON:-}" "${NBR_VENV:-${BUILD:-build}/venv}/bin/python" python3; do
    [ -n "$_t_py" ] && "$_t_py" -c 'import numpy' 2>/dev/null && { T_NUMPY_PY=$_t_py; break; }
done
T_NUMPY_WHY="no python with numpy (python3-numpy, or plots/venv.sh's environment)"

# A GPU that CUDA programs can use: nvidia-smi lists one.
have_gpu() { command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L 2>/dev/null | grep -q GPU; }

# "${T_SIGDFL[@]}" CMD...: runs CMD (exec'd: the same pid) with SIGINT at its default
# disposition. A test that sends SIGINT needs it: a suite started from a background job
# (make test &) inherits SIGINT as ignored, and an ignored SIGINT stays ignored in every
# child (bash cannot even trap it).
if env --default-signal=INT true 2>/dev/null; then T_SIGDFL=(env --default-signal=INT)
else T_SIGDFL=(python3 -c 'import os, signal, sys; signal.signal(signal.SIGINT, signal.SIG_DFL); os.execvp(sys.argv[1], sys.argv[1:])'); fi

# check_row CSV [WANT [COLUMN]]: --check's columns of the last row of CSV (docs/csv.md: check,
# check_f_err, ...) on one line, "check <verdict> status <status> f_err <value> ..."; exit 0 when
# the verdict is WANT (pass, the default, or fail) and the numbers say the same: for pass, every
# error within --check's tolerance for the row's precision (common/check.c: double 1e-12; float
# 2e-4 per atom, 2e-5 for the total energy and the virial) and no wrong pair ("-" where one does
# not apply); for fail, COLUMN (f_err, u_err, e_rel, w_err, last_f_err or pairs_bad), where
# given, beyond its tolerance.
check_row() {
    python3 - "$@" <<'PY'
import sys
sys.path.insert(0, "runs")
import csvq
path, want, col = (sys.argv[1:] + ["", ""])[:3]
want = want or "pass"
rows = csvq.read(path).rows
if not rows:
    sys.exit(f"{path}: no row")
r = rows[-1]
atom, total = (1e-12, 1e-12) if r["precision"] == "double" else (2e-4, 2e-5)
tol = {"f_err": atom, "u_err": atom, "e_rel": total, "w_err": total, "last_f_err": atom, "pairs_bad": 0}
val = {k: r.get("check_" + k, "?") for k in tol}
print(f"check {r.get('check', '?')} status {r['status']} " + " ".join(f"{k} {v}" for k, v in val.items()))
def within(k):   # True / False; None where the column holds no number
    try:
        return float(val[k]) <= tol[k]   # "nan" is not
    except ValueError:
        return None
if r.get("check") != want:
    sys.exit(f"the row's verdict is '{r.get('check')}', expected {want}")
if want == "pass":
    always = ("f_err", "e_rel", "w_err")   # every check compares these
    bad = [k for k in tol if within(k) is False or (within(k) is None and (k in always or val[k] != "-"))]
    if bad:
        sys.exit(f"the row says pass, but " + ", ".join(f"check_{k} {val[k]}" for k in bad) +
                 f" (tolerance {atom:g} per atom, {total:g} total, no wrong pair)")
elif col and within(col) is not False:
    sys.exit(f"the row says {want}, but check_{col} is {val[col]}, not beyond its tolerance {tol[col]:g}")
PY
}

# check_passes CSV CMD...: CMD (a program with --check among its flags) run with --csv CSV exits 0
# and its row's check columns say pass (check_row)
# lists_verified CSV CMD...: runs CMD --csv CSV (--verify-lists among CMD's flags); passes where the
# run exits 0 and its row says status ok with lists_verified >= 1 (the stale structures checked at
# their last use; a missing pair stops the run with exit 5 instead). Prints "lists_verified N".
lists_verified() {
    local csv=$1 rc=0 n
    shift
    mkdir -p "$(dirname "$csv")" && rm -f "$csv"
    "$@" --csv "$csv" || rc=$?
    [ -s "$csv" ] || { echo "exit $rc, no row"; return 1; }
    [ $rc -eq 0 ] || { echo "exit $rc"; return 1; }
    n=$(python3 runs/csvq.py get "$csv" lists_verified status=ok) || { echo "the row's status is not ok"; return 1; }
    echo "lists_verified $n"
    [ "$n" -ge 1 ] 2>/dev/null || { echo "the row shows no stale structure verified"; return 1; }
}

# t_verified NAME CMD...: test NAME passes where lists_verified does (its row in verify-rows/NAME.csv)
t_verified() {
    local name=$1
    shift
    t_grep "$name" '^lists_verified [1-9]' lists_verified "$TEST_LOG_DIR/verify-rows/$name.csv" "$@"
}

check_passes() {
    local csv=$1 rc=0
    shift
    rm -f "$csv"
    "$@" --csv "$csv" || rc=$?
    [ -s "$csv" ] || { echo "exit $rc, no row"; return 1; }
    check_row "$csv" || return 1
    [ $rc -eq 0 ] || { echo "exit $rc"; return 1; }
}
