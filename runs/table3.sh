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
# all-device; float, 128 threads, texture, reorder 100, 6000 steps (500 equilibration). The step
# loop is GPU_LOOP's (runs/tables_lib.sh): with the device loop (the default) the all-device
# setting runs it (tag ...-device-loop=device-...) and the paper's setting, whose host layer
# assignment the device loop cannot run, keeps the paper's loop. The verdict is the list build's
# kernel time t_list_us (each stage replayed alone after the run), the whole step beside it.
# Appends to results/<machine>/table3.csv and prints the table.
# Settings: runs/table3.sh --help (docs/drivers.md).
set -euo pipefail
cd "$(dirname "$0")/.."
. runs/lib.sh
settings_begin "runs/table3.sh [settings]" "Rapaport 2011 Table 3: gpu-old against gpu-layer as r_c varies"
. runs/tables_lib.sh
setting NE 64 "system size (Ne)"
setting STEPS 6000 "steps"
setting EQUIL 500 "equilibration steps"
settings_parse "$@"
settings_shared   # SETTINGS_SHARED: the shared settings, handed on to runs/sweep.sh
csv=$OUT_DIR/table3.csv
cases=("sp 1.122462048309373 1" "sp 1.5 0.3203365943" "sp 2.0 0.0615234375" "lj 2.5 0.0163168911" "lj 3.0 0")
settings=("paper:--layers host --reduce host --reorder-at host" "device:--layers device --reduce device --reorder-at device")

# VARIANT RC SETTING LOOP (steps: a QUICK run is another point; the loop: none for the paper's)
tag_of() { echo "t3-$1-rc$2-$3$(gpu_loop_tag "$4")-ne$NE-s$STEPS"; }

progress_start $((${#cases[@]} * ${#settings[@]} * 2))   # runs/lib.sh: progress, time left
for c in "${cases[@]}"; do
    set -- $c
    sys=$1 rc=$2 shift=$3
    for st in "${settings[@]}"; do
        name=${st%%:*} knobs=${st#*:}
        loop=$(gpu_loop_of $knobs)
        for v in gpu-layer gpu-old; do
            bin=$BUILD/float/$v
            [ -x "$bin" ] || { echo "  no $bin" >&2; continue; }
            run_point "$csv" "$(tag_of "$v" "$rc" "$name" "$loop")" -- "$bin" --system "$sys" --rc "$rc" --shift "$shift" \
                --ne "$NE" --steps "$STEPS" --equil "$EQUIL" $knobs $(gpu_loop_flags "$loop" $knobs) ||
                echo "  FAILED: $v rc $rc $name" >&2
        done
    done
done

printf '\nTable 3 (%s, ne %s, float): production ns per atom-step; the list build kernel (us per build); its fraction of the time\n' \
    "$(machine_name)" "$NE"
printf '%-8s %-4s %-7s %-6s %9s %9s %7s %9s %9s %7s %8s %8s %5s %8s\n' r_c state setting loop new old old/new \
    list_new list_old old/new frac_new frac_old N_l N_p/N_a
for c in "${cases[@]}"; do
    set -- $c
    for st in "${settings[@]}"; do
        name=${st%%:*} loop=$(gpu_loop_of ${st#*:})
        tn=$(tag_of gpu-layer "$2" "$name" "$loop") to=$(tag_of gpu-old "$2" "$name" "$loop")
        v() { csv_val "$csv" "$1" "$2"; }
        awk -v rc="$2" -v s="$1" -v st="$name" -v lp="$loop" -v un="$(v "$tn" us_per_atom_step)" -v uo="$(v "$to" us_per_atom_step)" \
            -v ln="$(v "$tn" t_list_us)" -v lo="$(v "$to" t_list_us)" -v fn="$(v "$tn" frac_list)" -v fo="$(v "$to" frac_list)" \
            -v nl="$(v "$tn" layers)" -v np="$(v "$tn" nbr_per_atom)" '
            function num(x, f) { return x > 0 ? sprintf(f, x) : "-" }
            function ratio(a, b) { return (a > 0 && b > 0) ? sprintf("%.2f", a / b) : "-" }
            BEGIN {
            # every ?: in parentheses: a bare ">" in a printf argument list is an output redirection
            printf "%-8.4g %-4s %-7s %-6s %9s %9s %7s %9s %9s %7s %8s %8s %5s %8s\n", rc, s, st, lp, num(un * 1000, "%.4f"),
                   num(uo * 1000, "%.4f"), ratio(uo, un), num(ln, "%.4g"), num(lo, "%.4g"), ratio(lo, ln), fn, fo, nl, np }'
    done
done
echo "paper (FX770M, float): old/new ~1 at r_c = 3, ~2.5 for SP; list fraction SP 0.34 (new), 0.74 (old)"
