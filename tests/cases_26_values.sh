# Pressure and temperature by value against LAMMPS (reference/lammps/in.nbrlab and
# in.lammps-lj; the same start: simple cubic or fcc lattice at the system's density), from the
# CSV's pressure column and the blocks CSV's temp_mean:
#   value-pressure-csv-*-vs-lammps  the lattice at --temp 0 (no motion: forces cancel by
#       symmetry, so every production sample is the start), the CSV pressure against the log's
#       step-0 pressure less its kinetic part, Press - 2/3 rho KE/N (LAMMPS prints 8 digits:
#       within 2e-6): SP (tests/data/lammps_sp6.log, ne 6), LJ (tests/data/lammps_ljsys9_long.log,
#       ne 9) and lammps-lj (tests/data/lammps_lj6.log, fcc ne 6); e_start, then U/N, against
#       PotEng. Double and float. Catches a wrong virial.
#   value-melt-*-vs-lammps  the liquid: LAMMPS's protocol (--equil 1000 rescaled every 20
#       steps, then NVE; LAMMPS ran 4000 steps, nbrlab 4000 in 4 blocks, sampled every 100 as
#       LAMMPS's thermo 100), the CSV pressure against the mean Press of the log's timed run, the
#       timed blocks' mean temp_mean x N/(N-1) (LAMMPS's temp counts 3N - 3 degrees of freedom)
#       against its mean Temp. The microstates differ (other velocities), so the tolerance is
#       statistical, from 8 seeds of cpu-grouped (double) against the one LAMMPS run:
#         SP ne 6:  nbrlab P 6.588 sd 0.08, T 1.001 sd 0.012; LAMMPS P 6.601, T 1.004.
#                   Bounds |dP| <= 0.4, |dT| <= 0.07 (4 sd of a difference of two such runs).
#         LJ ne 9:  nbrlab P 0.124 sd 0.009, T 1.197 sd 0.011; LAMMPS P 0.149, T 1.244: the
#                   gas-liquid system is still relaxing after 1000 steps and LAMMPS's
#                   instantaneous rescaling (fix temp/rescale) ends it warmer than nbrlab's
#                   rescaling to the mean over the interval. Bounds |dP| <= 0.08, |dT| <= 0.12
#                   (that difference plus 4 sd).
#       Catches a pressure without its kinetic part (SP -0.8, LJ -0.46), temperatures off by a
#       degree-of-freedom factor of 2/3 or 3/2, an equilibration rescaling to 2T.
# The run row's own measured temperature column, where there is one, deserves the same test.
T26=$TEST_LOG_DIR/t26
mkdir -p "$T26"

# _t26_lammps_start LOG RHO: the first thermo line's Press - 2/3 rho KE and PotEng (per atom)
_t26_lammps_start() {
    awk -v rho="$2" '/^Step / { for (k = 1; k <= NF; k++) { if ($k == "Press") cp = k; if ($k == "KinEng") ck = k
                                                             if ($k == "PotEng") cu = k }
                                getline; printf "%.10g %s\n", $cp - 2.0 / 3 * rho * $ck, $cu; exit }' "$1"
}

# _t26_lattice PREC LOG RHO SYSTEM NE: the motionless lattice's CSV pressure and e_start (= U/N)
# against the log; double within LAMMPS's 8 digits (2e-6, 1e-7), float within 1e-5 and 4e-6
# (float measured up to 2.0e-6 and 8.1e-7 off, lammps-lj); temp_mean below 1e-6 (float: 7e-11)
_t26_lattice() {
    local prec=$1 log=$2 rho=$3 csv=$T26/lattice-$1-$4.csv want got e t
    rm -f "$csv" "$csv.blocks"
    "$BUILD/$prec/cpu-grouped" --system "$4" --ne "$5" --temp 0 --equil 0 --steps 200 --stage-reps 0 --quiet \
        --allow-dirty --csv "$csv" --blocks-csv "$csv.blocks" || return 1
    want=$(_t26_lammps_start "$log" "$rho") && got=$(python3 runs/csvq.py get "$csv" pressure) &&
        e=$(python3 runs/csvq.py get "$csv" e_start) && t=$(python3 runs/csvq.py get "$csv.blocks" temp_mean) || return 1
    awk -v g="$got" -v w="${want% *}" -v e="$e" -v u="${want#* }" -v t="$t" -v f="$([ "$prec" = float ] && echo 1)" 'BEGIN {
        printf "pressure %s, LAMMPS Press - 2/3 rho KE/N = %s; e_start %s, PotEng %s; temp_mean %s\n", g, w, e, u, t
        dp = f ? 1e-5 : 2e-6; du = f ? 4e-6 : 1e-7
        exit !(w != "" && u != "" && (g - w) ^ 2 <= dp * dp && (e - u) ^ 2 <= du * du && t * t < 1e-12) }'
}

