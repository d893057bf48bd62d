#!/usr/bin/env bash
# runs/device/all.sh - one device call for a whole session's GPU work, on nvidia-h200-x2 (a
# session has 30 device-minutes, one command at most 10): build; gpu-dd's NVSHMEM/NCCL build;
# the whole test suite at once (TEST_JOBS, the GPU file split per variant and precision);
# then the timings, one part after another with nothing beside them, each under its own time
# limit. Everything lands in $OUT/results.tgz, re-packed after every part, so a part cut off
# by the call's limit still leaves the parts before it.
# The parts (PARTS, default build suite dd coulomb gamdpy salt; also ddprobe: gpu-dd at 1M atoms
# on 2 GPUs, host against device decisions with and without the look-ahead, side by side;
# tables: GPU_LOOP=device runs/gpu_tables.sh; perf: COULOMB_PARTS=perf runs/device/coulomb.sh;
# smalln: runs/device/smalln.sh; launch: runs/device/launch.sh; ddbest: runs/dd_scaling.sh at 1M and the targets' sizes;
# sanitize: compute-sanitizer memcheck and racecheck on the fused leapfrog, --tp, gpu-dd's sort
# and --dd-newton; ddprof: gpu-dd's rebuild phases, --dd-profile on; rumdfigs: runs/rumd_figs.sh)
# and their time limits: runs/device/all.sh --help (flags, or the environment: PARTS=... DD_S=...;
# the settings of the drivers the parts run reach them from the environment). Carry .cl (the
# OpenCL .debs, runs/device/coulomb.sh) and .whl (gamdpy's wheel, runs/device/gamdpy.sh).
# Run it on the committed HEAD, never the working tree: here runs/device/snap.sh, then the call
#   runs/device/snap.sh --run runs/device/all.sh   carrying .snap.tar, .git-rev, .cl (and .whl)
set -u
. "$(dirname "$0")/lib.sh"
settings_begin "runs/device/all.sh [settings]" "a whole session's GPU work in one device call (nvidia-h200-x2): build, the suite, the timing parts"
setting OUT /tmp/all-out "where results.tgz lands (the device tool's \$OUT)"
setting PARTS "build suite dd coulomb gamdpy salt" "the parts, space-separated (also ddprobe tables perf smalln launch ddbest sanitize ddprof rumdfigs)"
setting SUITE_S 480 "seconds for the suite"
setting DD_S 90 "seconds for the dd part (runs/device/dd.sh's timing)"
setting COULOMB_S 80 "seconds for the coulomb part"
setting COULOMB_WATER "43239 239922 630828" "the coulomb part's water boxes (its WATER_SIZES)"
setting COULOMB_PARTS "opencl tables" "the coulomb part's COULOMB_PARTS"
setting SALT_S 24 "seconds for the salt part"
setting GAMDPY_S 65 "seconds for the gamdpy part"
setting GAMDPY_PARTS "ours gamdpy-default" "the gamdpy part's PARTS"
setting GAMDPY_SIZES "sc:8 sc:16 fcc:64" "the gamdpy part's SIZES"
setting TABLES_S 360 "seconds for the tables part"
setting PERF_S 150 "seconds for the perf part (set: also runs/device/coulomb.sh's PERF_S cap)"
setting SMALLN_S 160 "seconds for the smalln part"
setting LAUNCH_S 120 "seconds for the launch part (runs/device/launch.sh)"
setting DDBEST_S 120 "seconds for the ddbest part"
setting DDBEST_NE_SP "100 200" "ddbest's DD_NE_SP"
setting DDBEST_NE_LJ "100 159" "ddbest's DD_NE_LJ"
setting DDBEST_BACKENDS "p2p nvshmem" "ddbest's DD_BACKENDS"
setting DDBEST_GRAPH "off on" "ddbest's DD_GRAPH"
setting SANITIZE_S 160 "seconds for the sanitize part"
setting SANITIZE_RUNS 'float/gpu-layer $dev --graph cond --leapfrog fused --tp 4;double/gpu-old $dev --graph on --leapfrog fused --tp 2;double/gpu-dd --reorder 10;double/gpu-dd --dd-newton on --comm p2p' \
    "the sanitize runs, ';'-separated, each 'precision/variant flags...' (\$dev: the device loop's flags)"
