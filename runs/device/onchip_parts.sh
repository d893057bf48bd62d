#!/usr/bin/env bash
# runs/device/onchip_parts.sh BASE_TAR - gpu-onchip split into kernels/cuda/onchip_* with its
# knobs declared to the autotuner, checked in one device call from this tree's root (about 7
# minutes on an H200 with the default PARTS):
#   build    here: float and double gpu-onchip, double gpu-layer (same-rebuilds); the base
#            (BASE_TAR = git archive of the revision before; BASE_REV names it): float gpu-onchip;
#            a copy of this tree with onchip-autotune's planted fault (the block tier's refusal
#            removed, a block that does not fit launched): double gpu-onchip
#   tests    tests/run.sh 56_onchip: every tier, onchip-autotune-* among them
#   plant    the planted copy's onchip-autotune-double: must FAIL
#   tune     one search at lammps-lj 512 (float, --decide device): wall time, trials, result
#   speed    runs/compare.sh build:BASE build:HERE onchip (interleaved pairs, 3% threshold)
#   tests50  (not by default) GPU_TEST_VARIANTS=gpu-onchip tests/run.sh 50_gpu
#   sanitize (not by default) runs/device/onchip_cluster.sh's compute-sanitizer stage
# Everything under $OUT, packed into $OUT/onchip-parts.tgz at the end.
# Settings: runs/device/onchip_parts.sh --help (flags, or the environment: PARTS=... BASE_REV=...).
set -u
. "$(dirname "$0")/lib.sh"
settings_begin "runs/device/onchip_parts.sh [settings] BASE_TAR" "gpu-onchip split into kernels/cuda/onchip_*, checked against BASE_TAR (git archive of the revision before)"
setting OUT /tmp/onchip-parts-out "where onchip-parts.tgz lands (the device tool's \$OUT)"
setting PARTS "tests plant tune speed" "the parts (also tests50, sanitize)"
setting JOBS 16 "make -j"
setting PAIRS 9 "compare.sh's --min-pairs (9: the fewest with which its test can call one of 13 cases slower)"
setting BASE_REV base "the base's name in .git-rev"
settings_parse_args "$@"
[ ${#SETTINGS_ARGS[@]} = 1 ] || { echo "onchip_parts.sh: one BASE_TAR (git archive of the base), not ${#SETTINGS_ARGS[@]} arguments (--help)" >&2; exit 2; }
base_tar=${SETTINGS_ARGS[0]}
export PATH=$PATH:/usr/local/cuda/bin NBR_LOCK=none
mkdir -p "$OUT/logs"
base=/tmp/onchip-parts-base plant=/tmp/onchip-parts-plant J=$JOBS want=" $PARTS "
t0=$(date +%s)
say() { echo "[$(( $(date +%s) - t0 )) s] $*" | tee -a "$OUT/summary.txt"; }
pack() { tar czf /tmp/onchip-parts.tgz -C "$OUT" . && find "$OUT" -mindepth 1 -delete && mv /tmp/onchip-parts.tgz "$OUT/"; }
rm -rf "$base" "$plant" && mkdir -p "$base" "$plant"
tar xf "$base_tar" -C "$base" && echo "$BASE_REV" >"$base/.git-rev"
tar cf - --exclude=./build --exclude='./build-*' . | tar xf - -C "$plant"
sed -i -e 's/if (oc->tier_flag == TIER_BLOCK \&\& !fits)/if (0)/' \
    -e 's/oc->tier_flag == TIER_GRID || !fits ? TIER_GRID/oc->tier_flag == TIER_GRID ? TIER_GRID/' \
    "$plant/kernels/cuda/onchip_tier.cu"
grep -q 'if (0)' "$plant/kernels/cuda/onchip_tier.cu" || say "the plant did not apply"
say "here $(cat .git-rev 2>/dev/null), base $(cat "$base/.git-rev")"
(cd "$base" && make -j$((J / 4)) build/float/gpu-onchip >"$OUT/logs/build-base.log" 2>&1) & pb=$!
(cd "$plant" && make -j$((J / 4)) build/double/gpu-onchip >"$OUT/logs/build-plant.log" 2>&1) & pp=$!
make -j$((J / 2)) build/float/gpu-onchip build/double/gpu-onchip build/double/gpu-layer >"$OUT/logs/build.log" 2>&1
rn=$?; wait $pb; rb=$?; wait $pp; rp=$?
say "builds: here $rn, base $rb, plant $rp"
[ $rn = 0 ] || { tail -20 "$OUT/logs/build.log"; pack; exit 1; }
if [[ $want == *" tests "* ]]; then
    tests/run.sh 56_onchip >"$OUT/logs/tests-56.log" 2>&1
    say "tests 56_onchip: $(grep -E 'passed,' "$OUT/logs/tests-56.log")"
    grep -E '^FAIL' "$OUT/logs/tests-56.log" | tee -a "$OUT/summary.txt"
    cp build/test-logs/onchip-autotune-*.log "$OUT/logs/" 2>/dev/null
fi
if [[ $want == *" plant "* ]] && [ $rp = 0 ]; then
    (cd "$plant" && GPU_TEST_PRECISIONS=double TEST_ONLY='^onchip-autotune' tests/run.sh 56_onchip) \
        >"$OUT/logs/plant.log" 2>&1
    say "plant (must FAIL): $(grep -E '^(PASS|FAIL)' "$OUT/logs/plant.log" | tr '\n' ' ')"
fi
if [[ $want == *" tune "* ]]; then
    a=$(date +%s.%N)
    build/float/gpu-onchip --system lammps-lj --lattice sc --ne 8 --decide device --autotune --autotune-cache '' \
        --autotune-budget 60 --steps 5500 --equil 500 --avg-block 500 --sample-every 100 --csv "$OUT/tune.csv" \
        >"$OUT/logs/tune.log" 2>&1
    rc=$?
    say "tune lammps-lj 512: exit $rc, $(awk -v a="$a" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }') s wall"
    grep -E '^# autotune(-memory)?:|energy E/N' "$OUT/logs/tune.log" | tail -4 | tee -a "$OUT/summary.txt"
    say "refused trials: $(grep -c 'failed (exit 3)' "$OUT/logs/tune.log"), other failures: $(grep 'failed (exit' "$OUT/logs/tune.log" | grep -vc 'exit 3)')"
fi
if [[ $want == *" speed "* ]] && [ $rb = 0 ]; then
    runs/compare.sh --min-pairs "$PAIRS" --max-pairs 10 --budget 240 --threshold 3 --no-plot --out "$OUT/compare" \
        --name onchip "build:$base/build" build:build onchip >"$OUT/logs/compare.log" 2>&1
    say "compare exit $? (0: no slowdown beyond 3%)"
    cat "$OUT/compare/onchip.txt" >>"$OUT/summary.txt" 2>/dev/null
fi
if [[ $want == *" tests50 "* ]]; then
    GPU_TEST_VARIANTS=gpu-onchip tests/run.sh 50_gpu >"$OUT/logs/tests-50.log" 2>&1
    say "tests 50_gpu (gpu-onchip): $(grep -E 'passed,' "$OUT/logs/tests-50.log")"
fi
if [[ $want == *" sanitize "* ]]; then
    STAGES=sanitize OUT="$OUT/sanitize" runs/device/onchip_cluster.sh >"$OUT/logs/sanitize.log" 2>&1
    say "sanitize: $(grep -cE 'ERROR SUMMARY: 0 errors' "$OUT/logs/sanitize.log") clean of $(grep -c '^### exit' "$OUT/logs/sanitize.log")"
fi
cat "$OUT/summary.txt"
pack