# _t26_melt SYSTEM NE LOG DP DT: the liquid's CSV pressure and blocks' temperature against the log
_t26_melt() {
    local sys=$1 ne=$2 log=$3 dp=$4 dt=$5 csv=$T26/melt-$1.csv
    rm -f "$csv" "$csv.blocks"
    "$BUILD/double/cpu-grouped" --system "$sys" --ne "$ne" --equil 1000 --steps 5000 --sample-every 100 --seed 7 \
        --stage-reps 0 --quiet --allow-dirty --csv "$csv" --blocks-csv "$csv.blocks" || return 1
    python3 - "$csv" "$csv.blocks" "$log" "$dp" "$dt" <<'EOF'
import csv, sys
sys.path.insert(0, "runs"); import csvq  # the rows with knobs expanded (docs/csv.md)
row = list(csvq.read(sys.argv[1]).rows)[-1]
blocks = [b for b in csvq.read(sys.argv[2]).rows if int(b["timed_steps"]) > 0]
n = int(row["n"])
timed = sum(int(b["timed_steps"]) for b in blocks)
assert timed == 4000, "%d timed steps in the blocks, want 4000" % timed
t_nbr = sum(float(b["temp_mean"]) * int(b["timed_steps"]) for b in blocks) / timed * n / (n - 1)
p_nbr = float(row["pressure"])
# the log's second run (after the equilibration): thermo lines after its step 0
runs, cols, lines = 0, None, []
for line in open(sys.argv[3]):
    f = line.split()
    if f[:1] == ["Step"]:
        runs += 1; cols = f; continue
    if line.startswith("Loop time"):
        cols = None; continue
    if runs == 2 and cols and len(f) == len(cols) and f[0].isdigit() and int(f[0]) > 0:
        lines.append(dict(zip(cols, map(float, f))))
assert len(lines) == 40, "%d thermo lines in the log's timed run, want 40" % len(lines)
p_l = sum(x["Press"] for x in lines) / len(lines)
t_l = sum(x["Temp"] for x in lines) / len(lines)
dp, dt = float(sys.argv[4]), float(sys.argv[5])
print("pressure %.5f vs LAMMPS %.5f (bound %g); temperature %.5f vs LAMMPS %.5f (bound %g)" % (p_nbr, p_l, dp, t_nbr, t_l, dt))
assert abs(p_nbr - p_l) <= dp, "pressure off LAMMPS's by more than %g" % dp
assert abs(t_nbr - t_l) <= dt, "temperature off LAMMPS's by more than %g" % dt
EOF
}

if [ -x "$BUILD/double/cpu-grouped" ]; then
    for prec in double float; do
        [ -x "$BUILD/$prec/cpu-grouped" ] || { t_skip "value-pressure-csv-$prec" "not built"; continue; }
        t_ok value-pressure-csv-sp-vs-lammps-$prec _t26_lattice $prec tests/data/lammps_sp6.log 0.8 sp 6
        t_ok value-pressure-csv-lj-vs-lammps-$prec _t26_lattice $prec tests/data/lammps_ljsys9_long.log 0.38 lj 9
        t_ok value-pressure-csv-lammps-lj-vs-lammps-$prec _t26_lattice $prec tests/data/lammps_lj6.log 0.8442 lammps-lj 6
    done
    t_ok value-melt-sp-vs-lammps _t26_melt sp 6 tests/data/lammps_sp6_long.log 0.4 0.07
    t_ok value-melt-lj-vs-lammps _t26_melt lj 9 tests/data/lammps_ljsys9_long.log 0.08 0.12
else
    t_skip value "$BUILD/double/cpu-grouped not built"
fi
