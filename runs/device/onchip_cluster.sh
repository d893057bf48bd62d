#!/usr/bin/env bash
# runs/device/onchip_cluster.sh - gpu-onchip's cluster tier on the device, in stages (STAGES,
# default "build tests plant sanitize sweep"); everything under $OUT, a stage cut short by the
# call's limit still leaves what it wrote (packed into $OUT/onchip-cluster-out.tgz at the end).
#   build     float and double gpu-onchip, gpu-layer (same-rebuilds), float gpu-rumd, and the
#             planted-fault build (build-plant: -DCOMPONENT_PLANT=16)
#   tests     tests/run.sh 56_onchip (TEST_ONLY passes through), then cases_50 for gpu-onchip
#             where CASES50=1
#   plant     the planted build's same-rebuilds cases of the cluster and block tiers (must FAIL)
#   sanitize  compute-sanitizer memcheck (also with a grown capacity), racecheck, synccheck on
#             --tier cluster; the three on --list cells in the cluster and the grid tier (its
#             staged build), memcheck and racecheck on the grid's unstaged build
#   sweep     one run per point: --cluster and --tp at lammps-lj 512 / 1728 / 4096 and SP 4096,
#             the block and grid tiers' defaults beside (float)
set -u
. "$(dirname "$0")/lib.sh"
settings_begin "runs/device/onchip_cluster.sh [settings]" "gpu-onchip's cluster tier on the device, in stages"
setting OUT /tmp/onchip-cluster-out "where the logs land, one archive (the device tool's \$OUT)"
setting STAGES "build tests plant sanitize sweep" "the stages (also table: runs/device/onchip.sh into OUT)"
setting CASES50 "" "set: the tests stage also runs cases_50 for gpu-onchip"
setting SWEEP_STEPS 3000 "the sweep's timed steps"
setting SWEEP_POINTS "lammps-lj:8 lammps-lj:12 lammps-lj:16 sp:16" "the sweep's system:ne points"
setting SWEEP_C "8 16" "the sweep's --cluster values"
setting SWEEP_TP "4 8 16" "the sweep's --tp values"
setting DIAG "" "set: the sweep adds lammps-lj 512's rebuild and chunk shares"
settings_parse "$@"
cd "$(dirname "$0")/../.."
mkdir -p "$OUT"
export PATH=$PATH:/usr/local/cuda/bin
rev=$(cat .git-rev 2>/dev/null || git describe --always --abbrev=12)
# table: runs/device/onchip.sh (the interleaved rounds) into $OUT
has() { grep -qw "$1" <<<"$STAGES"; }
if has build; then
    { time make -j16 build/float/gpu-onchip build/double/gpu-onchip build/double/gpu-layer build/float/gpu-layer \
        build/float/gpu-rumd; } >"$OUT/build.log" 2>&1 || { tail -30 "$OUT/build.log"; exit 1; }
    { time make -j16 BUILD=build-plant NVOPT="-O3 -DCOMPONENT_PLANT=16" build-plant/double/gpu-onchip; } \
        >>"$OUT/build.log" 2>&1 || { tail -30 "$OUT/build.log"; exit 1; }
    mkdir -p build-plant/double && ln -sf "$PWD/build/double/gpu-layer" build-plant/double/gpu-layer
    tail -3 "$OUT/build.log"
fi
if has tests; then
    log=$OUT/onchip-tests-$rev.log
    echo "# gpu-onchip tests on one H200 at $rev: tests/run.sh 56_onchip${CASES50:+; GPU_TEST_VARIANTS=gpu-onchip tests/run.sh 50_gpu}" >"$log"
    tests/run.sh 56_onchip >>"$log" 2>&1
    [ -n "$CASES50" ] && GPU_TEST_VARIANTS=gpu-onchip tests/run.sh 50_gpu >>"$log" 2>&1
    grep -E "^(FAIL|SKIP)|passed," "$log" | head -40
    cp -r build/test-logs "$OUT/test-logs" 2>/dev/null
    tar czf "$OUT/test-logs.tgz" -C "$OUT" test-logs 2>/dev/null && rm -rf "$OUT/test-logs"
fi
if has plant; then
    log=$OUT/onchip-plant-$rev.log
    echo "# the planted fault (-DCOMPONENT_PLANT=16: block tier warp 0's max v^2, cluster tier rank 0's) at $rev" >"$log"
    BUILD=build-plant TEST_LOG_DIR=/tmp/plant-logs TEST_ONLY='same-rebuilds' tests/run.sh 56_onchip >>"$log" 2>&1
    grep -E "^(PASS|FAIL)|passed," "$log"
