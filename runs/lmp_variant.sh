#!/usr/bin/env bash
# runs/lmp_variant.sh --system sp|lj|salt --ne N --steps S --equil E [--seed K] [--procs P] --csv FILE
#                     [--rescale-every R] --tag T [--quiet] [--allow-dirty] | ... --print-config
# LAMMPS (reference/lammps/in.nbrlab, in.salt for --system salt; binary lmp) behind the command line of an nbrlab
# program, so that run_point (runs/lib.sh) runs it like any variant: skipped when its tag is
# in the CSV, REDO=1, the benchmark lock. --procs P > 1: mpirun -np P (MPI domains, one
# thread each; the Debian lmp has no OPENMP package), a row with variant lammps-mpiP.
# --rescale-every R (salt only): in.salt's fix temp/rescale interval (default 20).
# --steps counts the equilibration, as nbrlab does:
# LAMMPS runs E rescaled steps, then S - E timed ones. The log is kept beside the CSV
# (logs/<tag>.log) and turned into one row of nbrlab's schema by runs/lammps_row.py.
# The row's git_rev is nbrlab's (the built program's --print-config: the input file and the
# row format are this tree's); --print-config prints this wrapper's resolved settings like a
# program does; a row under a directory named results from a dirty or unknown revision is
# refused unless --allow-dirty, as the programs do.
set -euo pipefail
cd "$(dirname "$0")/.."
. runs/lib.sh
sys=sp ne=16 steps=6000 equil=500 seed=12345 csv="" tag=lammps print_config=0 allow_dirty=0 procs=1 rescale=""
while [ $# -gt 0 ]; do
    case "$1" in
        --system) sys=$2; shift 2 ;; --ne) ne=$2; shift 2 ;; --steps) steps=$2; shift 2 ;;
        --equil) equil=$2; shift 2 ;; --seed) seed=$2; shift 2 ;; --csv) csv=$2; shift 2 ;;
        --tag) tag=$2; shift 2 ;; --quiet) shift ;; --procs) procs=$2; shift 2 ;;
        --rescale-every) rescale=$2; shift 2 ;;
        --print-config) print_config=1; shift ;; --allow-dirty) allow_dirty=1; shift ;;
        --blocks-csv) echo "lmp_variant.sh: --blocks-csv: LAMMPS runs have no averaging blocks" >&2; exit 2 ;;
        *) echo "lmp_variant.sh: unknown argument $1" >&2; exit 2 ;;
    esac
done
case "$sys" in sp|lj) input=reference/lammps/in.nbrlab ;; salt) input=reference/lammps/in.salt ;;
    *) echo "lmp_variant.sh: --system $sys: sp, lj or salt" >&2; exit 2 ;; esac
extra=()
if [ -n "$rescale" ]; then
    [ "$sys" = salt ] || { echo "lmp_variant.sh: --rescale-every is for --system salt (in.salt)" >&2; exit 2; }
    case "$rescale" in [1-9]|[1-9][0-9]|[1-9][0-9][0-9]) extra=(-var rescale "$rescale") ;;
        *) echo "lmp_variant.sh: --rescale-every $rescale: 1..999" >&2; exit 2 ;; esac
fi
case "$procs" in [1-9]|[1-9][0-9]) ;; *) echo "lmp_variant.sh: --procs $procs: 1..99" >&2; exit 2 ;; esac
# nbrlab's revision and the schema's header, from the source of truth: a built nbrlab program
# (--print-config; --csv on a 4^3 system without steps: milliseconds).
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
prog="" rev=unknown
for p in "${BUILD:-build}"/double/cpu-cells "${BUILD:-build}"/double/cpu-allpairs "${BUILD:-build}"/float/cpu-cells; do
    if [ -x "$p" ] && r=$("$p" --print-config 2>/dev/null | python3 runs/csvq.py config-get git_rev); then
        prog=$p rev=$r; break
    fi
done
if [ $print_config = 1 ]; then
    v=lammps; [ "$procs" -gt 1 ] && v=lammps-mpi$procs
    printf '%s\n' "variant=$v" "system=$sys" "ne=$ne" "n=$((ne * ne * ne))" "steps=$steps" "equil=$equil" \
        "seed=$seed" precision=double "git_rev=$rev"
    exit 0
fi
[ -n "$csv" ] || { echo "lmp_variant.sh: --csv FILE is needed" >&2; exit 2; }
[ $allow_dirty = 1 ] && ALLOW_DIRTY=1
dirty_refused "$csv" "$rev" lmp_variant.sh && exit 2
command -v lmp >/dev/null 2>&1 || { echo "lmp_variant.sh: lmp not found (apt-get install lammps)" >&2; exit 2; }
[ "$steps" -gt "$equil" ] || { echo "lmp_variant.sh: --steps must exceed --equil" >&2; exit 2; }
logs=$(dirname "$csv")/logs
mkdir -p "$logs"
log=$logs/$tag.log
header=""
if [ -n "$prog" ] && "$prog" --system sp --ne 4 --steps 0 --equil 0 --csv "$tmp/header.csv" --quiet >/dev/null 2>&1; then
    header=$tmp/header.csv
fi
if [ -z "$header" ]; then
    [ -s "$csv" ] || { echo "lmp_variant.sh: no nbrlab program built to take the CSV header from (make)" >&2; exit 2; }
    header=$csv   # not built: the header of the file we append to
fi

# energies every thermo steps: about 10 samples in each end window of min(timed/10, 1000)
# steps that lammps_row.py averages, as the programs average E over those windows
timed=$((steps - equil)) win=$(((steps - equil) / 10)); [ $win -gt 1000 ] && win=1000
thermo=$((win / 10)); [ $thermo -lt 1 ] && thermo=1
# OMP_NUM_THREADS=1: one core per process, as the CPU programs
launch=()
if [ "$procs" -gt 1 ]; then
    launch=(mpirun -np "$procs")
    if [ "$(id -u)" = 0 ]; then launch+=(--allow-run-as-root); fi
fi
rc=0
(cd "$tmp" && OMP_NUM_THREADS=1 ${launch[@]+"${launch[@]}"} lmp -in "$OLDPWD/$input" -var sys "$sys" -var ne "$ne" \
    -var equil "$equil" -var steps "$timed" -var seed "$seed" -var thermo "$thermo" ${extra[@]+"${extra[@]}"} -log log.lammps -screen none) || rc=$?
if [ -f "$tmp/log.lammps" ]; then cp "$tmp/log.lammps" "$log"; fi
[ $rc -eq 0 ] || { echo "lmp_variant.sh: lmp failed (exit $rc); log: $log" >&2; exit 1; }
python3 runs/lammps_row.py "$log" "$header" "$csv" "$tag" "$sys" "$ne" "$rev"
