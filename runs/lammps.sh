#!/usr/bin/env bash
# runs/lammps.sh - LAMMPS on the paper's systems, one core: an independent check of the CPU
# timings (runs/cpu_chain.sh, runs/table2.sh) and of the observables N_p/N_a and N_u.
# Rows in nbrlab's CSV schema, variant lammps -> results/<machine>/lammps.csv.
# Same lengths as runs/cpu_chain.sh (2000 timed steps after 500 equilibration).
#   env: POINTS ("sp:16 sp:32 sp:48 lj:16 lj:32") STEPS (2500, equilibration included)
#        EQUIL (500) QUICK REDO OUT_DIR
set -euo pipefail
cd "$(dirname "$0")/.."
. runs/lib.sh
. runs/tables_lib.sh
if [ "$QUICK" = 1 ]; then : "${POINTS:=sp:16 lj:16}" "${STEPS:=1500}"; fi
: "${POINTS:=sp:16 sp:32 sp:48 lj:16 lj:32}" "${STEPS:=2500}" "${EQUIL:=500}"
csv=$OUT_DIR/lammps.csv
failed=0
for pt in $POINTS; do
    sys=${pt%%:*} ne=${pt#*:}
    run_point "$csv" "lammps-$sys-ne=$ne-steps=$STEPS-equil=$EQUIL" -- runs/lmp_variant.sh --system "$sys" \
        --ne "$ne" --steps "$STEPS" --equil "$EQUIL" || failed=1
done
runs/table.sh "$csv" lammps- || failed=1
exit $failed
