#!/usr/bin/env bash
# tests/run.sh - the test suite (make test). Runs every tests/cases_*.sh in name order and
# ends with the line "N passed, M failed, K skipped". Exit code 1 if anything failed.
#   tests/run.sh [PATTERN]   only case files whose name contains PATTERN
#   TEST_JOBS=N              run N case files at once (default 1: one after the other); a file
#                            with the line "# test-units: per-gpu-program" is split per GPU
#                            variant and precision (GPU_TEST_VARIANTS, GPU_TEST_PRECISIONS), so on a
#                            machine with cores to spare the suite takes as long as its
#                            longest unit, not their sum. Output is still printed in order.
cd "$(dirname "$0")/.." || exit 1
pattern=${1:-}
jobs=${TEST_JOBS:-1}
. tests/lib.sh
# The drivers' settings come from the cases, never from the caller's environment: a device call
# exports OUT, which a driver declares, and every other driver then names it on stderr. The
# build, the benchmark lock and the revisions' trees are where the caller says (the drivers
# share them); the OpenCL platform (CL_PLATFORM=1 make test, docs/device.md) reaches the cases
# as TEST_CL_PLATFORM.
export TEST_CL_PLATFORM=${CL_PLATFORM:-0}
for _v in $(grep -hoE '^[[:space:]]*setting(_switch)? [A-Z][A-Z0-9_]*' runs/*.sh runs/device/*.sh | awk '{ print $2 }' | sort -u); do
    case $_v in BUILD | NBR_LOCK | NBR_WT_ROOT) ;; *) unset "$_v" ;; esac
done
unset _v

files=()
for f in tests/cases_*.sh; do
    case "$f" in *"$pattern"*) files+=("$f") ;; esac
done

if [ "$jobs" -le 1 ]; then
    for f in "${files[@]}"; do
        printf '== %s\n' "$f"
        . "$f"
    done
else
    # units: "file|gpu-variant" (the GPU file, one per built variant) or "file|"
    units=()
    for f in "${files[@]}"; do
        # a file that declares "# test-units: per-gpu-program" runs once per GPU program and precision
        if have_gpu && grep -qx '# test-units: per-gpu-program' "$f"; then
            for b in "$BUILD"/double/gpu-*; do
                [ -x "$b" ] || continue
                [ -n "${GPU_TEST_VARIANTS:-}" ] && ! grep -qw -- "${b##*/}" <<<"$GPU_TEST_VARIANTS" && continue
                for prec in double float; do units+=("$f|${b##*/} $prec"); done
            done
        else
            units+=("$f|")
        fi
    done
    # each unit's output in $TEST_LOG_DIR/units/<k> (kept: a suite cut short by a time limit
    # still shows what ran), <k>.done once it has finished
    out=$TEST_LOG_DIR/units
    rm -rf "$out"; mkdir -p "$out"
    k=0
    for u in "${units[@]}"; do
        while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do wait -n; done
        f=${u%|*} v=${u#*|}
        r=$out/$(printf %03d $k)
        { ( T_PASSED=0 T_FAILED=0 T_SKIPPED=0 T_FAILED_NAMES=()
            [ -n "$v" ] && export GPU_TEST_VARIANTS=${v% *} GPU_TEST_PRECISIONS=${v#* }
            printf '== %s%s\n' "$f" "${v:+ ($v)}"
            . "$f"
            echo "__counts $T_PASSED $T_FAILED $T_SKIPPED ${T_FAILED_NAMES[*]}" ) >"$r" 2>&1
          touch "$r.done"; } &
        k=$((k + 1))
    done
    # printed in order, each as soon as it and the ones before it have finished
    for ((j = 0; j < k; j++)); do
        r=$out/$(printf %03d $j)
        while [ ! -e "$r.done" ]; do sleep 1; done
        grep -v '^__counts ' "$r"
        # a unit that exited before its counts (a case file calling exit) counts as one failure
        read -r _ p fl s names < <(grep '^__counts ' "$r" || echo "__counts 0 1 0 died:$(head -1 "$r" | cut -d' ' -f2)")
        T_PASSED=$((T_PASSED + p)) T_FAILED=$((T_FAILED + fl)) T_SKIPPED=$((T_SKIPPED + s))
        [ -n "$names" ] && T_FAILED_NAMES+=($names)
    done
fi
echo
[ ${#T_FAILED_NAMES[@]} -gt 0 ] && printf 'failed: %s\n' "${T_FAILED_NAMES[*]}"
echo "$T_PASSED passed, $T_FAILED failed, $T_SKIPPED skipped"
[ "$T_FAILED" -eq 0 ]
