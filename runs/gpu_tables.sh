#!/usr/bin/env bash
# runs/gpu_tables.sh - every GPU table of Rapaport 2011, one driver after the other, for one
# call on the GPU machine: about 5 minutes on an H200 from scratch (measured 2026-11-29, in
# two calls: 123 s + 158 s for everything but table3, whose 20 runs take about 50 s);
# points already in the CSVs are skipped, so a rerun takes seconds. QUICK=1: about 1.5 min.
#   table1 (size), table3 (old vs new method against r_c; runs/table3.sh, when present),
#   table4 (energy over 10^5 steps), table5 (delta), table6 (threads), table7 (N_R),
#   table8 (no reordering over time), texture (read path), layout (W rows/columns).
# Each driver is resumable, so a second call finishes what a first one (cut short) left.
# Prints each driver's duration. Afterwards, here: make plots && make report.
# On a machine without hyperfine, HYPERFINE=path/to/hyperfine (a copy of /usr/bin/hyperfine
# carried along) adds the whole-program timings of table1; without it they are skipped.
#   env: QUICK=1 (fewer points and steps)  ONLY="table5 texture" (a subset)  REDO  OUT_DIR
set -euo pipefail
cd "$(dirname "$0")/.."
. runs/lib.sh
. runs/tables_lib.sh
drivers=${ONLY:-table1 table3 table4 table5 table6 table7 table8 texture layout}
have_gpu || echo "gpu_tables: no GPU found (nvidia-smi): the drivers will fail" >&2
need_bin "$BUILD/float/gpu-layer"
echo "gpu_tables: $(machine_name), results in $OUT_DIR, QUICK=$QUICK: $drivers"
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,memory.total --format=csv,noheader 2>/dev/null || true
failed="" start=$SECONDS
for d in $drivers; do
    if [ ! -x "runs/$d.sh" ]; then echo "== $d: runs/$d.sh not found, skipped"; continue; fi
    t0=$SECONDS
    echo "== $d"
    # runs/table3.sh knows no QUICK; its tags carry Ne (not the steps), so a quick run on a
    # smaller system is a point of its own and never stands in for the full one
    if [ "$d" = table3 ] && [ "$QUICK" = 1 ]; then
        NE=${T3_QUICK_NE:-32} STEPS=${T3_QUICK_STEPS:-2000} runs/$d.sh || failed="$failed $d"
    else
        runs/$d.sh || failed="$failed $d"
    fi
    echo "== $d: $((SECONDS - t0)) s (total $((SECONDS - start)) s)"
done
echo "gpu_tables: done in $((SECONDS - start)) s${failed:+; failed:$failed}"
[ -z "$failed" ]