setting SANITIZE_TOOLS "memcheck racecheck" "the compute-sanitizer tools"
setting DDPROF_COMMS p2p "ddprof's multi-rank backends"
setting DDPROF_NP "1 2" "ddprof's rank counts"
setting DDPROF_ROUNDS 1 "ddprof's rounds"
setting DDPROF_BASE "" "ddprof: a second revision's exported tree, built and run beside"
setting RUMDFIGS_S 500 "seconds for the rumdfigs part"
setting RUMD_PARTS "fig6 fig7 rapaport" "rumdfigs: runs/rumd_figs.sh's PARTS"
setting RUMD_SIZES "" "rumdfigs: runs/rumd_figs.sh's SIZES (empty: its default)"
settings_parse "$@"
# set for all.sh, PERF_S is runs/device/coulomb.sh's cap too (it reads it from the environment)
[ "$(settings_source PERF_S)" = default ] || export PERF_S
export PATH=$PATH:/usr/local/cuda/bin NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1 PYTHONUNBUFFERED=1
# no PyPI there: plots/venv.sh fails at once instead of retrying, its tests SKIP
export PIP_NO_INDEX=1 PIP_DISABLE_PIP_VERSION_CHECK=1 T80_NO_PLOTS=1 NBR_LOCK=none
R=/tmp/nbrlab-results
mkdir -p "$R" "$OUT"
t0=$(date +%s)
el() { echo $(( $(date +%s) - t0 )); }
# What a part started must not outlive it: a part cut by its time limit can leave programs
# running (mpirun's ranks sit in process groups of their own), and they would share the GPU with
# the next part's timings (at 8accbc3 the first ddprof round ran beside what the cut suite and
# Coulomb parts left: its phases up to 2x the second round's). After every part (pack), any mpirun or program
# of a build/ tree still running is stopped and named in the summary.
reap() {
    local pids
    pids=$(pgrep -f '(^|[ /])(mpirun|orted|prted)( |$)|(^|[ /])build[^ ]*/(float|double)/' | grep -vx "$$")
    [ -n "$pids" ] || return 0
    echo "[$(el) s] stopped, left running by the part before: $(ps -o pid=,args= -p "$(echo $pids | tr ' ' ',')" 2>/dev/null |
        cut -c1-80 | tr '\n' ';')" | tee -a "$R/summary.txt"
    kill -9 $pids 2>/dev/null
    sleep 2
}
pack() { reap; cp -r build/test-logs/units "$R/test-units" 2>/dev/null; tar czf "$OUT/results.tgz" -C "$R" . 2>/dev/null; }
# PARTS is also the name drivers (runs/rumd_figs.sh, runs/device/gamdpy.sh) read: taken here and
# unset, so the suite's driver tests do not inherit it
ALL_PARTS=$PARTS; unset PARTS
want() { [[ " $ALL_PARTS " == *" $1 "* ]]; }
say() { echo "[$(el) s] $*" | tee -a "$R/summary.txt"; }

say "revision $(cat .git-rev 2>/dev/null || echo unknown); $(nvidia-smi -L | wc -l) GPU(s)"
if ! make -j16 all >"$R/build.log" 2>&1; then
    tail -30 "$R/build.log"; say "build failed"; pack; exit 1
fi
say "built"
if want build; then
    OUT=$R/dd DD_PART=build runs/device/dd.sh >"$R/dd-build.out" 2>&1
    say "gpu-dd: $(grep -E 'nvshmem:|compiled backends' "$R/dd-build.out" | tr '\n' ' ')"
fi
# the libraries gpu-dd opens (NCCL at run time, NVSHMEM's host library), as dd.sh found them
for lib in "$(grep -m1 'libnccl.so' "$R/dd/probe.txt" 2>/dev/null)" \
           "$(grep -m1 'libnvshmem_device.a$' "$R/dd/probe.txt" 2>/dev/null)"; do
    [ -n "$lib" ] && export LD_LIBRARY_PATH="$(dirname "$lib")${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
done
nvcc -std=c++17 -arch=sm_90 runs/device/probe_graph_cond.cu -o /tmp/probe_cond >/dev/null 2>&1 &&
    timeout 20 /tmp/probe_cond >"$R/probe_graph_cond.txt" 2>&1
pack

