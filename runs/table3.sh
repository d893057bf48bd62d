#!/usr/bin/env bash
# runs/table3.sh - Rapaport 2011 Table 3: the old neighbour-matrix build (Anderson, Lorenz &
# Travesset 2008: gpu-old) against the new one (gpu-layer) as the cutoff r_c varies. Everything
# but the list build is the same code in both programs, so the ratio is the list build's.
# The paper: similar at r_c = 3 (LJ), the new method ~2.5x faster for SP, and the list build
# takes 0.34 (new) and 0.74 (old) of the time for SP.
#
# States: r_c = 2^(1/6) is the SP preset; r_c = 1.5 and 2.0 keep SP's rho 0.8, T 1, delta 0.6
# (a dense liquid); r_c = 2.5 and 3.0 use LJ's rho 0.38, T 1.2, delta 0.8. The intermediate
# cutoffs are shifted so that u(r_c) = 0 (shift = -4 (r_c^-12 - r_c^-6)), as SP is; r_c = 3 is
# the LJ preset, truncated without a shift as in the paper. The shift changes energies only,
# not forces or timings.
# Two settings per point: the paper's (host layer assignment, reductions and reordering) and
# all-device; float, 128 threads, texture, reorder 100, 6000 steps (500 equilibration).
# Appends to results/<machine>/table3.csv and prints the table.
#   env: NE (64), OUT_DIR (results/<machine>), STEPS, EQUIL, REDO
set -euo pipefail
cd "$(dirname "$0")/.."
. runs/lib.sh
out=${OUT_DIR:-results/$(machine_name)}
mkdir -p "$out"
csv=$out/table3.csv
NE=${NE:-64} STEPS=${STEPS:-6000} EQUIL=${EQUIL:-500}
cases=("sp 1.122462048309373 1" "sp 1.5 0.3203365943" "sp 2.0 0.0615234375" "lj 2.5 0.0163168911" "lj 3.0 0")
settings=("paper:" "device:--layers device --reduce device --reorder-at device")

tag_of() { echo "t3-$1-rc$2-$3-ne$NE-s$STEPS"; }   # VARIANT RC SETTING (steps: a QUICK run is another point)

for c in "${cases[@]}"; do
    set -- $c
    sys=$1 rc=$2 shift=$3
    for st in "${settings[@]}"; do
        name=${st%%:*} knobs=${st#*:}
        for v in gpu-layer gpu-old; do
            bin=$BUILD/float/$v
            [ -x "$bin" ] || { echo "  no $bin" >&2; continue; }
            run_point "$csv" "$(tag_of "$v" "$rc" "$name")" -- "$bin" --system "$sys" --rc "$rc" --shift "$shift" \
                --ne "$NE" --steps "$STEPS" --equil "$EQUIL" $knobs || echo "  FAILED: $v rc $rc $name" >&2
        done
    done
done

printf '\nTable 3 (%s, ne %s, float): ns per atom-step, fraction of time in the list build\n' "$(machine_name)" "$NE"
printf '%-8s %-4s %-7s %10s %10s %8s %9s %9s %5s %8s\n' r_c state setting new old old/new list_new list_old N_l N_p/N_a
for c in "${cases[@]}"; do
    set -- $c
    for st in "${settings[@]}"; do
        name=${st%%:*}
        tn=$(tag_of gpu-layer "$2" "$name") to=$(tag_of gpu-old "$2" "$name")
        un=$(csv_val "$csv" "$tn" us_per_atom_step) uo=$(csv_val "$csv" "$to" us_per_atom_step)
        awk -v rc="$2" -v s="$1" -v st="$name" -v un="$un" -v uo="$uo" -v fn="$(csv_val "$csv" "$tn" frac_list)" \
            -v fo="$(csv_val "$csv" "$to" frac_list)" -v nl="$(csv_val "$csv" "$tn" layers)" \
            -v np="$(csv_val "$csv" "$tn" nbr_per_atom)" 'BEGIN {
            # every ?: in parentheses: a bare ">" in a printf argument list is an output redirection
            printf "%-8.4g %-4s %-7s %10s %10s %8s %9s %9s %5s %8s\n", rc, s, st, (un > 0 ? sprintf("%.4f", un * 1000) : "-"),
                   (uo > 0 ? sprintf("%.4f", uo * 1000) : "-"), ((un > 0 && uo > 0) ? sprintf("%.2f", uo / un) : "-"), fn, fo, nl, np }'
    done
done
echo "paper (FX770M, float): old/new ~1 at r_c = 3, ~2.5 for SP; list fraction SP 0.34 (new), 0.74 (old)"
