#!/usr/bin/env bash
# runs/cpu_cluster.sh [--print-plan] - cpu-cluster at each SIMD level this CPU has, beside
# cpu-grouped and cpu-pairlist, one core, lammps-lj (LAMMPS's in.lj; --systems adds Rapaport's
# sp and lj, where LAMMPS itself joins them in double) at several N, interleaved: for each N every program in turn, REPS rounds. Appends to
# results/<machine>/cpu_cluster.csv and prints us/atom-step per program and N with cpu-cluster's
# ratio to cpu-grouped (issue 37's CPU target: at most 0.5 at N >= 32 768) and its row columns
# (shape, fill, pair_eff, list_bpa).
# cpu-cluster runs at each level with its own j-cluster size (--jclusters "4 8" adds the other
# shapes) and again with --prune (--prune 0 leaves that out).
# Each point times about ATOM_STEPS atom-steps (steps = ATOM_STEPS / N, at least MIN_STEPS), no
# stage replays; sp and lj after EQUIL steps of equilibration (sp at N = 262 144: the 40 timed
# steps from the lattice rebuilt once, after 200 steps three times, and cpu-grouped took 0.054
# against 0.080 us/atom-step). Duration on the 2-core AMD EPYC: --systems "sp lj" --nes-sc
# "32 64" --precisions "float double" --levels "avx2 avx512" --jclusters "0 4" --prune "0.1
# 0.3" --reps 3 (348 points, LAMMPS among them) took 30 min.
# Quick form (the tests): --nes 6 --atom-steps 20000 --out-dir DIR.
# Settings: runs/cpu_cluster.sh --help (docs/drivers.md).
set -euo pipefail
cd "$(dirname "$0")/.."
. runs/lib.sh
settings_begin "runs/cpu_cluster.sh [--print-plan] [settings]" "cpu-cluster per SIMD level beside cpu-grouped, cpu-pairlist -> cpu_cluster.csv"
setting_switch print_plan "print the points and exit"
setting OUT_DIR "" "where the CSV goes (default results/<machine>)"
setting SYSTEMS "lammps-lj" "systems (also sp, lj: Rapaport's, on the sc lattice)"
setting NES "10 20 30 40" "lammps-lj's fcc cells per edge (N = 4 ne^3: 4 000, 32 000, 108 000, 256 000)"
setting NES_SC "32 48 64" "sp's and lj's sc cells per edge (N = ne^3: 32 768, 110 592, 262 144)"
setting ATOM_STEPS 10000000 "atom-steps per point (steps = this / N)"
setting MIN_STEPS 40 "fewest steps a point runs"
setting EQUIL 200 "sp's and lj's equilibration steps before the timed ones (rescaled, not timed; 0: timed from the lattice, where the first steps of a large N are still a crystal)"
setting PRECISIONS float "precisions"
setting LEVELS "scalar avx2 avx512" "cpu-cluster's --simd levels (those this CPU lacks are left out)"
setting JCLUSTERS 0 "cpu-cluster's --jcluster sizes per level (0: the level's own, its SIMD width; 4, 8 where the level takes them)"
setting PRUNE 0.1 "cpu-cluster's --prune buffers, each level run with each too (0: without only)"
setting REPS 1 "rounds of the whole interleaved plan"
setting LAMMPS auto "LAMMPS (runs/lmp_variant.sh) among the programs at sp and lj in double: auto (where lmp is), on, off"
settings_parse "$@"
plan=$print_plan
out=${OUT_DIR:-results/$(machine_name)}
[ $plan = 1 ] || mkdir -p "$out"
csv=$out/cpu_cluster.csv
flags=" $(grep -m1 '^flags' /proc/cpuinfo 2>/dev/null) "
has() {   # the CPU's word (/proc/cpuinfo) on a level
    case $1 in
    scalar) return 0 ;;
    avx2) [[ $flags == *" avx2 "* && $flags == *" fma "* ]] ;;
    avx512) [[ $flags == *" avx512f "* && $flags == *" avx512vl "* ]] ;;
    *) return 1 ;;
    esac
}
levels=()
for l in $LEVELS; do if has "$l"; then levels+=("$l"); else echo "  this CPU lacks $l: left out" >&2; fi; done
# program specs: name[:level]
# cpu-cluster's: LEVEL[-jM][-prune[B]] (--jcluster M, --prune B; with one buffer in PRUNE the
# word is "prune", as in the rows before PRUNE took several)
buffers=()
for b in $PRUNE; do
    awk -v b="$b" 'BEGIN { exit !(b + 0 == b && b >= 0) }' ||
        { echo "cpu_cluster.sh: --prune: '$b' is not a buffer (a number >= 0)" >&2; exit 2; }
    awk -v b="$b" 'BEGIN { exit !(b > 0) }' && buffers+=("$b")
done
specs=(cpu-grouped cpu-pairlist)
for l in "${levels[@]}"; do
    for m in $JCLUSTERS; do
        [ "$m" = 0 ] && m= || m=-j$m
        specs+=("cpu-cluster:$l$m")
        for b in "${buffers[@]}"; do
            if [ ${#buffers[@]} = 1 ]; then specs+=("cpu-cluster:$l$m-prune"); else specs+=("cpu-cluster:$l$m-prune$b"); fi
        done
    done
done
# a spec's flags after the program
spec_flags() {
    local l=${1#*:} w
    [ "$l" = "$1" ] && return 0
    echo "--simd ${l%%-*}"
    for w in ${l//-/ }; do
        case $w in
        j[0-9]*) echo "--jcluster ${w#j}" ;;
        prune) echo "--prune ${buffers[0]}" ;;
        prune*) echo "--prune ${w#prune}" ;;
        esac
    done
}
for sys in $SYSTEMS; do
    case $sys in lammps-lj | sp | lj) ;; *) echo "cpu_cluster.sh: --systems: '$sys' is not lammps-lj, sp or lj" >&2; exit 2 ;; esac
