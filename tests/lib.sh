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