if want suite; then
    TEST_JOBS=16 timeout "$SUITE_S" tests/run.sh >"$R/make-test.log" 2>&1
    say "suite (rc $?): $(tail -1 "$R/make-test.log")"
    grep -E '^FAIL' "$R/make-test.log" | head -20 | tee -a "$R/summary.txt"
    # each failed test's whole log (the suite prints its last 8 lines only)
    mkdir -p "$R/failed-logs"
    grep -E '^FAIL' "$R/make-test.log" | sed -E 's/^FAIL  //; s/: (exit code|output lacks|message lacks|stderr has).*//' |
        while IFS= read -r name; do cp "build/test-logs/$name.log" "build/test-logs/$name.out" "$R/failed-logs/" 2>/dev/null; done
    pack
fi
# TEST_ONLY (and NBR_DD_MULTI) were the suite's: the tests later parts run (the coulomb part's
# OpenCL tests) are whole (at 39b2e8e a suite TEST_ONLY left them none)
unset TEST_ONLY
if want dd; then
    OUT=$R/dd DD_PART=timing DD_WALL=$(( $DD_S - 10 )) timeout "$DD_S" runs/device/dd.sh >"$R/dd-timing.out" 2>&1
    say "gpu-dd timing: $(tail -1 "$R/dd-timing.out")"
    pack
fi
if want coulomb && [ -x runs/device/coulomb.sh ]; then
    # the CUDA tests ran in the suite; here NVIDIA OpenCL's set-up and tests, then the tables
    # at three water boxes and the protein (the thesis's sizes span 43 239 ... 630 828)
    OUT=$R/coulomb COULOMB_PARTS="$COULOMB_PARTS" WATER_SIZES="$COULOMB_WATER" \
        COULOMB_BUDGET=$(( $COULOMB_S - 10 )) timeout "$COULOMB_S" runs/device/coulomb.sh >"$R/coulomb.out" 2>&1
    say "coulomb: $(tail -1 "$R/coulomb.out")"
    pack
fi
if want ddprobe; then
    # the same 1M-atom SP run (float, 2 ranks) under each decision, two rounds interleaved
    for round in 1 2; do
        for c in "p2p --decide host" "p2p --decide device" "nvshmem --decide host" "nvshmem --decide device" \
                 "nccl --decide host" "nccl --decide device"; do
            for hz in 1 0; do
                case $c in *device*) ;; *) [ $hz = 0 ] && continue ;; esac
                hzf=$([ $hz = 1 ] && echo on || echo off)
                line=$(timeout 40 mpirun --allow-run-as-root --bind-to none -np 2 build/float/gpu-dd \
                    --comm $c --dd-horizon $hzf --ne 100 --steps 1100 --equil 100 --reduce device --sample-every 100 --stage-reps 0 \
                    --csv "$R/dd_decide.csv" --tag "ddprobe-r$round-${c// /_}-horizon$hz" 2>&1 | grep 'us/atom-step')
                echo "round $round, $c, horizon $hz: ${line:-failed}" | tee -a "$R/dd_decide.txt"
            done
        done
    done
    say "ddprobe: $(wc -l <"$R/dd_decide.txt") runs"
    pack
fi
if want smalln && [ -x runs/device/smalln.sh ]; then
    # gpu-layer at small N, the knobs of the small-N step side by side (runs/device/smalln.sh)
    OUT=$R/smalln timeout "$SMALLN_S" runs/device/smalln.sh >"$R/smalln.out" 2>&1
    say "smalln (rc $?): $(tail -1 "$R/smalln.out")"
    pack
fi
if want launch; then
    # gpu-rumd one launch per stage or per chunk at 512, 4096 and 32 768 atoms (runs/device/launch.sh)
    OUT=$R/launch timeout "$LAUNCH_S" runs/device/launch.sh >"$R/launch.out" 2>&1
    say "launch (rc $?): $(grep -c . "$R/launch/launch.txt" 2>/dev/null) lines"
    pack
fi
if want ddbest; then
    # gpu-dd at the issue's target sizes only (SP 8M, LJ 4M) and 1M, the best modes, host
    # decisions; other DD_* variables of the call (e.g. a knob list) reach runs/dd_scaling.sh
    mkdir -p "$R/ddbest"
    env DD_NE_SP="$DDBEST_NE_SP" DD_NE_LJ="$DDBEST_NE_LJ" DD_OVERLAP=off DD_GRAPH="$DDBEST_GRAPH" \
        DD_DECIDE=host DD_BACKENDS="$DDBEST_BACKENDS" QUICK=1 DD_TIMEOUT=60 \
        DD_BUDGET=$(( $DDBEST_S - 15 )) OUT_DIR="$R/ddbest" LOGDIR="$R/ddbest/logs" \
        timeout "$DDBEST_S" runs/dd_scaling.sh >"$R/ddbest/timing.log" 2>&1
    say "ddbest (rc $?): $(grep -c ',ok,[^,]*$' "$R/ddbest/dd_scaling.csv" 2>/dev/null) rows"
    pack
