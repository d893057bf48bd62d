#!/usr/bin/env bash
# tests/mutants.sh - mutation test of the suite: plants each fault of tests/mutants.txt, one at
# a time, in a scratch copy of the tree, builds what the fault's tests need there and runs
# those tests. Prints "fault -> caught by TEST..." or "fault -> SURVIVED" per fault (a survivor's
# tests run twice: caught only the second time, it is marked FLAKY; all its tests skipped as
# this CPU lacks the instructions, NOT REACHED), and the survivors, errors, flaky and unreached
# ones again at the end; exits 0 when every fault was caught or not reached, 1 when one
# survived, 2 on an error (a fault whose sed no longer changes its file, a build that fails,
# tests that fail before any fault is planted).
#
#   tests/mutants.sh [options]        (make mutants [FILES=...] [MUTANTS_BASE=REV] [MUTANTS=REGEX])
#     --files "F..."    only the faults planted in these files or caught by these test files
#     --changed REV     only the faults whose file or test files differ between REV and the
#                       working tree (git diff --name-only REV); all of them when the table,
#                       this script or tests/lib.sh changed
#     --only REGEX      only the faults whose id matches REGEX (grep -E)
#     --rev REV         plant in REV (git archive) instead of the working tree as it is now
#     --jobs N          make -j (default: the number of cores)
#     --keep            keep the scratch tree (its path is printed) instead of removing it
#     --list            print the selected faults and stop
# The scratch tree (under $TMPDIR) is removed at the end, also on SIGINT/SIGTERM; the real
# tree is never written. Before any fault, the selected tests run once on the unchanged copy
# and must pass (else "caught" would mean nothing: a program not built also fails a test).
# Table format: tests/mutants.txt (its header); docs/mutants.md.
set -u
cd "$(dirname "$0")/.." || exit 2
table=tests/mutants.txt files="" changed="" only="" rev="" jobs=$(nproc 2>/dev/null || echo 2) keep=0 list=0
while [ $# -gt 0 ]; do
    case "$1" in
    --files) files=$2; shift 2 ;;
    --changed) changed=$2; shift 2 ;;
    --only) only=$2; shift 2 ;;
    --rev) rev=$2; shift 2 ;;
    --jobs) jobs=$2; shift 2 ;;
    --table) table=$2; shift 2 ;;
    --keep) keep=1; shift ;;
    --list) list=1; shift ;;
    -h | --help) sed -n '2,/^set -u/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2; exit 2 ;;
    *) echo "mutants.sh: unknown argument $1 (--help lists the options)" >&2; exit 2 ;;
    esac
done
[ -f "$table" ] || { echo "mutants.sh: no fault table $table" >&2; exit 2; }

# ---- the table: id, file, test-file pattern, TEST_ONLY, targets, sed expression ------------
ids=() fpath=() fpat=() fonly=() ftgt=() fsed=()
lineno=0
while IFS= read -r line; do
    lineno=$((lineno + 1))
    case "$line" in '' | '#'*) continue ;; esac
    read -r id path pat tonly tgt expr <<<"$line"
    [ -n "$expr" ] || { echo "mutants.sh: $table:$lineno: fewer than 6 fields" >&2; exit 2; }
    [ -f "$path" ] || { echo "mutants.sh: $table:$lineno: $id: no file $path" >&2; exit 2; }
    ids+=("$id") fpath+=("$path") fpat+=("$pat") fonly+=("$tonly") ftgt+=("$tgt") fsed+=("$expr")
done <"$table"

# the test files of a pattern ("-" = every file)
test_files() { local p=$1 f; [ "$p" = - ] && p=""; for f in tests/cases_*.sh; do case "$f" in *"$p"*) echo "$f" ;; esac; done; }

if [ -n "$changed" ]; then
    touched=$(git diff --name-only "$changed" -- 2>/dev/null) || { echo "mutants.sh: git diff $changed failed" >&2; exit 2; }
    touched+=$'\n'$(git ls-files --others --exclude-standard)
    if grep -qxE "tests/(mutants\.sh|lib\.sh|run\.sh)|$table" <<<"$touched"; then files=""   # the machinery moved: all
    else files=$(echo $touched); [ -n "$files" ] || files=none; fi
fi
sel=()
for k in "${!ids[@]}"; do
    [ -z "$only" ] || grep -Eq -- "$only" <<<"${ids[$k]}" || continue
    if [ -n "$files" ]; then
        hit=0
        for f in $files; do
            [ "$f" = "${fpath[$k]}" ] && hit=1
            test_files "${fpat[$k]}" | grep -qxF -- "$f" && hit=1
        done
        [ $hit = 1 ] || continue
    fi
    sel+=("$k")
