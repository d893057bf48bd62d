# Unit tests of the common core (tests/test_core.c), both precisions.
for prec in double float; do
    t_grep "core-unit-$prec" ' 0 failed' "$BUILD/$prec/test-core"
done

# The running-ahead loop (md_loop.c, --decide device) on the CPU, with a stand-in device whose
# rebuilds need the host (tests/loop_emulator.c, as gpu-dd): from the same start, with no
# equilibration (rescaling reads the host's every-step sums, the device path its samples), the
# device path with and without run_horizon rebuilds at the host decision's steps and ends in
# the same state to every printed digit; the horizon hands the device fewer than half the steps.
loop_emulator_args="--ne 8 --steps 600 --equil 0 --sample-every 100 --stage-reps 0"
# loop_emulator_as_host HOST OUT...: every OUT rebuilds at HOST's steps and prints its energies
loop_emulator_as_host() {
    local host=$1 out pick='rebuilds after|energy E/N'; shift
    for out in "$@"; do
        [ "$(grep -E "$pick" <<<"$out")" = "$(grep -E "$pick" <<<"$host")" ] ||
            { echo "differs from the host decision:"; grep -E "$pick" <<<"$host"; grep -E "$pick" <<<"$out"; return 1; }
    done
}
loop_emulator_same() {
    local b=$1 args=$loop_emulator_args host dev0 dev
    host=$($b $args --decide host) && dev0=$(NBR_EMU_HORIZON=0 $b $args --decide device) &&
        dev=$($b $args --decide device) || { echo "a run failed"; return 1; }
    loop_emulator_as_host "$host" "$dev0" "$dev" || return 1
    local n0 n1
    n0=$(grep -oE '[0-9]+ device steps launched' <<<"$dev0" | cut -d' ' -f1)
    n1=$(grep -oE '[0-9]+ device steps launched' <<<"$dev" | cut -d' ' -f1)
    echo "same rebuild steps and energies; device steps launched: $n0 without the horizon, $n1 with it"
    [ "$n1" -gt 0 ] && [ $((2 * n1)) -lt "$n0" ] || { echo "the horizon saved too little"; return 1; }
}

# The fused order of --leapfrog fused (md_loop.c: one kick_drift opening each chunk, then per
# step rebuild, forces and leapfrog = kick, decide and the next step's kick_drift, except at the
# chunk's last step) through the same emulator: with and without the horizon, the same rebuild
# steps and energies as the host decision, and as many device steps as the split order.
# Planted faults, each tried and caught: the loop's leapfrog drifting at the chunk's last step
# too (v.leapfrog(s, 1): 33 rebuilds, E/N 1.803 at the end), or a kick_drift at every chunk's
# last step besides the leapfrog's (the run ends unstable).
loop_emulator_fused() {
    local b=$1 args=$loop_emulator_args host split fused0 fused
    host=$($b $args --decide host) && split=$($b $args --decide device) &&
        fused0=$(NBR_EMU_HORIZON=0 $b $args --decide device --leapfrog fused) &&
        fused=$($b $args --decide device --leapfrog fused) || { echo "a run failed"; return 1; }
    local launched='[0-9]+ device steps launched'
    loop_emulator_as_host "$host" "$fused0" "$fused" || return 1
    [ "$(grep -oE "$launched" <<<"$fused")" = "$(grep -oE "$launched" <<<"$split")" ] ||
        { echo "device steps: split $(grep -oE "$launched" <<<"$split"), fused $(grep -oE "$launched" <<<"$fused")"
          return 1; }
    echo "fused order: same rebuild steps and energies as the host decision, $(grep -oE "$launched" <<<"$fused")"
}
for prec in double float; do
    t_grep "loop-emulator-device-same-as-host-$prec" 'same rebuild steps' loop_emulator_same "$BUILD/$prec/test-loop"
    t_grep "loop-emulator-fused-same-as-host-$prec" 'fused order: same rebuild steps' loop_emulator_fused \
        "$BUILD/$prec/test-loop"
done
