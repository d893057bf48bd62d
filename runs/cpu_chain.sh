#!/usr/bin/env bash
# runs/cpu_chain.sh - Rapaport 2011's chain of CPU algorithm changes, one core:
#   pair list -> grouped by atom (1.16x) -> no Newton 3 (1.42x) -> layer matrix (1.17x),
#   cumulative 1.92x, measured by the paper on system S (SP, Ne = 48).
# Runs every CPU variant on SP Ne = 48 and LJ Ne = 32 (2000 timed steps after the 500-step
# equilibration unless STEPS says otherwise), appends to results/<machine>/cpu_chain.csv and
# prints the step-by-step ratios beside the paper's. Resumable: points already in the CSV
# are skipped (REDO=1 reruns). cpu-allpairs is O(N^2): it runs SHORT_STEPS steps only.
# REORDER (default 100, the programs' default) sets --reorder; the paper's CPU chain does not
# say that it reordered, so REORDER=0 is the closer reading: its rows go to
# cpu_chain_reorder0.csv, apart from the default ones.
#   env: STEPS (2500) EQUIL (500) PRECISIONS ("double") SHORT_STEPS (3) REORDER (100) REDO KEEP_OLD ALLOW_DIRTY
#        OUT_DIR (default results/<machine>)
set -euo pipefail
cd "$(dirname "$0")/.."
. runs/lib.sh
STEPS=${STEPS:-2500} EQUIL=${EQUIL:-500} SHORT_STEPS=${SHORT_STEPS:-3}
PRECISIONS=${PRECISIONS:-double}
out=${OUT_DIR:-results/$(machine_name)}
mkdir -p "$out"
REORDER=${REORDER:-100}
csv=$out/cpu_chain.csv
[ "$REORDER" != 100 ] && csv=$out/cpu_chain_reorder$REORDER.csv
chain="cpu-pairlist cpu-grouped cpu-full cpu-layer"
others="cpu-cells cpu-allpairs"
[ "${REORDER:-100}" != 100 ] && others="cpu-cells"   # cpu-allpairs has no reorder knob

for prec in $PRECISIONS; do
    for sys in "sp 48" "lj 32"; do
        set -- $sys
        for v in $chain $others; do
            steps=$STEPS equil=$EQUIL reorder=(--reorder "$REORDER")
            [ "$v" = cpu-allpairs ] && steps=$SHORT_STEPS equil=0 reorder=()  # no cells to reorder
            run_point "$csv" "chain-$v-$prec-$1-$2-s$steps" -- \
                "$BUILD/$prec/$v" --system "$1" --ne "$2" --steps "$steps" --equil "$equil" "${reorder[@]}" ||
                echo "  FAILED: $v $prec $1 $2" >&2
        done
    done
done

# The table: us/atom-step and the paper's observables, then the ratios along the chain.
for prec in $PRECISIONS; do
    for sys in "sp 48" "lj 32"; do
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
            awk -v p="$p" -v g="$g" -v f="$f" -v l="$l" 'BEGIN {
                printf "  ratios (paper, SP Ne=48):  grouped/pairlist %.2fx (1.16x)  full/grouped %.2fx (1.42x)  layer/full %.2fx (1.17x)  layer/pairlist %.2fx (1.92x)\n",
                       g / p, f / g, l / f, l / p }'
        fi
    done
done