done
case $LAMMPS in
auto) with_lammps=0; command -v lmp >/dev/null 2>&1 && with_lammps=1 ;;
on) command -v lmp >/dev/null 2>&1 || { echo "cpu_cluster.sh: --lammps on: no lmp on the PATH" >&2; exit 2; }; with_lammps=1 ;;
off) with_lammps=0 ;;
*) echo "cpu_cluster.sh: --lammps '$LAMMPS': auto, on or off" >&2; exit 2 ;;
esac
# the programs of a system and precision: LAMMPS (double only) runs in.nbrlab's sp and lj
specs_of() {
    echo "${specs[@]}"
    [ $with_lammps = 1 ] && [ "$1" != lammps-lj ] && [ "$2" = double ] && echo lammps
    return 0
}
nes_of() { if [ "$1" = lammps-lj ]; then echo $NES; else echo $NES_SC; fi; }
natoms() { if [ "$1" = lammps-lj ]; then echo $((4 * $2 * $2 * $2)); else echo $(($2 * $2 * $2)); fi; }
n_points=0
for prec in $PRECISIONS; do
    for sys in $SYSTEMS; do n_points=$((n_points + REPS * $(nes_of "$sys" | wc -w) * $(specs_of "$sys" "$prec" | wc -w))); done
done
[ $plan = 1 ] || progress_start "$n_points"
# lammps-lj's tags name no system (the rows before --systems)
tag_of() {
    local v=${1%%:*} l=${1#*:} s=$5
    [ "$l" = "$1" ] && l=
    [ "$s" = lammps-lj ] && s= || s=$s-
    echo "cc-$s$v${l:+-$l}-$2-ne$3-r$4"
}
for prec in $PRECISIONS; do
    for rep in $(seq 1 "$REPS"); do
        for sys in $SYSTEMS; do
            for ne in $(nes_of "$sys"); do
                n=$(natoms "$sys" "$ne")
                steps=$((ATOM_STEPS / n)); [ $steps -lt "$MIN_STEPS" ] && steps=$MIN_STEPS
                # in.lj is NVE from its lattice by definition; sp and lj equilibrate first
                equil=$EQUIL; [ "$sys" = lammps-lj ] && equil=0
                steps=$((steps + equil))
                for spec in $(specs_of "$sys" "$prec"); do
                    v=${spec%%:*}
                    cmd=("$BUILD/$prec/$v" --system "$sys" --ne "$ne" --steps "$steps" --equil "$equil" --stage-reps 0)
                    # shellcheck disable=SC2207
                    [ "$v" = cpu-cluster ] && cmd+=($(spec_flags "$spec"))
                    [ "$v" = lammps ] && cmd=(runs/lmp_variant.sh --system "$sys" --ne "$ne" --steps "$steps" --equil "$equil")
                    tag=$(tag_of "$spec" "$prec" "$ne" "$rep" "$sys")
                    if [ $plan = 1 ]; then echo "$tag	${cmd[*]}"; continue; fi
                    run_point "$csv" "$tag" -- "${cmd[@]}" || echo "  FAILED: $tag" >&2
                done
            done
        done
    done
done
[ $plan = 1 ] && exit 0

# the table: us/atom-step (the mean over REPS) and cpu-cluster's ratio to cpu-grouped
for prec in $PRECISIONS; do
  for sys in $SYSTEMS; do
    NES=$(nes_of "$sys")
    printf '\n%s %s %s, one core, us/atom-step (mean of %s round(s)); cluster/grouped in brackets:\n' \
        "$(machine_name)" "$sys" "$prec" "$REPS"
    printf '  %-46s' program
    for ne in $NES; do printf ' %16s' "N=$(natoms "$sys" "$ne")"; done
    printf '   %s\n' "cpu-cluster's row at the largest N"
    for spec in $(specs_of "$sys" "$prec"); do
        printf '  %-46s' "${spec%%:*} $(spec_flags "$spec" | paste -sd' ')"
        last=
        for ne in $NES; do
            vals=() g=()
            for rep in $(seq 1 "$REPS"); do
                x=$(csv_val "$csv" "$(tag_of "$spec" "$prec" "$ne" "$rep" "$sys")" us_per_atom_step); [ "$x" != - ] && vals+=("$x")
                y=$(csv_val "$csv" "$(tag_of cpu-grouped "$prec" "$ne" "$rep" "$sys")" us_per_atom_step); [ "$y" != - ] && g+=("$y")
            done
            cell=$(awk -v a="${vals[*]:-}" -v b="${g[*]:-}" -v c="${spec%%:*}" 'BEGIN {
                na = split(a, x, " "); nb = split(b, y, " "); if (!na) { printf "-"; exit }
                for (k = 1; k <= na; k++) s += x[k]; for (k = 1; k <= nb; k++) t += y[k]
                printf "%.4f", s / na; if (c == "cpu-cluster" && nb) printf " (%.2f)", (s / na) / (t / nb) }')
            printf ' %16s' "$cell"
            last=$(tag_of "$spec" "$prec" "$ne" "$REPS" "$sys")
        done
        if [ "${spec%%:*}" = cpu-cluster ]; then
            printf '   %s' "$(for c in shape fill pair_eff list_bpa prune_eff prune_slots; do
                x=$(csv_val "$csv" "$last" $c); [ "$x" = - ] || printf '%s=%s ' $c "$x"; done)"
        fi
        printf '\n'
    done
  done
done
