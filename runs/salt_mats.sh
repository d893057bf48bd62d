#!/usr/bin/env bash
# runs/salt_mats.sh - RUMD's molten salt (Bailey et al. 2017, Table 4; --system salt: LJ +
# shifted-force Coulomb, charges +-1, rho 0.3677, T 2, r_c 6, dt 0.004) on this CPU: million
# atom-steps per second (MATS = 1 / us_per_atom_step) against N for the CPU variants, one core
# each, beside LAMMPS (runs/lmp_variant.sh: reference/lammps/in.salt, lj/cut/coul/dsf with zero
# damping) on one core and, as MPI domains, on NPROCS cores (the Debian lmp has no OPENMP
# package; nbrlab's CPU programs have one thread). Rows -> results/<machine>/salt_mats.csv,
# tags salt-<variant>-<precision>-ne<NE>-s<steps> (LAMMPS: salt-lammps[-mpiP]-ne<NE>-s<steps>);
# full program output in <out>/logs/<tag>.log (LAMMPS's log there too).
# N >= 14^3: the cells need 3 per axis (L >= r_c + delta = 6.5 x 3).
# Timed steps per point: max(24, ~ATOM_STEPS / N) after EQUIL rescaled steps from the lattice, in
# 4 averaging blocks (nbrlab's us_per_atom_step is the median of the blocks; LAMMPS's is its
# Loop time / timed steps / N). The lattice melts within the first few steps at T 2.
# The physics check (T, P, neighbours within fluctuations, plots/salt.py): longer pairs at
# ne 16 (N 4096), one per seed of CHECK_SEEDS: CHECK_EQUIL rescaled + CHECK_TIMED NVE steps,
# nbrlab cpu-pairlist double (its blocks to <out>/logs/<tag>.blocks.csv) and LAMMPS on one
# core, tags salt-check-*; the codes are compared against their seed-to-seed spread (where
# the rescaling stops leaves each NVE run its own total energy, hence its own mean T).
# CHECK_RESCALE (1): both codes rescale every that many steps while equilibrating, tags
# salt-check-r<R>-*; at 1 nbrlab's rule (scale by the kinetic energy averaged since the last
# rescale) and LAMMPS's fix temp/rescale (the instantaneous T) are the same; at 20 they are not,
# and the NVE runs start from different total energies.
# Settings: runs/salt_mats.sh --help (the table below, or the old variables; docs/drivers.md).
set -euo pipefail
cd "$(dirname "$0")/.."
. runs/lib.sh
settings_begin "runs/salt_mats.sh [settings]" "RUMD's molten salt: MATS against N, the CPU variants and LAMMPS -> salt_mats.csv"
. runs/tables_lib.sh
setting NES "16 24 32 40 50" "lattice edges (QUICK: 14)"
setting VARIANTS "cpu-pairlist cpu-grouped cpu-full cpu-layer cpu-cells" "the CPU programs (QUICK: cpu-pairlist cpu-cells)"
setting PRECISIONS "double float" "precisions (QUICK: double)"
setting ATOM_STEPS 1500000 "timed atom-steps per point (QUICK: 20000)"
setting EQUIL 20 "equilibration steps"
setting NPROCS 2 "LAMMPS's MPI ranks for its second row (1: no MPI row)"
setting CHECK 1 "1: the state-point check against LAMMPS (salt-check-*)"
setting CHECK_EQUIL 500 "the check's equilibration steps (QUICK: 20)"
setting CHECK_TIMED 1500 "the check's timed steps (QUICK: 40)"
setting CHECK_SEEDS "12345 1 2" "the check's seeds (QUICK: 12345 1)"
setting CHECK_RESCALE 1 "the check's rescale interval while equilibrating"
settings_parse "$@"
[ "$QUICK" = 1 ] && settings_prefer NES 14 ATOM_STEPS 20000 VARIANTS "cpu-pairlist cpu-cells" PRECISIONS double \
    CHECK_EQUIL 20 CHECK_TIMED 40 CHECK_SEEDS "12345 1"
