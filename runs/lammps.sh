#!/usr/bin/env bash
# runs/lammps.sh - LAMMPS on the paper's systems, one core: an independent check of the CPU
# timings (runs/cpu_chain.sh, runs/table2.sh) and of the observables N_p/N_a and N_u.
# Rows in nbrlab's CSV schema, variant lammps -> results/<machine>/lammps.csv.
# Same lengths as runs/cpu_chain.sh (2000 timed steps after 500 equilibration).
# Settings: runs/lammps.sh --help (docs/drivers.md).
set -euo pipefail
cd "$(dirname "$0")/.."
. runs/lib.sh
settings_begin "runs/lammps.sh [settings]" "LAMMPS on the paper's systems, one core (rows in nbrlab's schema)"
. runs/tables_lib.sh
setting POINTS "sp:16 sp:32 sp:48 lj:16 lj:32" "SYSTEM:NE points"
setting STEPS 2500 "steps, equilibration included"
setting EQUIL 500 "equilibration steps"
settings_parse "$@"
[ "$QUICK" = 1 ] && settings_prefer POINTS "sp:16 lj:16" STEPS 1500
settings_shared   # SETTINGS_SHARED: the shared settings, handed on to runs/sweep.sh
csv=$OUT_DIR/lammps.csv
failed=0
for pt in $POINTS; do
    sys=${pt%%:*} ne=${pt#*:}
    run_point "$csv" "lammps-$sys-ne=$ne-steps=$STEPS-equil=$EQUIL" -- runs/lmp_variant.sh --system "$sys" \
        --ne "$ne" --steps "$STEPS" --equil "$EQUIL" || failed=1
done
_point_record "$csv"   # this driver's own settings, beside its sweeps' blocks
driver_table "$csv" lammps- || failed=1
exit $failed
