# --system lammps-lj (LAMMPS's LJ benchmark, bench/in.lj: fcc, rho 0.8442, r_c 2.5, skin 0.3,
# T0 1.44, NVE) on the CPU:
#   lammps-lj-check-*   every CPU variant passes --check, and --verify-lists where it keeps a structure
#                       after 300 steps from the fcc start (it melts), double and float
#   lammps-lj-vs-log    the start against LAMMPS's own (tests/data/lammps_lj6.log: reference/
#                       lammps/in.lammps-lj, ne 6 = 864 atoms, run 0): U/N (LAMMPS prints 8
#                       digits: within 2e-7), the virial part of the pressure, P - (kinetic part),
#                       within 2e-6 (LAMMPS: Press - 2/3 rho KE/N; nbrlab: P - rho T), and the
#                       neighbours per atom within r_c + skin (LAMMPS's half list x 2 = nbrlab's
#                       N_p/N_a, exactly). The comparison fails on a planted fault: --rc 2.7 (the next fcc shell, 2.66, counted)
#                       (lammps-lj-vs-log-catches-*)
#   lammps-lj-fcc-n     N = 4 ne^3 and L = (N / rho)^(1/3), from --print-config
# The dynamics against LAMMPS (E/N, T, P in the melt, within the seed spread) is
# runs/rumd_lammps_lj.sh, result in results/cpu-amd-epyc/lammps_lj.md.
b=$BUILD/double
# _lj_vs_log LOG PROG ARGS...: nbrlab's step-0 line against the LAMMPS log's step 0
_lj_vs_log() {
    local log=$1 out; shift
    out=$("$@" --system lammps-lj --ne 6 --steps 0 --equil 0 --stage-reps 0) || { echo "$out"; return 1; }
    echo "$out" | grep 'step 0:'
    { grep -A1 '^Step ' "$log" | tail -1; grep '^Ave neighs/atom' "$log"; echo "$out" | grep 'step 0:'; } |
        awk -v rho=0.8442 'NR == 1 { lu = $3; lke = $4; lp = $6; next }
            NR == 2 { ln = 2 * $4; next }
            { for (k = 1; k < NF; k++) { if ($k == "U/N") u = $(k + 2); if ($k == "T") t = $(k + 2)
                                          if ($k == "P") p = $(k + 2); if ($k == "nbr/atom") nb = $(k + 2) } }
            END { lw = lp - 2.0 / 3 * rho * lke; w = p - rho * t
                  printf "U/N %s vs LAMMPS %s; virial pressure %.7f vs %.7f; neighbours/atom %s vs %s\n", u, lu, w, lw, nb, ln
                  du = u - lu; dw = w - lw
                  exit !(du * du <= 4e-14 && dw * dw <= 4e-12 && nb + 0 == ln + 0) }'
}
_fails() { ! "$@"; }
for v in cpu-grouped cpu-pairlist cpu-layer cpu-full cpu-cells; do
    for prec in double float; do
        [ -x "$BUILD/$prec/$v" ] || { t_skip "lammps-lj-check-$v-$prec" "not built"; continue; }
        # --verify-lists where the program keeps a structure between steps (cpu-cells keeps none)
        vl=()
        [ "$("$BUILD/$prec/$v" --print-config | sed -n 's/^keeps_structure=//p')" = 1 ] && vl=(--verify-lists)
        t_grep "lammps-lj-check-$v-$prec" '^check pass ' check_passes "$TEST_LOG_DIR/lammps-lj-check-$v-$prec.csv" \
            "$BUILD/$prec/$v" --system lammps-lj --ne 6 --steps 300 --check "${vl[@]}" --stage-reps 0 --quiet
    done
done
t_ok lammps-lj-vs-log-grouped _lj_vs_log tests/data/lammps_lj6.log $b/cpu-grouped
t_ok lammps-lj-vs-log-layer _lj_vs_log tests/data/lammps_lj6.log $b/cpu-layer
t_ok lammps-lj-vs-log-catches-rc _fails _lj_vs_log tests/data/lammps_lj6.log $b/cpu-grouped --rc 2.7
_lj_fcc_n() {
    local cfg
    cfg=$("$b/cpu-grouped" --system lammps-lj --ne 20 --print-config) || return 1
    echo "$cfg" | grep -E '^(n|L|lattice)='
    echo "$cfg" | awk -F= '$1 == "n" { n = $2 } $1 == "L" { L = $2 } $1 == "lattice" { lat = $2 }
        END { want = (32000 / 0.8442) ^ (1 / 3); exit !(n == 32000 && lat == "fcc" && (L - want) ^ 2 < 1e-16) }'
}
t_ok lammps-lj-fcc-n _lj_fcc_n
