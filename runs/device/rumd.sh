#!/usr/bin/env bash
# runs/device/rumd.sh - gpu-rumd's first run on the H200 (issue 11, first part). Run in the
# repository root after `make -j16 all`; writes 6 files under $OUT and prints a summary.
# Wall time: about 4 minutes expected, at most ~7.5 (part 1 runs its four jobs side by side,
# each under a 200 s timeout; part 2, the timing, alone: 21 runs under 60 s each, autotune 60 s).
#   tests-rumd.log   part 1: tests/run.sh 55_rumd, gpu-rumd's own groups (list x t_p {1,4,32} x
#                    read x prefetch, SP / LJ / lammps-lj / salt, layouts, device decision,
#                    verify, grow, refusals, the autotune driver), double and float side by side
#   tests-gpu.log    part 1: tests/run.sh 50_gpu for gpu-rumd alone (GPU_TEST_VARIANTS): the
#                    check, verify, drift, device and err groups every gpu-* program gets
#   sanitizer.log    part 1: compute-sanitizer memcheck (sort list under the device decision with
#                    graphs; n2 with t_p 64; none with t_p 3) and racecheck (n2's shared tiles)
#   tps.csv          part 2: first TPS sweep, float, lammps-lj, --decide device --graph on:
#                    gpu-layer and gpu-rumd (defaults, list x t_p) at N = 4096 (sc 16^3), 32768
#                    (sc 32^3), 1048576 (fcc 4 x 64^3); and one --autotune run at N = 4096
#                    (25 s budget; its trial rows are tagged autotune-*)
#   autotune.log     that autotuned run's output
#   summary.txt      what passed and failed, the sweep as us/step and TPS
set -u
. "$(dirname "$0")/lib.sh"
settings_begin "runs/device/rumd.sh [settings]" "gpu-rumd's first run on the H200: tests, sanitizer, the first TPS sweep"
setting OUT /tmp/rumd-out "where the logs and CSVs land (the device tool's \$OUT)"
setting BUILD build "the build directory the programs are taken from"
setting RUMD_PART all "1 or 2: only that part (the lead runs part 1 beside other tests, part 2 alone); all: both"
settings_parse "$@"
mkdir -p "$OUT"
B=$BUILD
failed=()
summary=$OUT/summary.txt
: >"$summary"
say() { echo "$*" | tee -a "$summary"; }
tmp=$(mktemp -d)

part=$RUMD_PART
if [ "$part" != 2 ]; then
# ---- part 1: correctness, four jobs side by side (small systems: the GPU has room) ----
(RUMD_TEST_PRECISIONS=double timeout 200 tests/run.sh 55_rumd >"$tmp/t55d" 2>&1; echo $? >"$tmp/t55d.rc") &
(RUMD_TEST_PRECISIONS=float timeout 200 tests/run.sh 55_rumd >"$tmp/t55f" 2>&1; echo $? >"$tmp/t55f.rc") &
(GPU_TEST_VARIANTS=gpu-rumd timeout 200 tests/run.sh 50_gpu >"$OUT/tests-gpu.log" 2>&1; echo $? >"$tmp/t50.rc") &
san=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
small="--steps 60 --equil 10 --stage-reps 2 --check --quiet"
(
    for run in "memcheck --list sort --decide device --graph on --sort-every 20" \
               "memcheck --list n2 --tp 64 --pb 16 --decide device --sort-every 20" \
               "memcheck --list none --tp 3" "racecheck --list n2 --tp 4"; do
        set -- $run
        tool=$1; shift
        echo "== compute-sanitizer --tool $tool gpu-rumd --ne 8 $* $small"
        timeout 50 "$san" --tool "$tool" --error-exitcode 9 "$B/float/gpu-rumd" --ne 8 "$@" $small
        echo "rc $?"
    done
) >"$OUT/sanitizer.log" 2>&1 &
wait
cat "$tmp/t55d" "$tmp/t55f" >"$OUT/tests-rumd.log"
for t in t55d t55f t50; do
    rc=$(cat "$tmp/$t.rc" 2>/dev/null || echo none)
    [ "$rc" = 0 ] || failed+=("tests $t (rc $rc$([ "$rc" = 124 ] && echo ': timed out'))")
done
say "tests 55_rumd double: $(tail -1 "$tmp/t55d")"
say "tests 55_rumd float:  $(tail -1 "$tmp/t55f")"
say "tests 50_gpu (gpu-rumd): $(tail -1 "$OUT/tests-gpu.log")"
grep -h '^FAIL' "$OUT/tests-rumd.log" "$OUT/tests-gpu.log" | head -30 | tee -a "$summary"
bad=$(grep -c '^rc [^0]' "$OUT/sanitizer.log")
[ "$bad" -eq 0 ] || failed+=("sanitizer: $bad run(s) not clean")
say "sanitizer: $(grep -c '^rc 0' "$OUT/sanitizer.log") clean, $bad not"

fi
if [ "$part" != 1 ]; then
# ---- part 2: first TPS sweep (float, production timing; the NVE warm-up untimed), alone ----
csv=$OUT/tps.csv
common="--system lammps-lj --equil 500 --rescale-every 1000000000 --stage-reps 0 --decide device --graph on \
--sample-every 100 --avg-block 1000 --quiet --csv $csv"
layer_dev="--layers device --reorder-at device --reduce device"
for pt in "sc 16 3000" "sc 32 3000" "fcc 64 2500"; do
    set -- $pt
    lat=$1 ne=$2 steps=$3
    run() { timeout 60 "$@" --lattice $lat --ne $ne --steps $steps $common >/dev/null 2>>"$summary" ||
            failed+=("sweep: ${*##*/} (rc $?)"); }
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
timeout 60 "$B/float/gpu-rumd" --autotune --autotune-budget 25 --autotune-cache "$tmp/autotune.cache" \
    --lattice sc --ne 16 --steps 3000 $common --tag rumd-autotuned >"$OUT/autotune.log" 2>&1 ||
    failed+=("autotune (rc $?)")
grep '^# autotune:' "$OUT/autotune.log" | tee -a "$summary"
if [ -s "$csv" ]; then
    say "sweep (float, lammps-lj, device decision + graphs): us/step and time steps per second"
    python3 - "$csv" <<'PY' | tee -a "$summary"
import csv, sys
sys.path.insert(0, "runs"); import csvq  # knobs expanded (docs/csv.md)
for r in csvq.read(sys.argv[1]).rows:
    if r.get("tag", "").startswith("autotune-"):
        continue   # the autotuner's trials
    try:
        us = float(r["us_per_atom_step"]) * int(r["n"])
        print(f'{r["variant"]:10s} {r["tag"]:16s} N={r["n"]:>8s} list={r.get("list_method","-"):5s} tp={r.get("tp","-"):3s} '
              f'pb={r.get("pb","-"):4s} {us:10.2f} us/step {1e6 / us:10.0f} TPS  nbr/atom={r.get("nbr_per_atom","-")}')
    except (KeyError, ValueError) as e:
        print("row not read:", e)
PY
fi
fi
rm -rf "$tmp"
if [ ${#failed[@]} -gt 0 ]; then say "FAILED: ${failed[*]}"; else say "all parts ran"; fi
exit 0
