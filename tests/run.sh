#!/usr/bin/env bash
# tests/run.sh - the test suite (make test). Runs every tests/cases_*.sh in name order and
# ends with the line "N passed, M failed, K skipped". Exit code 1 if anything failed.
#   tests/run.sh [PATTERN]   only case files whose name contains PATTERN
cd "$(dirname "$0")/.." || exit 1
pattern=${1:-}
. tests/lib.sh
for f in tests/cases_*.sh; do
    case "$f" in *"$pattern"*) ;; *) continue ;; esac
    printf '== %s\n' "$f"
    . "$f"
done
echo
[ ${#T_FAILED_NAMES[@]} -gt 0 ] && printf 'failed: %s\n' "${T_FAILED_NAMES[*]}"
echo "$T_PASSED passed, $T_FAILED failed, $T_SKIPPED skipped"
[ "$T_FAILED" -eq 0 ]
