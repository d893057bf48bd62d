# Tier 3: energy conservation. SP, Ne = 16, 10^4 timed steps after 500 equilibration steps:
# the relative change of the mean total energy between the first and last 1000-step windows
# stays within 5e-4 in either precision (the paper: 1 part in 5000 over 10^5 steps of
# system S in float). Measured when the bound was set (2026-11-29, this CPU, 23 runs of
# the CPU variants over seeds and reorder settings): |drift| from 7e-7 to 1.1e-4, with no
# systematic sign and no difference between float and double at this length - the window
# means wander chaotically - so the bound leaves a 4-5x margin over the largest seen.
for v in cpu-cells cpu-pairlist cpu-grouped cpu-full cpu-layer; do
    [ -x "$BUILD/double/$v" ] || continue
    t_below "drift-$v-double" drift 5e-4 "$BUILD/double/$v" --ne 16 --steps 10500 --equil 500 --quiet
    t_below "drift-$v-float" drift 5e-4 "$BUILD/float/$v" --ne 16 --steps 10500 --equil 500 --quiet
done

# The integrator's order: the rms fluctuation of the total energy of velocity Verlet scales
# as dt^2, so halving dt over the same 4 time units divides it by ~4 (measured: 4.17 and
# 3.98 for dt 0.01 -> 0.005 -> 0.0025, SP Ne 8, double). A first-order or inconsistent
# integrator, or forces that are not the potential's gradient, give ~2 or less: the test
# accepts [3, 5.5]. (Checked to fail: with the second half-kick left out the ratio is 1.3.)
_t40_dt2() {   # VARIANT
    local e1 e2
    e1=$("$BUILD/double/$1" --ne 8 --equil 0 --steps 800 --dt 0.005 --avg-block 100 --stage-reps 0 --quiet |
         awk '/energy E\/N:/ { for (k = 1; k < NF; k++) if ($k == "rms") { sub(/;$/, "", $(k + 1)); print $(k + 1) } }')
    e2=$("$BUILD/double/$1" --ne 8 --equil 0 --steps 1600 --dt 0.0025 --avg-block 100 --stage-reps 0 --quiet |
         awk '/energy E\/N:/ { for (k = 1; k < NF; k++) if ($k == "rms") { sub(/;$/, "", $(k + 1)); print $(k + 1) } }')
    awk -v a="$e1" -v b="$e2" 'BEGIN { r = a / b; printf "rms(dt) %s, rms(dt/2) %s, ratio %.3f (want 3..5.5)\n", a, b, r;
                                        exit !(r >= 3 && r <= 5.5) }'
}
for v in cpu-allpairs cpu-grouped cpu-layer; do
    [ -x "$BUILD/double/$v" ] && t_grep "energy-error-dt2-$v" 'ratio' _t40_dt2 "$v"
done

# The check of the rebuild rule can fail: with the rebuild at 0.7 delta instead of 0.5 (a
# rule that no longer guarantees every pair within r_c is listed: measured, cpu-grouped LJ
# Ne 14 loses a pair at step 49) --verify-lists must stop the run (exit 5, one line naming
# the pair, the step and the displacement); at 0.5 the same run passes.
for v in cpu-grouped cpu-layer; do
    [ -x "$BUILD/double/$v" ] || continue
    t_error "verify-lists-catches-unsafe-rule-$v" 5 'verify-lists: step [0-9]+: pair \([0-9]+, [0-9]+\) .* missing' \
        "$BUILD/double/$v" --system lj --ne 14 --steps 2000 --equil 100 --verify-lists --rebuild-frac 0.7 \
        --stage-reps 0 --quiet
    t_grep "verify-lists-safe-rule-$v" 'no pair within r_c missing: ok' \
        "$BUILD/double/$v" --system lj --ne 14 --steps 2000 --equil 100 --verify-lists --rebuild-frac 0.5 \
        --stage-reps 0 --quiet
done
