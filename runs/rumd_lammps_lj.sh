#!/usr/bin/env bash
# runs/rumd_lammps_lj.sh - --system lammps-lj against LAMMPS's own LJ benchmark on this CPU
# (reference/lammps/in.lammps-lj: bench/in.lj with the half-skin rebuild check), one core each:
# E/N, T and P averaged over the second half of an NVE run from the fcc start (the crystal
# melts in the first few hundred steps), and neighbours per atom, for several seeds of each
# code. Agreement is judged against the seed-to-seed spread: |difference of the means| within
# 3 standard errors of that difference. Writes OUT (default results/cpu-amd-epyc/lammps_lj.md)
# and the logs beside it (logs/lammps-lj-*.log).
# Settings: runs/rumd_lammps_lj.sh --help (or the old variables).
set -u
cd "$(dirname "$0")/.."
. runs/lib.sh
settings_begin "runs/rumd_lammps_lj.sh [settings]" "--system lammps-lj against LAMMPS's LJ benchmark, several seeds -> lammps_lj.md"
setting NE 16 "fcc lattice edge: N = 4 ne^3 (16 384)"
setting STEPS 5000 "NVE steps; the second half is averaged"
setting SEEDS "1 2 3" "seeds of each code"
setting PROG "" "the nbrlab program (default BUILD/double/cpu-grouped)"
setting OUT results/cpu-amd-epyc/lammps_lj.md "the report (logs beside it, logs/lammps-lj-*.log)"
settings_parse "$@"
: "${PROG:=$BUILD/double/cpu-grouped}"
half=$((STEPS / 2))
logs=$(dirname "$OUT")/logs
mkdir -p "$logs"
command -v lmp >/dev/null || { echo "rumd_lammps_lj.sh: lmp not found (apt-get install lammps)" >&2; exit 2; }
[ -x "$PROG" ] || { echo "rumd_lammps_lj.sh: $PROG not built (make)" >&2; exit 2; }
rev=$("$PROG" --print-config | sed -n 's/^git_rev=//p')
rows=$(mktemp)
trap 'rm -f "$rows"' EXIT
for seed in $SEEDS; do
    log=$logs/lammps-lj-lammps-ne$NE-seed$seed.log
    _nbr_lock env OMP_NUM_THREADS=1 lmp -in reference/lammps/in.lammps-lj -var ne "$NE" \
        -var steps "$STEPS" -var seed $((87287 + seed)) -var thermo 50 -log "$log" -screen none ||
        { echo "lmp failed (seed $seed): $log" >&2; exit 1; }
    # means over thermo rows after step STEPS/2; neighbours: LAMMPS's half list times 2
    awk -v h=$half -v s=$seed '/^Step / { on = 1; next } /^Loop time/ { on = 0 }
        on && $1 > h { e += $5; t += $2; p += $6; n++ }
        /^Ave neighs\/atom/ { nb = 2 * $4 }
        END { printf "lammps %s %.8f %.6f %.6f %.3f\n", s, e / n, t / n, p / n, nb }' "$log" >>"$rows"
    blog=$logs/lammps-lj-nbrlab-ne$NE-seed$seed.log
    bcsv=$(mktemp)
    _nbr_lock "$PROG" --system lammps-lj --ne "$NE" --steps "$STEPS" --equil "$half" \
        --rescale-every 1000000000 --avg-block $((STEPS / 10)) --seed "$seed" --stage-reps 0 --blocks-csv "$bcsv" \
        >"$blog" 2>&1 || { echo "$PROG failed (seed $seed): $blog" >&2; exit 1; }
    # production = second half (equilibration without rescaling is plain NVE); E and T from the
    # blocks after step STEPS/2, P the production mean, N_p/N_a the production mean
    p=$(awk '/energy E\/N:/ { print $NF }' "$blog")
    nb=$(awk '/N_p\/N_a =/ { print $3 }' "$blog")
    awk -F, -v h=$half -v s=$seed -v p="$p" -v nb="$nb" 'NR > 1 && $9 > h { e += $12; t += $13; n++ }
        END { printf "nbrlab %s %.8f %.6f %.6f %.3f\n", s, e / n, t / n, p, nb }' "$bcsv" >>"$rows"
    rm -f "$bcsv"
done
{
    echo "# lammps-lj against LAMMPS's LJ benchmark (this CPU, one core each)"
    echo
    echo "nbrlab $rev ($PROG), $(head -1 "$logs/lammps-lj-lammps-ne$NE-seed${SEEDS%% *}.log") (Debian lammps);"
    echo "N = 4 x $NE^3 = $((4 * NE * NE * NE)), $STEPS NVE steps from the fcc start at T 1.44 (rho 0.8442, r_c 2.5, skin 0.3,"
    echo "dt 0.005); means over steps $half..$STEPS. T: LAMMPS over 3N - 3 degrees of freedom, nbrlab over 3N"
    echo "(a factor 1 - 1/N apart, negligible here); P: (sum v^2 + W) / 3V in both; neighbours per atom:"
    echo "LAMMPS's half-list count times 2 at the end of the run, nbrlab's N_p/N_a (production mean)."
    echo "Written by runs/rumd_lammps_lj.sh; logs in logs/lammps-lj-*.log."
    echo
    echo "| code | seed | E/N | T | P | neighbours/atom |"
    echo "|---|---|---|---|---|---|"
    awk '{ printf "| %s | %s | %s | %s | %s | %s |\n", $1, $2, $3, $4, $5, $6 }' "$rows"
    echo
    echo "| quantity | LAMMPS mean +- se | nbrlab mean +- se | difference / its se | verdict |"
    echo "|---|---|---|---|---|"
    awk 'function stats(c, k,   m, v, i) { m = 0; for (i = 1; i <= cnt[c]; i++) m += x[c, k, i]; m /= cnt[c]
             v = 0; for (i = 1; i <= cnt[c]; i++) v += (x[c, k, i] - m) ^ 2
             se = cnt[c] > 1 ? sqrt(v / (cnt[c] - 1) / cnt[c]) : 0; return m }
         { c = $1; cnt[c]++; for (k = 3; k <= 6; k++) x[c, k, cnt[c]] = $k }
         END { split("E/N T P neighbours/atom", name, " ")
               for (k = 3; k <= 6; k++) {
                   ml = stats("lammps", k); sl = se; mn = stats("nbrlab", k); sn = se
                   d = ml - mn; s = sqrt(sl * sl + sn * sn); z = s > 0 ? d / s : 0
                   ok = (z < 0 ? -z : z) <= 3 ? "agree" : "DIFFER"; if (ok == "DIFFER") bad = 1
                   printf "| %s | %.6g +- %.2g | %.6g +- %.2g | %.2f | %s |\n", name[k - 2], ml, sl, mn, sn, z, ok }
               exit bad }' "$rows"
} >"$OUT"
rc=$?
cat "$OUT"
exit $rc
