#!/usr/bin/env bash
# runs/gpu_tables.sh - every GPU table of Rapaport 2011, one driver after the other, for one
# call on the GPU machine, all at one committed revision:
#   table1 (size), table3 (old vs new method against r_c), table4 (energy over 10^5 steps),
#   table5 (delta), table6 (threads), table7 (N_R), table8 (no reordering over time),
#   texture (read path), layout (W rows/columns), gpu_layer (runs/gpu_layer.sh's parts
#   GPU_LAYER_PARTS, default "place best": where each stage runs on S, and the settings at
#   N ~ 1M; its size scan and one-knob scans are the tables' own drivers).
# The step loop: GPU_LOOP=device (the default) runs every GPU program with the device-resident
# loop (runs/tables_lib.sh: --layers device --reorder-at device --reduce device --decide device
# --graph cond --sample-every 100; the tags say loop=device), GPU_LOOP=paper with the programs'
# defaults, the paper's host-driven loop (the rows of 112bc1beb65d and before). A driver that
# sweeps one of those knobs keeps its own value (table3's and gpu_layer's host settings run the
# paper loop). Production timing (us_per_atom_step: whole 1000-step blocks) and stage timing
# (--stage-reps 20, the default: t_<stage>_us and gbs_* of each kernel replayed alone) in every row.
# Time on an H200: the paper loop took 289 s (2026-11-30, without gpu_layer), QUICK=1 about
# 1.5 min; with the device loop expect about 5.5 min (the ~150 runs on S save ~0.3 s each, table4
# ~8 s; gpu_layer's 24 points add ~75 s, mostly LJ at 1M atoms) and QUICK=1 about 1.75 min,
# both under a device call's 10 minutes. Points already in the
# CSVs at this revision are skipped, so a rerun takes seconds, and a second call finishes what a
# first one (cut short) left. Prints each driver's duration. Afterwards, here: make plots && make report.
# On a machine without hyperfine, HYPERFINE=path/to/hyperfine (a copy of /usr/bin/hyperfine
# carried along) adds the whole-program timings of table1; without it they are skipped.
# Settings: runs/gpu_tables.sh --help (docs/drivers.md). Its shared settings (--quick, --gpu-loop,
# --out-dir, ...) go on to every driver as flags; the drivers' own variables set in the
# environment are left there for them.
set -euo pipefail
cd "$(dirname "$0")/.."
. runs/lib.sh
settings_begin "runs/gpu_tables.sh [settings]" "every GPU table of Rapaport 2011, one driver after the other"
. runs/tables_lib.sh
setting ONLY "table1 table3 table4 table5 table6 table7 table8 texture layout gpu_layer" "the drivers to run, in order"
setting GPU_LAYER_PARTS "place best" "runs/gpu_layer.sh's PARTS"
setting T3_QUICK_NE 32 "runs/table3.sh's NE with --quick (table3 has no QUICK of its own)"
setting T3_QUICK_STEPS 2000 "runs/table3.sh's STEPS with --quick"
settings_forward runs/table[0-9].sh runs/texture.sh runs/layout.sh runs/gpu_layer.sh
settings_parse "$@"
settings_shared   # SETTINGS_SHARED: the shared settings not at their default, for every driver
drivers=$ONLY
have_gpu || echo "gpu_tables: no GPU found (nvidia-smi): the drivers will fail" >&2
need_bin "$BUILD/float/gpu-layer"
echo "gpu_tables: $(machine_name), results in $OUT_DIR, GPU_LOOP=$GPU_LOOP, QUICK=$QUICK: $drivers"
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,memory.total --format=csv,noheader 2>/dev/null || true
failed="" start=$SECONDS
for d in $drivers; do
    if [ ! -x "runs/$d.sh" ]; then echo "== $d: runs/$d.sh not found, skipped"; continue; fi
    t0=$SECONDS
    echo "== $d"
    # runs/table3.sh knows no QUICK; its tags carry Ne (not the steps), so a quick run on a
    # smaller system is a point of its own and never stands in for the full one
    if [ "$d" = table3 ] && [ "$QUICK" = 1 ]; then
        runs/$d.sh "${SETTINGS_SHARED[@]}" --ne "$T3_QUICK_NE" --steps "$T3_QUICK_STEPS" || failed="$failed $d"
    elif [ "$d" = gpu_layer ]; then
        runs/$d.sh "${SETTINGS_SHARED[@]}" --parts "$GPU_LAYER_PARTS" || failed="$failed $d"
    else
        runs/$d.sh "${SETTINGS_SHARED[@]}" || failed="$failed $d"
    fi
    echo "== $d: $((SECONDS - t0)) s (total $((SECONDS - start)) s)"
done
echo "gpu_tables: done in $((SECONDS - start)) s${failed:+; failed:$failed}"
[ -z "$failed" ]
