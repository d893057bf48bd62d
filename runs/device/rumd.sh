#!/usr/bin/env bash
# runs/device/rumd.sh - gpu-rumd's first run on the H200 (issue 11, first part). Run in the
# repository root after `make -j16 all`; writes under $OUT (6 files) and prints a summary.
# Wall time: about 4.5 minutes expected; at most ~8 (timeouts: tests 150 + 100 s, sanitizer
# 4 x 45 s, sweep runs 60 s each, autotune 60 s).
#   tests-rumd.log   tests/run.sh 55_rumd: gpu-rumd's own groups (list x t_p {1,4,32} x read x
#                    prefetch, SP / LJ / lammps-lj, layouts, device decision, verify, grow, errors),
#                    float and double
#   tests-gpu.log    tests/run.sh 50_gpu restricted to gpu-rumd (check, verify, drift, device,
#                    err groups every gpu-* program gets), through a build folder of links
#   sanitizer.log    compute-sanitizer memcheck (sort list, device decision, graphs; t_p 64) and
#                    racecheck (n2's shared tiles and slot counters) on small runs
#   tps.csv          first TPS sweep, float, lammps-lj, --decide device --graph on: gpu-layer
#                    and gpu-rumd (defaults, and list x t_p) at N = 4096 (sc 16^3), 32768
#                    (sc 32^3), 1048576 (fcc 4 x 64^3)
#   autotune.log     gpu-rumd --autotune at N = 4096 (25 s budget; the cache in a temporary folder)
#   summary.txt      what passed and failed, the sweep as us/step and TPS
set -u
: "${OUT:=/tmp/rumd-out}"
mkdir -p "$OUT"
B=${BUILD:-build}
failed=()
summary=$OUT/summary.txt
: >"$summary"
say() { echo "$*" | tee -a "$summary"; }

# 1. gpu-rumd's own tests
timeout 150 tests/run.sh 55_rumd >"$OUT/tests-rumd.log" 2>&1 || failed+=("tests 55_rumd (rc $?)")
say "tests 55_rumd: $(tail -1 "$OUT/tests-rumd.log")"
grep '^FAIL' "$OUT/tests-rumd.log" | head -20 | tee -a "$summary"

# 2. the common GPU groups, gpu-rumd only (a build folder holding links to it alone)
rb=$(mktemp -d)
for p in double float; do mkdir -p "$rb/$p" && ln -s "$PWD/$B/$p/gpu-rumd" "$rb/$p/gpu-rumd"; done
BUILD=$rb timeout 100 tests/run.sh 50_gpu >"$OUT/tests-gpu.log" 2>&1 || failed+=("tests 50_gpu on gpu-rumd (rc $?)")
say "tests 50_gpu (gpu-rumd): $(tail -1 "$OUT/tests-gpu.log")"
grep '^FAIL' "$OUT/tests-gpu.log" | head -20 | tee -a "$summary"

# 3. compute-sanitizer on small runs
san=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
small="--steps 60 --equil 10 --stage-reps 2 --check --quiet"
{
    for run in "memcheck --list sort --decide device --graph on --sort-every 20" \
               "memcheck --list n2 --tp 64 --pb 16 --decide device --sort-every 20" \
               "memcheck --list none --tp 3" "racecheck --list n2 --tp 4"; do
        set -- $run
        tool=$1; shift
        echo "== compute-sanitizer --tool $tool gpu-rumd --ne 8 $* $small"
        timeout 45 "$san" --tool "$tool" --error-exitcode 9 "$B/float/gpu-rumd" --ne 8 "$@" $small
        echo "rc $?"
    done
} >"$OUT/sanitizer.log" 2>&1
bad=$(grep -c '^rc [^0]' "$OUT/sanitizer.log")
[ "$bad" -eq 0 ] || failed+=("sanitizer: $bad run(s) not clean")
say "sanitizer: $(grep -c '^rc 0' "$OUT/sanitizer.log") clean, $bad not"

# 4. first TPS sweep (float, production timing; the melt of NVE warm-up untimed)
csv=$OUT/tps.csv
common="--system lammps-lj --equil 500 --rescale-every 1000000000 --stage-reps 0 --decide device --graph on \
--sample-every 100 --avg-block 1000 --quiet --csv $csv"
layer_dev="--layers device --reorder-at device --reduce device"
for pt in "sc 16 3000" "sc 32 3000" "fcc 64 2500"; do
    set -- $pt
    lat=$1 ne=$2 steps=$3
    run() { timeout 60 "$@" --lattice $lat --ne $ne --steps $steps $common >/dev/null 2>>"$OUT/summary.txt" ||
            failed+=("sweep: $* (rc $?)"); }
    run "$B/float/gpu-layer" $layer_dev --tag layer
    run "$B/float/gpu-layer" $layer_dev --read ldg --tag layer-ldg
    run "$B/float/gpu-rumd" --tag rumd-default
    for list in n2 sort; do
        [ $list = n2 ] && [ $ne = 64 ] && continue   # O(N^2) builds at 1M atoms: minutes
        for tp in 1 4 16; do
            run "$B/float/gpu-rumd" --list $list --tp $tp --tag rumd-$list-tp$tp
        done
    done
done
# the autotuner once, at N = 4096, with a 25 s budget (its trials are rows tagged autotune-*)
timeout 60 "$B/float/gpu-rumd" --autotune --autotune-budget 25 --autotune-cache "$rb/autotune.cache" \
    --lattice sc --ne 16 --steps 3000 $common --tag rumd-autotuned >"$OUT/autotune.log" 2>&1 ||
    failed+=("autotune (rc $?)")
grep '^# autotune:' "$OUT/autotune.log" | tee -a "$summary"
if [ -s "$csv" ]; then
    say "sweep (float, lammps-lj, device decision + graphs): tag, N, us/step, TPS"
    python3 - "$csv" <<'PY' | tee -a "$summary"
import csv, sys
for r in csv.DictReader(open(sys.argv[1])):
    if r.get("tag", "").startswith("autotune-"):
        continue   # the autotuner's trials
    try:
        us = float(r["us_per_atom_step"]) * int(r["n"])
        print(f'{r["variant"]:10s} {r["tag"]:16s} N={r["n"]:>8s} list={r.get("list_method","-"):5s} tp={r.get("tp","-"):3s} '
              f'pb={r.get("pb","-"):4s} {us:10.2f} us/step  {1e6 / us:10.0f} TPS  nbr/atom={r.get("nbr_per_atom","-")}')
    except (KeyError, ValueError) as e:
        print("row not read:", e)
PY
fi
rm -rf "$rb"
if [ ${#failed[@]} -gt 0 ]; then say "FAILED: ${failed[*]}"; else say "all parts ran"; fi
exit 0