fi
if has sanitize; then
    log=$OUT/sanitizer-onchip-cluster-$rev.log
    : >"$log"
    run_san() {   # NAME TOOL ARGS...
        local name=$1 tool=$2; shift 2
        echo "### compute-sanitizer --tool $tool $name at $rev: $*" >>"$log"
        timeout 120 compute-sanitizer --tool "$tool" --error-exitcode 9 "$@" >>"$log" 2>&1
        echo "### exit $?" >>"$log"
    }
    a="build/double/gpu-onchip --ne 6 --decide device --tier cluster --steps 40 --equil 20 --sample-every 20 --stage-reps 0 --check --quiet"
    run_san memcheck memcheck $a
    run_san memcheck-grow memcheck $a --grow-from 10
    run_san memcheck-c8-float memcheck ${a/double/float} --cluster 8
    run_san racecheck racecheck $a
    run_san synccheck synccheck $a
    # the cell build on chip (SP ne 6: 3 cells per axis), in the cluster and the grid tier
    for t in cluster grid; do
        c="${a/cluster/$t} --list cells"
        run_san memcheck-cells-$t memcheck $c
        run_san racecheck-cells-$t racecheck $c
        run_san synccheck-cells-$t synccheck $c
    done
    # the grid without its staged build (8000 atoms: the positions do not fit every resident block)
    u="build/double/gpu-onchip --system lammps-lj --lattice sc --ne 20 --decide device --tier grid --list cells --steps 20 --equil 10 --sample-every 10 --stage-reps 0 --quiet"
    run_san memcheck-cells-grid-unstaged memcheck $u
    run_san racecheck-cells-grid-unstaged racecheck $u
    grep -E "^###|ERROR SUMMARY" "$log"
fi
if has table; then
    OUT=$OUT BUILD=build runs/device/onchip.sh >"$OUT/onchip-table.log" 2>&1
    tail -30 "$OUT/onchip-table.log"
fi
if has sweep; then
    csv=$OUT/onchip-cluster-sweep.csv
    rm -f "$csv"
    common="--decide device --sample-every 100 --steps $SWEEP_STEPS --equil 1000 --stage-reps 0 --quiet"
    one() {   # TAG ARGS...
        local tag=$1; shift
        build/float/gpu-onchip "$@" $common --csv "$csv" --tag "$tag" >"$OUT/last.out" 2>&1 || echo "$tag failed: $(tail -1 "$OUT/last.out")"
    }
    for pt in $SWEEP_POINTS; do
        set -- ${pt%%:*} ${pt##*:}
        lat=""; [ $1 = lammps-lj ] && lat="--lattice sc"
        for C in $SWEEP_C; do
            for tp in $SWEEP_TP; do
                one "csweep-$1-ne$2-c$C-tp$tp" --system $1 $lat --ne $2 --tier cluster --cluster $C --tp $tp
            done
        done
        one "csweep-$1-ne$2-auto" --system $1 $lat --ne $2
        [ $2 = 8 ] && one "csweep-$1-ne$2-block" --system $1 $lat --ne $2 --tier block
        one "csweep-$1-ne$2-grid" --system $1 $lat --ne $2 --tier grid
    done
    if [ -n "$DIAG" ]; then   # lammps-lj 512, cluster defaults: the rebuilds' share (skin) and the chunks' (sampling)
        for d in 0.3 0.6 1.0; do one "cdiag-delta$d" --system lammps-lj --lattice sc --ne 8 --tier cluster --delta $d; done
        for d in 0.3 0.6; do one "cdiag-grid-delta$d" --system lammps-lj --lattice sc --ne 8 --tier grid --delta $d; done
        build/float/gpu-onchip --system lammps-lj --lattice sc --ne 8 --tier cluster --decide device --sample-every 1000 \
            --steps 6000 --equil 1000 --stage-reps 0 --quiet --csv "$csv" --tag cdiag-every1000 >"$OUT/last.out" 2>&1
        for C in 2 4; do one "cdiag-c$C" --system lammps-lj --lattice sc --ne 8 --tier cluster --cluster $C; done
        one "cdiag-c16-tp32" --system lammps-lj --lattice sc --ne 8 --tier cluster --tp 32
    fi
    awk -F, 'NR == 1 { for (k = 1; k <= NF; k++) c[$k] = k; next }
        { printf "%-36s %6d %6s %10.2f %s\n", $c["tag"], $c["n"], $c["tp"], $c["us_per_step"], $c["status"] }' <(python3 runs/csvq.py wide "$csv") \
        | tee "$OUT/onchip-cluster-sweep.txt"
fi
# the device tool brings back eight files at most: everything as one archive
rm -f "$OUT/last.out"
( cd "$OUT" && tar czf /tmp/onchip-cluster-out.tgz . && find . -mindepth 1 -delete && mv /tmp/onchip-cluster-out.tgz . )
