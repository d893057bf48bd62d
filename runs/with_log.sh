#!/usr/bin/env bash
# runs/with_log.sh LOG PROGRAM ARGS... - run PROGRAM with ARGS minus --quiet, keeping its whole
# output in LOG as well as passing it on.
# Why: run_point (runs/lib.sh) always adds --quiet, which also drops the per-1000-step block
# lines ("# step K: ... block_us_per_atom_step = X") that tables 4 and 8 are made of. Used as
#   run_point CSV TAG -- runs/with_log.sh LOG build/float/gpu-layer --steps ...
# it keeps run_point's skip/REDO logic and the benchmark lock, and still gets the lines.
set -u
log=$1; shift
args=()
for a in "$@"; do [ "$a" = --quiet ] || args+=("$a"); done
mkdir -p "$(dirname "$log")"
"${args[@]}" >"$log" 2>&1
rc=$?
# the summary (last lines) goes on to run_point's stderr as --quiet would have printed it
grep -v '^#' "$log"
exit $rc