done
if [ "$list" = 1 ]; then
    for k in "${sel[@]}"; do printf '%-28s %-26s %s TEST_ONLY=%s\n' "${ids[$k]}" "${fpath[$k]}" "${fpat[$k]}" "${fonly[$k]}"; done
    exit 0
fi
[ ${#sel[@]} -gt 0 ] || { echo "mutants.sh: no fault selected${files:+ (files: $files)}: nothing to do"; exit 0; }

# ---- the scratch copy, removed however this ends ------------------------------------------
# fd 3: the script's stderr, for the traps' messages whatever a step has redirected
exec 3>&2
scratch=$(mktemp -d "${TMPDIR:-/tmp}/nbrlab-mutants.XXXXXX") || exit 2
tree=$scratch/tree child=""
cleanup() {
    # the running step is in its own process group (setsid below): end it and its children
    if [ -n "$child" ]; then kill -TERM -- "-$child" 2>/dev/null || kill -TERM "$child" 2>/dev/null; wait "$child" 2>/dev/null; fi
    if [ "$keep" = 1 ]; then echo "mutants.sh: scratch tree kept: $tree" >&3; else rm -rf "$scratch"; fi
}
trap cleanup EXIT
trap 'echo "mutants.sh: interrupted" >&3; exit 130' INT
trap 'echo "mutants.sh: terminated" >&3; exit 143' TERM
# run a step in its own process group, so that an interrupt can end all of it
step() { setsid "$@" 3>&- & child=$!; wait "$child"; local rc=$?; child=""; return $rc; }

mkdir -p "$tree"
if [ -n "$rev" ]; then
    git archive "$rev" | tar -x -C "$tree" || { echo "mutants.sh: git archive $rev failed" >&2; exit 2; }
    label=$(git rev-parse --short=12 "$rev")
else
    # the working tree as it is: tracked and untracked files that git does not ignore
    git ls-files -z -c -o --exclude-standard | while IFS= read -r -d '' f; do [ -e "$f" ] && printf '%s\0' "$f"; done |
        tar --null -T - -cf - | tar -x -C "$tree" || { echo "mutants.sh: copying the tree failed" >&2; exit 2; }
    label=$(runs/code_rev.sh 2>/dev/null || echo unknown)
fi
echo "$label-mutant" >"$tree/.git-rev"
venv=${NBR_VENV:-$PWD/${BUILD:-build}/venv}
t0=$(date +%s)
echo "mutants: ${#sel[@]} fault(s) of $table, planted one at a time in $tree ($label)"

build_targets() {   # TARGETS (comma-separated precision/program, "-" none): make them in the copy
    local t=$1 list=() x
    [ "$t" = - ] && return 0
    for x in ${t//,/ }; do list+=("build/$x"); done
    step make -C "$tree" -j"$jobs" BUILD=build "${list[@]}" >"$scratch/make.log" 2>&1 ||
        { tail -n 15 "$scratch/make.log" | sed 's/^/      | /'; return 1; }
}
run_tests() {   # PATTERN TEST_ONLY: the suite's output in $scratch/tests.log; sets $failed (FAIL names)
    local p=$1 rc
    [ "$p" = - ] && p=""
    # the checkout's python environment (plots/venv.sh), not a second 280 MB install per copy
    step env -C "$tree" BUILD=build TEST_ONLY="$2" NBR_VENV="$venv" tests/run.sh "$p" >"$scratch/tests.log" 2>&1
    rc=$?
    failed=$(sed -n 's/^FAIL  \([^:]*\):.*/\1/p' "$scratch/tests.log")
    return $rc
}
counts() { tail -n 1 "$scratch/tests.log"; }

# ---- the baseline: every selected selection passes on the unchanged copy --------------------
all_tgt=$(for k in "${sel[@]}"; do echo "${ftgt[$k]//,/ }"; done | tr ' ' '\n' | grep -v '^-$' | sort -u | paste -sd, -)
echo "building: ${all_tgt:--}"
build_targets "${all_tgt:--}" || { echo "mutants.sh: the unchanged copy does not build" >&2; exit 2; }
declare -A base_ok=()
for k in "${sel[@]}"; do
    key="${fpat[$k]} ${fonly[$k]}"
    [ -n "${base_ok[$key]:-}" ] && continue
    run_tests "${fpat[$k]}" "${fonly[$k]}"; rc=$?
    if [ $rc != 0 ] || [ -n "$failed" ]; then
        base_ok[$key]=no
        echo "baseline: tests $key fail without any fault ($(counts)): ${failed:-exit $rc}"
    else
        base_ok[$key]=yes
        echo "baseline: tests $key: $(counts)"
    fi
done

# ---- the faults ---------------------------------------------------------------------------
caught=0 survived=0 errors=0 unreached=0 summary=() i=0
for k in "${sel[@]}"; do
    id=${ids[$k]} path=${fpath[$k]} f=$tree/${fpath[$k]} s0=$(date +%s) i=$((i + 1))
    echo "[$i/${#sel[@]}] $id ($path)"
    result=""
    if [ "${base_ok["${fpat[$k]} ${fonly[$k]}"]}" = no ]; then
        result="ERROR: its tests fail without the fault"
    else
        cp -p "$f" "$scratch/orig"
        if ! sed -i -e "${fsed[$k]}" "$f" 2>"$scratch/sed.log"; then
            result="ERROR: sed failed: $(head -1 "$scratch/sed.log")"
        elif cmp -s "$f" "$scratch/orig"; then
            result="ERROR: the sed changed nothing in $path (the code moved? update $table)"
        else
            diff "$scratch/orig" "$f" | grep '^[<>]' | head -n 4 | cut -c1-110 | sed 's/^/      /'
            if ! build_targets "${ftgt[$k]}"; then
                result="ERROR: the build failed with the fault planted"
            else
                run_tests "${fpat[$k]}" "${fonly[$k]}"; rc=$?
                set -- $failed
                # a survivor runs its tests once more: caught then, its tests miss the fault
                # only at times (a race, the machine's load), which is said, not hidden
                again=""
                if [ $# = 0 ] && [ $rc = 0 ]; then
                    run_tests "${fpat[$k]}" "${fonly[$k]}"; rc=$?
                    set -- $failed
                    [ $# -gt 0 ] && again=" (on a second run only: FLAKY)"
                fi
                if [ $# -gt 0 ]; then
                    result="caught by $(printf '%s, ' "${@:1:3}")"
                    result=${result%, }
                    [ $# -le 3 ] || result="caught by $# tests: ${result#caught by }, ..."
                    result+=$again
                elif [ $rc != 0 ]; then result="ERROR: the tests ended with exit $rc and no FAIL line"
                elif grep -qE '^0 passed, 0 failed, [1-9]' "$scratch/tests.log" &&
                    ! grep '^SKIP ' "$scratch/tests.log" | grep -qv 'this CPU lacks'; then
                    # every test skipped as this CPU lacks the instructions (an AVX-512 loop):
                    # the fault's code does not run here, so nothing could catch it; any other
                    # reason to skip (a missing tool) stays a survivor
                    result="NOT REACHED ($(counts): this CPU lacks the instructions)"
                elif grep -q '^0 passed, 0 failed' "$scratch/tests.log"; then result="SURVIVED (no test matches)"
                else result="SURVIVED ($(counts))"; fi
            fi
        fi
        # restore (a new mtime, so make rebuilds) and rebuild, so that no planted program is
        # left for a later fault's tests
        cp "$scratch/orig" "$f"
        [ "$k" = "${sel[-1]}" ] || build_targets "${ftgt[$k]}" >/dev/null ||
            { echo "mutants.sh: the restored copy does not build" >&2; exit 2; }
    fi
    case "$result" in
    caught*) caught=$((caught + 1)) ;; SURVIVED*) survived=$((survived + 1)) ;;
    "NOT REACHED"*) unreached=$((unreached + 1)) ;; *) errors=$((errors + 1)) ;;
    esac
    summary+=("$(printf '%-26s -> %s' "$id" "$result")")
    echo "    -> $result  [$(( $(date +%s) - s0 )) s]"
done

echo
echo "mutants: ${#sel[@]} fault(s) in $(( $(date +%s) - t0 )) s: $caught caught, $survived survived, $errors error(s)$(
    [ $unreached = 0 ] || echo ", $unreached not reached on this CPU")"
printf '  %s\n' "${summary[@]}"
# the ones to act on last, where the end of a cut log still shows them
bad=$(printf '%s\n' "${summary[@]}" | grep -E -e '-> (SURVIVED|ERROR|NOT REACHED)' -e 'FLAKY' || true)
[ -z "$bad" ] || { echo "mutants: to look at:"; echo "$bad" | sed 's/^/  /'; }
[ $errors = 0 ] || exit 2
[ $survived = 0 ] || exit 1
exit 0