csv=$OUT_DIR/salt_mats.csv
export LOGDIR=$OUT_DIR/logs
command -v lmp >/dev/null 2>&1 || { echo "salt_mats.sh: lmp not found (apt-get install lammps)" >&2; exit 2; }
for ne in $NES; do
    [ $((ne % 2)) = 0 ] || { echo "salt_mats.sh: --ne $ne: the rock-salt lattice needs an even ne" >&2; exit 2; }
done
for prec in $PRECISIONS; do for v in $VARIANTS; do need_bin "$BUILD/$prec/$v"; done; done
failed=0
timed_for() {   # timed steps at ne: ~ATOM_STEPS / N, a multiple of 4, at least 24
    local n=$(($1 * $1 * $1)) t
    t=$(((ATOM_STEPS / n + 2) / 4 * 4))
    [ $t -lt 24 ] && t=24
    echo $t
}
lmp_point() {   # lmp_point NE TIMED EQUIL PROCS TAGPREFIX
    local v=lammps steps=$(($2 + $3))
    [ "$4" -gt 1 ] && v=lammps-mpi$4
    # no LOGDIR: lmp_variant.sh keeps LAMMPS's own log as logs/<tag>.log
    LOGDIR="" run_point "$csv" "$5$v-ne$1-s$steps" -- runs/lmp_variant.sh --system salt --ne "$1" --steps "$steps" \
        --equil "$3" --procs "$4" || { echo "  FAILED: $v ne $1" >&2; failed=1; }
}
n_points=$(($(echo $NES | wc -w) * ($(echo $PRECISIONS | wc -w) * $(echo $VARIANTS | wc -w) + 1 + (NPROCS > 1))))
[ "$CHECK" = 1 ] && n_points=$((n_points + 2 * $(echo $CHECK_SEEDS | wc -w)))
progress_start "$n_points"   # runs/lib.sh: "[k/n] ... about N min left" after each point
if [ "$CHECK" = 1 ]; then
    steps=$((CHECK_EQUIL + CHECK_TIMED))
    mkdir -p "$LOGDIR"
    for seed in $CHECK_SEEDS; do
        sfx=""; [ "$seed" = 12345 ] || sfx=-seed$seed   # 12345: the programs' default seed, no suffix
        tag=salt-check-r$CHECK_RESCALE-cpu-pairlist-double-ne16-s$steps$sfx
        blocks=$LOGDIR/$tag.blocks.csv
        if [ "$REDO" = 1 ] || ! csvq has "$csv" tag="$tag" status=ok; then rm -f "$blocks"; fi
        BLOCKS_CSV=$blocks run_point "$csv" "$tag" -- "$BUILD/double/cpu-pairlist" --system salt --ne 16 \
            --steps "$steps" --equil "$CHECK_EQUIL" --avg-block $((CHECK_TIMED / 3)) --stage-reps 0 --seed "$seed" \
            --rescale-every "$CHECK_RESCALE" ||
            { echo "  FAILED: check cpu-pairlist seed $seed" >&2; failed=1; }
        LOGDIR="" run_point "$csv" "salt-check-r$CHECK_RESCALE-lammps-ne16-s$steps$sfx" -- runs/lmp_variant.sh \
            --system salt --ne 16 --steps "$steps" --equil "$CHECK_EQUIL" --seed "$seed" --rescale-every "$CHECK_RESCALE" ||
            { echo "  FAILED: check lammps seed $seed" >&2; failed=1; }
    done
fi
for ne in $NES; do
    timed=$(timed_for "$ne")
    steps=$((timed + EQUIL))
    for prec in $PRECISIONS; do
        for v in $VARIANTS; do
            run_point "$csv" "salt-$v-$prec-ne$ne-s$steps" -- "$BUILD/$prec/$v" --system salt --ne "$ne" \
                --steps "$steps" --equil "$EQUIL" --avg-block $((timed / 4)) --stage-reps 0 ||
                { echo "  FAILED: $v $prec ne $ne" >&2; failed=1; }
        done
    done
    lmp_point "$ne" "$timed" "$EQUIL" 1 salt-
    [ "$NPROCS" -gt 1 ] && lmp_point "$ne" "$timed" "$EQUIL" "$NPROCS" salt-
done
exit $failed