fi
if want sanitize; then
    # compute-sanitizer memcheck and racecheck on the kernels added since the committed
    # sanitizer logs: the fused leapfrog, the t_p force kernel, gpu-dd's sort by cell and its
    # --dd-newton force halo (one rank: every axis exchanges with itself); a small system each
    # SANITIZE_RUNS (';'-separated, each "precision/variant flags...", $dev expanded) replaces the list
    dev="--decide device --layers device --reorder-at device --reduce device"
    runs=$SANITIZE_RUNS
    IFS=';' read -ra run_list <<<"$runs"
    for run in "${run_list[@]}"; do
        run=${run//\$dev/$dev}
        for tool in $SANITIZE_TOOLS; do
            echo "== $tool: build/$run" >>"$R/sanitizer.log"
            timeout $(( $SANITIZE_S / (2 * ${#run_list[@]}) )) compute-sanitizer --tool $tool --error-exitcode 9 build/$run --ne 10 \
                --steps 120 --equil 20 --sample-every 20 --check --quiet >>"$R/sanitizer.log" 2>&1
            echo "rc=$?" >>"$R/sanitizer.log"
        done
    done
    # racecheck stops gpu-layer whenever --graph cond is on (0c39b75, any integrator): the
    # conditional-node probe alone under it says whether the tool or the program is at fault
    if [ -x /tmp/probe_cond ]; then
        echo "== racecheck: the conditional-node probe (runs/device/probe_graph_cond.cu)" >>"$R/sanitizer.log"
        timeout 60 compute-sanitizer --tool racecheck --error-exitcode 9 /tmp/probe_cond >>"$R/sanitizer.log" 2>&1
        echo "rc=$?" >>"$R/sanitizer.log"
    fi
    say "sanitize: $(grep -c '^rc=0$' "$R/sanitizer.log") of $(grep -c '^rc=' "$R/sanitizer.log") clean; $(grep -h 'ERROR SUMMARY' "$R/sanitizer.log" | sort | uniq -c | tr '\n' ' ')"
    pack
fi
if want ddprof; then
    # gpu-dd's rebuild by phase (--dd-profile on: stream synchronised and ranks aligned at each
    # phase; "skew" the waits for the slowest rank), SP 8M and LJ 4M, DDPROF_NP ranks ("1 2"; more
    # ranks than GPUs share them), DDPROF_COMMS the multi-rank backends, DDPROF_ROUNDS rounds.
    # DDPROF_BASE=DIR: a second source tree (runs/compare.sh --export, carried) built here and
    # run beside the snapshot, the order alternating by round, so two revisions' phases compare
    # within one call. Logs ddprof-<sys>-<np>rank-<comm>-<rev>-r<round>.log; runs/ddprof_table.py
    # tabulates them.
    progs=("$(cat .git-rev 2>/dev/null || echo head)=build/float/gpu-dd")
    if [ -n "$DDPROF_BASE" ]; then
        if make -C "$DDPROF_BASE" -j16 build/float/gpu-dd >"$R/base-build.log" 2>&1; then
            progs=("$(cat "$DDPROF_BASE/.git-rev" 2>/dev/null || echo base)=$DDPROF_BASE/build/float/gpu-dd" "${progs[@]}")
        else
            say "ddprof: DDPROF_BASE did not build ($(tail -1 "$R/base-build.log"))"
        fi
    fi
    ngpu=$(nvidia-smi -L | grep -c '^GPU')
    for round in $(seq 1 "$DDPROF_ROUNDS"); do
        order=("${progs[@]}")
        [ $(( round % 2 )) = 0 ] && [ ${#progs[@]} = 2 ] && order=("${progs[1]}" "${progs[0]}")
        for sys in "sp 200" "lj 159"; do
            set -- $sys
            for np in $DDPROF_NP; do
                for comm in $DDPROF_COMMS; do
                    [ $np = 1 ] && comm=mpi
                    for lp in "${order[@]}"; do
                        label=${lp%%=*} prog=${lp#*=}
                        # a DDPROF_BASE from before the flag (issue 26) reads NBR_DD_PROFILE=1 instead
                        pf=(); "$prog" --help 2>/dev/null | grep -q -- --dd-profile && pf=(--dd-profile on)
                        log=$R/ddprof-$1-${np}rank-$comm-$label-r$round.log
                        NBR_DD_PROFILE=1 timeout 90 mpirun --allow-run-as-root --bind-to none -np $np "$prog" --system $1 --ne $2 \
                            "${pf[@]}" --comm $comm --steps 300 --equil 100 --reduce device --sample-every 100 --stage-reps 0 >"$log" 2>&1
                        say "ddprof $1 $np rank(s) on $(( np < ngpu ? np : ngpu )) GPU(s) $comm $label r$round (rc $?): $(grep -h 'us/atom-step' "$log" | cut -c1-90)"
                        grep -h 'rebuild phases' "$log" | tee -a "$R/summary.txt"
                    done
                    [ $np = 1 ] && break
                done
            done
        done
    done
    pack
fi
if want tables; then
    # appended to the committed results/h200 CSVs of the snapshot (paper-loop rows beside), copied back whole
    GPU_LOOP=device timeout "$TABLES_S" runs/gpu_tables.sh >"$R/gpu_tables.log" 2>&1
    say "tables (rc $?): $(tail -1 "$R/gpu_tables.log")"
    rm -rf "$R/results-h200" && cp -r results/h200 "$R/results-h200"
    pack
fi
if want perf && [ -x runs/device/coulomb.sh ]; then
    OUT=$R/coulomb-perf COULOMB_PARTS=perf timeout "$PERF_S" runs/device/coulomb.sh >"$R/coulomb-perf.out" 2>&1
    say "coulomb perf: $(tail -1 "$R/coulomb-perf.out")"
    pack
fi
if want rumdfigs; then
    # RUMD's Fig. 6, Fig. 7 and Table 2, and Rapaport's systems through gpu-rumd (runs/rumd_figs.sh),
    # into $R/rumd; RUMD_PARTS is that driver's PARTS, RUMD_SIZES its SIZES; AUTO_SIZES, FIG7_SIZES,
    # RAP_SIZES, AUTOTUNE_BUDGET, TARGET and TIMEOUT pass through
    mkdir -p "$R/rumd"
    env PARTS="$RUMD_PARTS" ${RUMD_SIZES:+SIZES="$RUMD_SIZES"} OUT_DIR="$R/rumd" \
        LOGDIR="$R/rumd/logs" timeout "$RUMDFIGS_S" runs/rumd_figs.sh >"$R/rumd/figs.log" 2>&1
    say "rumdfigs (rc $?): $(cat "$R"/rumd/*.csv 2>/dev/null | grep -c ',ok,[^,]*$') rows ok; $(grep -c FAILED "$R/rumd/figs.log") failed"
    pack
fi
if want salt; then
    # RUMD's molten salt at N = 1 000 000 (--ne 100 of the rock-salt lattice): gpu-layer and
    # gpu-rumd running ahead, float; the issue's target is <= 1.0 ns per atom-step
    for prog in "gpu-layer --layers device --reorder-at device --reduce device --read ldg --graph on" \
                "gpu-rumd --graph on"; do
        set -- $prog
        timeout $(( $SALT_S / 2 )) build/float/"$@" --system salt --ne 100 --steps 300 --equil 100 \
            --decide device --sample-every 100 --stage-reps 5 --csv "$R/salt.csv" --tag "salt-$1" \
            >>"$R/salt.log" 2>&1 || say "salt $1 failed (rc $?)"
    done
    say "salt: $(grep -h 'us/atom-step' "$R/salt.log" | cut -c1-110 | tr '\n' ';')"
    pack
fi
if want gamdpy && [ -x runs/device/gamdpy.sh ]; then
    # nbrlab's defaults and gamdpy's default plan side by side at three sizes (its autotuner
    # recompiles per trial: a call of its own, runs/device/gamdpy.sh PARTS=gamdpy-auto)
    OUT=$R/gamdpy PARTS="$GAMDPY_PARTS" SIZES="$GAMDPY_SIZES" \
        TOTAL=$(( $GAMDPY_S - 5 )) GAMDPY_TIMEOUT=30 \
        timeout "$GAMDPY_S" runs/device/gamdpy.sh >"$R/gamdpy.out" 2>&1
    say "gamdpy: $(tail -1 "$R/gamdpy.out")"
    pack
fi
say "done"
pack
