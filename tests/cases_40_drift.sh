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
