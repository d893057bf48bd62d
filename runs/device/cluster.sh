#!/usr/bin/env bash
# runs/device/cluster.sh - gpu-cluster's work in one device call: build, --check over the list
# shapes, systems and decision paths, the GPU suite's groups for gpu-cluster, and lammps-lj /
# Rapaport timings beside gpu-layer and gpu-rumd (float, device loop, graphs), each part under
# its own time limit, logs and CSVs into $OUT (the profile part packs its files into profile.tgz:
# a device call returns 8 files).
#   PARTS="build check tests time" SIZES="fcc:64" SHAPES="4x1 8x1 8x4" runs/device/cluster.sh
# Run it on a committed revision (runs/device/snap.sh) when its rows are to be kept.
set -u
. "$(dirname "$0")/lib.sh"
settings_begin "runs/device/cluster.sh [settings]" "gpu-cluster's checks and timings in one device call"
setting OUT /tmp/cluster-out "where the logs and CSVs land (the device tool's \$OUT)"
setting PARTS "build check tests time" "the parts, space-separated (also cases, stages, profile)"
setting SHAPES "4x1 8x1 4x4 8x4 8x8" "the list shapes --icluster x --jcluster the check part runs"
setting TIME_SHAPES "4x1 8x1 8x4" "the shapes the time part runs"
setting PRUNES "0.3:0" "gpu-cluster's outer shells and prune buffers the time part runs, delta:prune (0: no pruning)"
setting SIZES "fcc:8 fcc:16 fcc:32 fcc:64" "lammps-lj sizes of the time part (lattice:ne)"
setting TIME_STEPS 1000 "timed steps per point (after 500 untimed)"
setting TESTS_S 300 "seconds for the tests part"
setting CASES "57_cluster 58_cpu_cluster" "the test files the cases part runs (tests/run.sh, TEST_JOBS=16)"
setting TIME_S 240 "seconds for the time part"
setting PROFILE_SIZE "fcc:64" "lammps-lj size of the stages and profile parts"
setting PROFILE_SHAPES "8x1" "the shapes the stages and profile parts run"
settings_parse "$@"
export PATH=$PATH:/usr/local/cuda/bin PYTHONUNBUFFERED=1 NBR_LOCK=none
mkdir -p "$OUT"
has() { case " $PARTS " in *" $1 "*) return 0 ;; esac; return 1; }

if has build; then
    make -j16 build/double/gpu-cluster build/float/gpu-cluster build/float/gpu-layer build/float/gpu-rumd \
        build/double/cpu-allpairs build/float/cpu-cluster build/double/cpu-cluster build/float/cpu-grouped \
        build/double/cpu-grouped build/float/cpu-pairlist >"$OUT/build.log" 2>&1 || { tail -30 "$OUT/build.log"; exit 1; }
    echo "build: ok ($(cat .git-rev 2>/dev/null || git describe --always --dirty 2>/dev/null))"
fi

