#!/usr/bin/env bash
# runs/cpu_chain.sh [--allpairs] [--print-plan] - Rapaport 2011's chain of CPU algorithm
# changes, one core:
#   pair list -> grouped by atom (1.16x) -> no Newton 3 (1.42x) -> layer matrix (1.17x),
#   cumulative 1.92x, measured by the paper on system S (SP, Ne = 48).
# Runs the chain's CPU variants and cpu-cells on SP Ne = 48 and LJ Ne = 32 (2000 timed steps
# after the 500-step equilibration unless STEPS says otherwise), appends to
# results/<machine>/cpu_chain.csv and prints the step-by-step ratios of each system, the
# paper's beside SP's (the paper gives none for LJ). Resumable: points already in the CSV
# are skipped (REDO=1 reruns). Progress and the time left go to stderr (runs/lib.sh).
#   --allpairs    also time cpu-allpairs, the O(N^2) reference (SHORT_STEPS steps and the stage
#                 replays: at 110 592 atoms 8 min, for a number no ratio uses)
#   --print-plan  print the points (tag, then the command) and exit; nothing runs
# Duration on cpu-amd-epyc (its committed rows' timestamps): about 7 min; --allpairs adds
# 9 min (cpu-allpairs SP 493 s, LJ 47 s); each precision of PRECISIONS as long again.
# REORDER (default 100, the programs' default) sets --reorder; the paper's CPU chain does not
# say that it reordered, so REORDER=0 is the closer reading: its rows go to
# cpu_chain_reorder0.csv, apart from the default ones.
# Settings: runs/cpu_chain.sh --help (the table below, or the old variables; docs/drivers.md).
set -euo pipefail
cd "$(dirname "$0")/.."
. runs/lib.sh
settings_begin "runs/cpu_chain.sh [--allpairs] [--print-plan] [settings]" "Rapaport 2011's chain of CPU algorithms -> cpu_chain.csv"
setting_switch allpairs "also cpu-allpairs (O(N^2): minutes)"
setting_switch print_plan "print the points and exit"
setting OUT_DIR "" "where the CSV goes (default results/<machine>)"
setting STEPS 2500 "steps, equilibration included"
setting EQUIL 500 "equilibration steps"
setting SHORT_STEPS 3 "cpu-allpairs' steps"
setting PRECISIONS double "precisions"
setting REORDER 100 "--reorder (0: rows to cpu_chain_reorder0.csv)"
settings_parse "$@"
plan=$print_plan
out=${OUT_DIR:-results/$(machine_name)}
[ $plan = 1 ] || mkdir -p "$out"
csv=$out/cpu_chain.csv
[ "$REORDER" != 100 ] && csv=$out/cpu_chain_reorder$REORDER.csv
chain="cpu-pairlist cpu-grouped cpu-full cpu-layer"
others="cpu-cells"
# the reference only on request; it has no reorder knob
[ $allpairs = 1 ] && [ "$REORDER" = 100 ] && others="cpu-cells cpu-allpairs"
systems=("sp 48" "lj 32")
n_points=0
for prec in $PRECISIONS; do n_points=$((n_points + ${#systems[@]} * $(echo $chain $others | wc -w))); done
[ $plan = 1 ] || progress_start "$n_points"

for prec in $PRECISIONS; do
    for sys in "${systems[@]}"; do
        set -- $sys
        for v in $chain $others; do
            steps=$STEPS equil=$EQUIL reorder=(--reorder "$REORDER")
            [ "$v" = cpu-allpairs ] && steps=$SHORT_STEPS equil=0 reorder=()  # no cells to reorder
            cmd=("$BUILD/$prec/$v" --system "$1" --ne "$2" --steps "$steps" --equil "$equil" "${reorder[@]}")
            tag="chain-$v-$prec-$1-$2-s$steps"
            if [ $plan = 1 ]; then echo "$tag	${cmd[*]}"; continue; fi
            run_point "$csv" "$tag" -- "${cmd[@]}" || echo "  FAILED: $v $prec $1 $2" >&2
        done
    done
done
[ $plan = 1 ] && exit 0

# The table: us/atom-step and the paper's observables, then the ratios along the chain.
for prec in $PRECISIONS; do
    for sys in "${systems[@]}"; do
        set -- $sys
        printf '\n%s %s Ne=%s (%s):\n' "$(machine_name)" "$1" "$2" "$prec"
        printf '  %-13s %10s %8s %6s %6s %9s %10s\n' variant us/atom-st N_p/N_a N_l N_u bytes/at drift
        for v in $chain $others; do
            steps=$STEPS; [ "$v" = cpu-allpairs ] && steps=$SHORT_STEPS
            t="chain-$v-$prec-$1-$2-s$steps"
            printf '  %-13s %10s %8s %6s %6s %9s %10s\n' "$v" "$(csv_val "$csv" "$t" us_per_atom_step)" \
                "$(csv_val "$csv" "$t" nbr_per_atom)" "$(csv_val "$csv" "$t" layers)" \
                "$(csv_val "$csv" "$t" steps_per_rebuild)" "$(csv_val "$csv" "$t" bytes_per_atom)" \
                "$(csv_val "$csv" "$t" drift)"
        done
        us() { csv_get "$csv" "chain-$1-$prec-$3-$4-s$STEPS" us_per_atom_step || true; }
        p=$(us cpu-pairlist x "$1" "$2"); g=$(us cpu-grouped x "$1" "$2")
        f=$(us cpu-full x "$1" "$2"); l=$(us cpu-layer x "$1" "$2")
        if [ -n "$p" ] && [ -n "$g" ] && [ -n "$f" ] && [ -n "$l" ]; then
            # each system's ratios under its own name; the paper's (system S) only beside SP's
            awk -v p="$p" -v g="$g" -v f="$f" -v l="$l" -v sys="$1" -v ne="$2" 'BEGIN {
                split(sys == "sp" ? "1.16 1.42 1.17 1.92" : "", paper, " ")
                r[1] = g / p; r[2] = f / g; r[3] = l / f; r[4] = l / p
                split("grouped/pairlist full/grouped layer/full layer/pairlist", name, " ")
                printf "  ratios, %s Ne=%s%s:", sys, ne, sys == "sp" ? " (the paper'"'"'s, on S = SP Ne=48, in brackets)" : " (the paper gives none for LJ)"
                for (k = 1; k <= 4; k++) printf "  %s %.2fx%s", name[k], r[k], (k in paper) ? " (" paper[k] "x)" : ""
                printf "\n" }'
        fi
    done
done