if has check; then
    # every shape, system and path: one line each (the program's own check lines in check.log)
    for prec in double float; do
        for shape in $SHAPES; do
            ci=${shape%x*} cj=${shape#*x}
            for sys in "lammps-lj --ne 5" "sp --ne 12" "lj --ne 10" "salt --ne 12"; do
                for path in "--decide host" "--decide device --graph on" "--decide device --graph cond --leapfrog split"; do
                    args=(--system $sys --steps 300 --equil 100 --icluster "$ci" --jcluster "$cj" $path --check --quiet)
                    if build/$prec/gpu-cluster "${args[@]}" >>"$OUT/check.log" 2>&1; then r=ok; else r="FAIL($?)"; fi
                    echo "check $prec ${shape} $sys $path: $r"
                done
            done
        done
    done | tee "$OUT/check-summary.log" | grep -c ': ok$' | sed 's/^/check: ok lines: /'
    grep -v ': ok$' "$OUT/check-summary.log" | head -20
fi

if has tests; then
    GPU_TEST_VARIANTS=gpu-cluster TEST_JOBS=16 timeout "$TESTS_S" tests/run.sh 50_gpu >"$OUT/tests.log" 2>&1
    echo "tests (50_gpu, gpu-cluster): rc $?; $(grep -E '^[0-9]+ passed' "$OUT/tests.log" | tail -1)"
    grep -E 'FAIL' "$OUT/tests.log" | head -20
fi

if has cases; then   # whole test files, their plant builds made on demand
    for c in $CASES; do
        TEST_JOBS=16 timeout "$TESTS_S" tests/run.sh "$c" >"$OUT/cases-$c.log" 2>&1
        echo "cases $c: rc $?; $(grep -E '^[0-9]+ passed' "$OUT/cases-$c.log" | tail -1)"
        grep -E '^FAIL' "$OUT/cases-$c.log" | head -20
    done
fi

if has time; then
    csv=$OUT/cluster_time.csv
    run=(--system lammps-lj --equil 500 --rescale-every 1000000000 --stage-reps 0 --decide device --graph on
         --sample-every 100 --avg-block 1000 --quiet --csv "$csv")
    t_end=$(($(date +%s) + TIME_S))
    for sz in $SIZES; do
        lat=${sz%%:*} ne=${sz#*:}
        steps=$((500 + TIME_STEPS))
        [ "$(date +%s)" -lt "$t_end" ] || { echo "time: stopped at $sz (TIME_S)"; break; }
        build/float/gpu-layer "${run[@]}" --lattice "$lat" --ne "$ne" --steps $steps --tag "c-layer-$sz" \
            --layers device --reorder-at device --reduce device --read ldg >/dev/null 2>&1
        build/float/gpu-rumd "${run[@]}" --lattice "$lat" --ne "$ne" --steps $steps --tag "c-rumd-$sz" --read ldg \
            >/dev/null 2>&1
        for shape in $TIME_SHAPES; do
            for pr in $PRUNES; do
                d=${pr%:*} b=${pr#*:} tag=c-cluster$shape-$sz
                [ "$PRUNES" = 0.3:0 ] || tag=$tag-d$d-p$b
                build/float/gpu-cluster "${run[@]}" --lattice "$lat" --ne "$ne" --steps $steps --tag "$tag" \
                    --icluster "${shape%x*}" --jcluster "${shape#*x}" --delta "$d" --prune "$b" >/dev/null 2>&1 ||
                    echo "time: $shape $sz $pr failed"
            done
        done
    done
    python3 - "$csv" <<'EOF'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
for r in rows:
    kn = dict(kv.split('=', 1) for kv in r['knobs'].split())
    print(f"{r['tag']:28s} n={r['n']:>8s} us/step={float(r['us_per_step']):9.2f} ns/atom-step={1e3*float(r['us_per_atom_step']):7.4f} "
          f"nbr={float(r['nbr_per_atom']):7.1f} spr={r['steps_per_rebuild']} fill={kn.get('fill','-')} eff={kn.get('pair_eff','-')} "
          f"peff={kn.get('prune_eff','-')} pslots={kn.get('prune_slots','-')} prunes={kn.get('prunes','-')} {r['status']}")
EOF
fi

if has stages; then   # kernel-level stage times (--stage-reps), beside gpu-layer
    csv=$OUT/cluster_stages.csv
    lat=${PROFILE_SIZE%%:*} ne=${PROFILE_SIZE#*:}
    run=(--system lammps-lj --lattice "$lat" --ne "$ne" --steps 1000 --equil 500 --rescale-every 1000000000
         --stage-reps 20 --decide device --graph on --sample-every 100 --quiet --csv "$csv")
    build/float/gpu-layer "${run[@]}" --tag s-layer --layers device --reorder-at device --reduce device --read ldg >/dev/null
    for shape in $PROFILE_SHAPES; do
        build/float/gpu-cluster "${run[@]}" --tag "s-cluster$shape" --icluster "${shape%x*}" --jcluster "${shape#*x}" \
            --reduce device >/dev/null
    done
    python3 - "$csv" <<'EOF2'
import csv, sys
for r in csv.DictReader(open(sys.argv[1])):
    print(f"{r['tag']:18s} us/step {float(r['us_per_step']):8.1f} list {r['t_list_us']:>8s} force {r['t_force_us']:>8s} "
          f"integrate {r['t_integrate_us']:>7s} other {r['t_other_us']:>7s} spr {r['steps_per_rebuild']} gbs_force {r['gbs_force']}")
EOF2
fi

if has profile; then   # Nsight Compute: one force launch in full, every kernel of one build in brief
    ncu=$(command -v ncu || ls /opt/nvidia/nsight-compute/*/ncu /usr/local/cuda/bin/ncu 2>/dev/null | tail -1)
    lat=${PROFILE_SIZE%%:*} ne=${PROFILE_SIZE#*:}
    P=$OUT/profile; mkdir -p "$P"
    for shape in $PROFILE_SHAPES; do
        run=(build/float/gpu-cluster --system lammps-lj --lattice "$lat" --ne "$ne" --steps 300 --equil 0 --stage-reps 0
             --quiet --icluster "${shape%x*}" --jcluster "${shape#*x}")
        # host decisions: every launch does its work (device decisions gate most of them off)
        "$ncu" --clock-control none --kernel-name regex:cluster_force_kernel --launch-skip 20 --launch-count 1 --set full \
            -o "$P/prof-$shape-force" "${run[@]}" --decide host >"$P/prof-$shape-force.log" 2>&1
        "$ncu" --import "$P/prof-$shape-force.ncu-rep" --page details --csv >"$P/prof-$shape-force.csv" 2>>"$P/prof-$shape-force.log"
        "$ncu" --import "$P/prof-$shape-force.ncu-rep" --page source --csv --print-source sass >"$P/sass-$shape-force.csv" \
            2>>"$P/prof-$shape-force.log"
        rm -f "$P/prof-$shape-force.ncu-rep"
        echo "profile $shape force: $(grep -E '"Duration"|"Executed Ipc Active"|"L1/TEX Hit Rate"|"L2 Hit Rate"|"Executed Instructions"' "$P/prof-$shape-force.csv" | awk -F'","' '{printf "%s=%s ", $(NF-2), $NF}' | tr -d '"')"
        # every kernel of the second build (the first is step 0's)
        "$ncu" --clock-control none --kernel-name regex:'cellsort|bin_zsort|column_clusters|cluster_table|unit_boxes|cluster_search' \
            --launch-skip 13 --launch-count 13 --section SpeedOfLight --csv --page details "${run[@]}" --decide host \
            >"$P/build-$shape.csv" 2>"$P/build-$shape.log"
        echo "build kernels $shape:"; grep '"Duration"' "$P/build-$shape.csv" | awk -F'","' '{printf "  %-40s %s us\n", substr($5,1,40), $NF}' | tr -d '"'
    done
    tar czf "$OUT/profile.tgz" -C "$OUT" profile && rm -rf "$P"
fi
