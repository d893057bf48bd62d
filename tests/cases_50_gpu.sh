# GPU variants: tiers 1-3 of the design on the device, for every gpu-* program built (found
# the way tests/cases_20_cpu_check.sh finds the CPU ones, so a new GPU variant gets these
# tests without editing this file). A knob-specific case runs only where the program has
# that flag (its --print-options: the option table). Every --check verdict is read from the
# run's CSV row (the row's check columns, docs/csv.md; check_passes and check_row in
# tests/lib.sh, one CSV per test under $TEST_LOG_DIR/gpu-rows), not from the lines printed.
#   check-*     --check after some MD steps: per-atom forces and energies against the O(N^2)
#               double reference and W against the brute-force pair set, SP, LJ and the
#               charged salt (charges must follow reordered atoms), several
#               N, float and double, and every knob value that selects a different code path
#               (read mode x W layout: each a kernel instantiation; layers, reduce and
#               reorder-at host/device; 32, 128 and 1024 threads per block)
#   grow-*      automatic capacities, grown in the middle of a run: an LJ gas quenched to
#               T 0.05 from the lattice condenses, so some atom outgrows the initial
#               neighbour capacity and some cell the initial layer capacity (each isolated by
#               making the other a large hard limit); grows >= 1 and the check still passes
#   verify-*    the rebuild rule (--verify-lists): every stale W still holds every pair
#               within r_c at its last use, SP and LJ over 2000 steps; and the check can
#               fail: at --rebuild-frac 0.7 (unsafe) the LJ run stops with exit 5 and one
#               line naming the missing pair, at 0.5 (the rule) the same run passes
#   drift-*     energy drift over 10^4 steps of SP ne 16 within a bound (set from H200 runs
#               with a margin, see DRIFT_BOUND_* below)
#   err-gpu-*   planted capacity overflows exit 3 with one line naming the flag
#   device-*    the device running ahead (--decide device, where the program has it): --check
#               after runs with graphs off and on and several --sample-every; the device
#               decision rebuilds at exactly the steps the host decision does over the first
#               500 steps (same start, no rescaling, double; the rebuild steps are hashed in
#               the summary); energy conservation over 10^4 steps as for the host decision;
#               an overflow planted with --grow-from 15 (room for 19 neighbours: the lattice
#               start needs 18, the liquid more) is grown and replayed from the last
#               sample point (grows >= 1) and ends in the state of a run with room to spare
#               (E/N within 1e-9 in double: the replay adds one rebuild, so only the order of
#               summation differs); the knobs it needs are refused without it
#   *-tp*       --tp (gpu-layer, gpu-old: TP lanes per atom of the W force kernel, their sums
#               shuffled together and the block partials of the TP blocks of a per-atom block
#               added by the last of them): --check and --verify-lists at t_p 2, 4, 8 (16 and 32
#               once), SP, LJ and the charged salt; t_p 1 and 4 give the same U (the check's
#               U, summed from the partials) to 1e-6 (float) / 1e-12 (double) at step 0, both
#               passing the per-atom check; a t_p the kernel has no instance for is refused.
#               Planted faults for the lead to try (none can run without a GPU): lanes not
#               striding (pair_force.cuh neighbour_loop: m += 1 for m += stride: forces TP times
#               too large, the row's check fail),
#               no group_sum (forces of lane 0 only, the row's check fail), the partial written to
#               slot `block` instead of `slot` (U wrong: check_e_rel beyond its tolerance,
#               tp-same FAIL)
#   device-fused-*  --leapfrog fused (one kernel for kick, decision and the next kick_drift):
#               --check after graphs off, on and cond at t_p 1 (cond, else on, at t_p 4); from the same start the
#               fused and split device loops rebuild at the same steps (hash) and end at the
#               same energy (2e-8) and pressure (2e-5) (double; the same per-atom arithmetic,
#               yet on the H200 not bit-identical: see gpu_fused_same),
#               with equilibration (rescales at sample points), reordering, and a planted
#               overflow replayed from a snapshot, float and double; fused with host decisions
#               is refused. Planted faults for the lead: the fused kernel's last block deciding
#               from its own block's max v^2 instead of the atomic max (integrate.cu; rebuild
#               hash differs), dropping the gated wrap (device_loop.cu launch_rebuild_kernels:
#               --check or the energies fail), drifting with the unkicked v (energies differ);
#               the loop's order is tested on the CPU too (cases_10_core: loop-emulator-fused)
# Without a GPU nothing runs: one SKIP line per group, never a pass.
# test-units: per-gpu-program
gpu_variants=""
for f in "$BUILD"/double/gpu-*; do
    [ -x "$f" ] || continue
    # GPU_TEST_VARIANTS (tests/run.sh with TEST_JOBS): only these programs, in this process
    [ -n "${GPU_TEST_VARIANTS:-}" ] && ! grep -qw -- "${f##*/}" <<<"$GPU_TEST_VARIANTS" && continue
    gpu_variants="$gpu_variants ${f##*/}"
done
gpu_groups="check grow verify drift err device"

if ! have_gpu || [ -z "$gpu_variants" ]; then
    why="no GPU found"
    have_gpu && why="no GPU variant built (nvcc missing?)"
    for grp in $gpu_groups; do t_skip "gpu-$grp" "$why"; done
    return 0 2>/dev/null || exit 0
fi

# --check's verdicts are read from each run's row (check_passes, check_row: tests/lib.sh), one
# CSV per test, kept beside its log
gpu_rows=$TEST_LOG_DIR/gpu-rows
mkdir -p "$gpu_rows"

# |relative drift| of SP ne 16 (4096 atoms) over 10^4 steps (500 equilibration). Measured on
# the H200 (gpu-layer and gpu-old alike): 3.5e-5 and 6.6e-5 in float, 4.0e-5 and 9.2e-5 in
# double over two code versions; the bound leaves a margin of 3x over the largest (the paper:
# 2e-4 over 10^5 steps of system S in float).
DRIFT_BOUND_float=3e-4
DRIFT_BOUND_double=3e-4

# gpu_has BIN FLAG: BIN takes --FLAG (the flags of BIN's --print-options, read once per program).
gpu_help_of="" gpu_help=""
gpu_has() {
    [ "$gpu_help_of" = "$1" ] || { gpu_help=$("$1" --print-options 2>/dev/null | cut -f1); gpu_help_of=$1; }
    grep -qx -- "$2" <<<"$gpu_help"
}

# gpu_drift_within BOUND BIN ARGS...: runs BIN, then |drift| from the summary line < BOUND.
gpu_drift_within() {
    local bound=$1 out; shift
    out=$("$@") || { echo "$out"; return 1; }
    echo "$out"
    echo "$out" | awk -v b="$bound" '/energy E\/N:.*drift/ { for (k = 1; k < NF; k++) if ($k == "drift") { d = $(k + 1); seen = 1 } }
        END { if (!seen) { print "no drift in the output"; exit 1 }
              if (d < 0) d = -d; printf "|drift| %.3g, bound %s\n", d, b; exit !(d < b) }'
}

# gpu_summary_field BIN WORD ARGS...: the token after WORD in BIN's output (the last one).
gpu_field() { awk -v w="$1" '{ for (k = 1; k < NF; k++) if ($k == w) v = $(k + 1) } END { print v }'; }

# gpu_same_rebuilds BIN ARGS...: host and device decisions rebuild at the same steps (both split).
gpu_same_rebuilds() {
    local b=$1 host dev lf=(); shift
    # the decision alone: the device run keeps the host's split leapfrog (fused, its default
    # there, differs at the rounding level: gpu_fused_same)
    gpu_has "$b" leapfrog && lf=(--leapfrog split)
    host=$("$b" "$@" --decide host) || { echo "$host"; return 1; }
    dev=$("$b" "$@" "${lf[@]}" --decide device) || { echo "$dev"; return 1; }
    host=$(echo "$host" | grep 'rebuilds after step 0'); dev=$(echo "$dev" | grep 'rebuilds after step 0')
    echo "host:   $host"; echo "device: $dev"
    [ -n "$host" ] && [ "$host" = "$dev" ]
}

# gpu_replay_same BIN ARGS...: a planted overflow (--grow-from) is grown and replayed, and
# the run ends where a run with ample (hard) capacities ends.
gpu_replay_same() {
    local b=$1 grown ample e1 e2; shift
    grown=$("$b" "$@" --grow-from 15) || { echo "$grown"; return 1; }
    ample=$("$b" "$@" --max-nbr 200) || { echo "$ample"; return 1; }
    echo "$grown" | grep -E 'grows = [1-9]' >/dev/null || { echo "$grown"; echo "no capacity grew"; return 1; }
    e1=$(echo "$grown" | grep 'energy E/N' | gpu_field end); e2=$(echo "$ample" | grep 'energy E/N' | gpu_field end)
    awk -v a="$e1" -v b="$e2" "$awk_rel"' BEGIN { d = rel(b, a, 0)
        printf "E/N at the end: replayed %s, ample %s, relative difference %.3g (bound 1e-9)\n", a, b, d; exit !(d <= 1e-9) }'
}

# gpu_tp_same CSV BIN TOL ARGS...: --tp 1 and --tp 4 both pass the --check (their rows CSV-tp1.csv
# and CSV-tp4.csv: check_row) and their U (from the block partials) agree to the relative TOL. U
# is in no column: it is read from the check's line.
gpu_tp_same() {
    local csv=$1 b=$2 tol=$3 one four u1 u4; shift 3
    rm -f "$csv-tp1.csv" "$csv-tp4.csv"
    one=$("$b" "$@" --tp 1 --check --csv "$csv-tp1.csv") || { echo "$one"; return 1; }
    four=$("$b" "$@" --tp 4 --check --csv "$csv-tp4.csv") || { echo "$four"; return 1; }
    u1=$(sed -nE 's/^check total energy: U = ([^,]+),.*/\1/p' <<<"$one")
    u4=$(sed -nE 's/^check total energy: U = ([^,]+),.*/\1/p' <<<"$four")
    check_row "$csv-tp1.csv" && check_row "$csv-tp4.csv" || return 1
    awk -v a="$u1" -v b="$u4" -v t="$tol" "$awk_rel"' BEGIN { d = rel(b, a, 0)
        printf "U: tp 1 %s, tp 4 %s, relative difference %.3g (bound %s)\n", a, b, d, t; exit !(a != "" && d <= t) }'
}

# gpu_fused_same BIN ARGS...: --leapfrog split and fused, double, from the same start over a short
# run, rebuild at the same steps, grow the same capacities and end at the same energy within 2e-8
# and pressure within 2e-5 (relative, absolute below magnitude 1: E/N is printed with 8
# decimals, the pressure with 6 digits, so two steps of the last printed digit). Not every digit: on the H200 (74c9736) the two loops differed at the rounding level (float: the first
# sample's E/N in the 8th digit; double: the same E/N at the first samples, then after 2000 steps
# chaos had moved 1 of 107 rebuild steps and the 6th digit of the end energy). 300-400 double
# steps keep a rounding difference far below that.
gpu_fused_same() {
    local b=$1 split fused; shift
    split=$("$b" "$@" --leapfrog split) || { echo "$split"; return 1; }
    fused=$("$b" "$@" --leapfrog fused) || { echo "$fused"; return 1; }
    pick() { grep -E 'rebuilds after step 0' <<<"$1"; grep -oE 'grows = [0-9]+' <<<"$1"; }
    endv() { sed -n "s/.*energy E\/N: start [^ ]* end \([^ ]*\) .*pressure \([^ ]*\).*/\1 \2/p" <<<"$1" | tail -1; }
    echo "split: $(pick "$split" | tr '\n' ' ') E/N end, pressure: $(endv "$split")"
    echo "fused: $(pick "$fused" | tr '\n' ' ') E/N end, pressure: $(endv "$fused")"
    [ -n "$(grep -E 'rebuilds after step 0' <<<"$split")" ] && [ "$(pick "$split")" = "$(pick "$fused")" ] ||
        { echo "different rebuild steps or capacity growths"; return 1; }
    [ -n "$(endv "$split")" ] || { echo "no end energy and pressure in the summary"; return 1; }
    awk -v s="$(endv "$split")" -v f="$(endv "$fused")" "$awk_rel"'
        BEGIN { split(s, a, " "); split(f, b, " "); if (rel(a[1], b[1], 1) > 2e-8 || rel(a[2], b[2], 1) > 2e-5) { print "energy or pressure differ beyond 2e-8 / 2e-5"; exit 1 } }'
}

# gpu_grows_and_passes CSV BIN ARGS...: exit 0, some capacity grew (the summary's line), and the
# --check passed (the row in CSV: check_row).
gpu_grows_and_passes() {
    local csv=$1 out; shift
    rm -f "$csv"
    out=$("$@" --csv "$csv" 2>&1) || { echo "$out"; return 1; }
    echo "$out"
    echo "$out" | grep -Eq 'grows = [1-9]' || { echo "no capacity grew"; return 1; }
    check_row "$csv"
}

for v in $gpu_variants; do
    for prec in ${GPU_TEST_PRECISIONS:-double float}; do   # (tests/run.sh with TEST_JOBS splits by it)
        b=$BUILD/$prec/$v
        [ -x "$b" ] || { t_skip "gpu-$v-$prec" "$b not built"; continue; }
        # sizes and systems, default knobs (the paper's: texture, row, host layers and reduce)
        for c in "sp 12 300" "sp 20 300" "sp 40 200" "lj 12 300" "lj 20 300"; do
            set -- $c
            t_grep "check-$v-$prec-$1-ne$2" '^check pass ' check_passes "$gpu_rows/check-$v-$prec-$1-ne$2.csv" \
                $b --system $1 --ne $2 --steps $3 --equil 100 --check --quiet
        done
        for c in "sp 16 boundary" "sp 10 random" "lj 10 random" "lj 12 jitter"; do
            set -- $c
            t_grep "check-$v-$prec-$1-ne$2-$3" '^check pass ' check_passes "$gpu_rows/check-$v-$prec-$1-ne$2-$3.csv" \
                $b --system $1 --ne $2 --config $3 --steps 0 --equil 0 --check --quiet
        done
        # every read mode x layout (each its own kernel instantiation), SP and LJ
        if gpu_has $b read && gpu_has $b wlayout; then
            for read in texture ldg plain; do
                for lay in row col; do
                    t_grep "check-$v-$prec-sp-$read-$lay" '^check pass ' check_passes \
                        "$gpu_rows/check-$v-$prec-sp-$read-$lay.csv" $b --ne 20 --read $read --wlayout $lay \
                        --steps 300 --equil 100 $(gpu_has $b reorder && echo --reorder 50) --check --quiet
                    t_grep "check-$v-$prec-lj-$read-$lay" '^check pass ' check_passes \
                        "$gpu_rows/check-$v-$prec-lj-$read-$lay.csv" \
                        $b --system lj --ne 12 --read $read --wlayout $lay --steps 200 --equil 100 --check --quiet
                done
            done
        fi
        # host / device alternatives; reordering every 20 steps so several happen
        for where in host device; do
            for sys in sp lj; do
                for knob in layers reduce; do
                    if gpu_has $b $knob; then
                        t_grep "check-$v-$prec-$sys-$knob-$where" '^check pass ' check_passes \
                            "$gpu_rows/check-$v-$prec-$sys-$knob-$where.csv" \
                            $b --system $sys --ne 14 --$knob $where --steps 300 --equil 100 --check --quiet
                    fi
                done
                if gpu_has $b reorder-at; then
                    t_grep "check-$v-$prec-$sys-reorder-at-$where" '^check pass ' check_passes \
                        "$gpu_rows/check-$v-$prec-$sys-reorder-at-$where.csv" $b --system $sys --ne 14 --reorder 20 \
                        --reorder-at $where --steps 300 --equil 100 --check --quiet
                fi
            done
        done
        if gpu_has $b reorder; then
            t_grep "check-$v-$prec-sp-no-reorder" '^check pass ' check_passes \
                "$gpu_rows/check-$v-$prec-sp-no-reorder.csv" \
                $b --ne 14 --reorder 0 --steps 300 --equil 100 --check --quiet
        fi
        if gpu_has $b layers && gpu_has $b reduce && gpu_has $b reorder-at && gpu_has $b read; then
            t_grep "check-$v-$prec-sp-all-device" '^check pass ' check_passes \
                "$gpu_rows/check-$v-$prec-sp-all-device.csv" $b --ne 20 --layers device --reduce device \
                --reorder-at device --reorder 20 --read ldg --steps 300 --equil 100 --check --quiet
        fi
        if gpu_has $b threads; then
            for threads in 32 128 1024; do
                t_grep "check-$v-$prec-sp-threads$threads" '^check pass ' check_passes \
                    "$gpu_rows/check-$v-$prec-sp-threads$threads.csv" \
                    $b --ne 20 --threads $threads --steps 300 --equil 100 --check --quiet
                t_grep "check-$v-$prec-lj-threads$threads" '^check pass ' check_passes \
                    "$gpu_rows/check-$v-$prec-lj-threads$threads.csv" \
                    $b --system lj --ne 12 --threads $threads --steps 200 --equil 100 --check --quiet
            done
        fi
        # several lanes per atom in the W force kernel (--tp; gpu-rumd's own t_p: cases_55)
        if gpu_has $b tp && gpu_has $b wlayout; then
            for tp in 2 4 8; do
                t_grep "check-$v-$prec-sp-tp$tp" '^check pass ' check_passes "$gpu_rows/check-$v-$prec-sp-tp$tp.csv" \
                    $b --ne 20 --tp $tp --steps 300 --equil 100 --check --quiet
                t_grep "check-$v-$prec-lj-tp$tp" '^check pass ' check_passes "$gpu_rows/check-$v-$prec-lj-tp$tp.csv" \
                    $b --system lj --ne 12 --tp $tp --wlayout col --steps 200 --equil 100 --check --quiet
                t_verified "verify-lists-$v-$prec-sp-tp$tp" $b --ne 14 --tp $tp \
                    --steps 2000 --equil 100 --verify-lists --stage-reps 0 --quiet
            done
            t_verified "verify-lists-$v-$prec-lj-tp4" $b --system lj --ne 14 --tp 4 \
                --steps 2000 --equil 100 --verify-lists --stage-reps 0 --quiet
            t_grep "check-$v-$prec-sp-tp16-threads32" '^check pass ' check_passes \
                "$gpu_rows/check-$v-$prec-sp-tp16-threads32.csv" \
                $b --ne 20 --tp 16 --threads 32 --steps 300 --equil 100 --check --quiet
            t_grep "check-$v-$prec-lj-tp32-threads1024" '^check pass ' check_passes \
                "$gpu_rows/check-$v-$prec-lj-tp32-threads1024.csv" \
                $b --system lj --ne 12 --tp 32 --threads 1024 --read plain --steps 200 --equil 100 --check --quiet
            t_grep "check-$v-$prec-salt-tp8" '^check pass ' check_passes "$gpu_rows/check-$v-$prec-salt-tp8.csv" \
                $b --system salt --ne 16 --tp 8 --reorder 20 --steps 200 --equil 100 --stage-reps 0 --check --quiet
            tol=1e-12; [ $prec = float ] && tol=1e-6
            t_ok "check-tp-same-$v-$prec-sp" gpu_tp_same "$gpu_rows/check-tp-same-$v-$prec-sp" $b $tol --ne 20 \
                --config jitter --steps 0 --equil 0 --quiet
            t_ok "check-tp-same-$v-$prec-lj" gpu_tp_same "$gpu_rows/check-tp-same-$v-$prec-lj" $b $tol --system lj \
                --ne 12 --config random --steps 0 --equil 0 --quiet
            t_error "err-gpu-$v-$prec-tp3" 2 'takes 1, 2, 4, 8, 16 or 32' $b --ne 8 --tp 3 --steps 0 --equil 0
        fi
        # charges (RUMD's molten salt: r_c 6, ~330 neighbours, q in r.w): the check with and
        # without reordering on host and device, since the charges must move with their atoms.
        # A program that does not carry charges says so (exit 2): a visible SKIP, never a pass
        for reo in "0 host" "20 host" "20 device"; do
            set -- $reo
            gpu_has $b reorder-at || [ $2 = host ] || continue
            out=$($b --system salt --ne 16 --steps 0 --equil 0 --quiet 2>&1)
            if [ $? = 2 ] && grep -q 'charges' <<<"$out"; then
                t_skip "check-$v-$prec-salt-reorder$1-$2" "$out"; continue
            fi
            t_grep "check-$v-$prec-salt-reorder$1-$2" '^check pass ' check_passes \
                "$gpu_rows/check-$v-$prec-salt-reorder$1-$2.csv" $b --system salt --ne 16 --steps 200 --equil 100 \
                $(gpu_has $b reorder && echo --reorder $1) $(gpu_has $b reorder-at && echo --reorder-at $2) \
                --stage-reps 0 --check --quiet
        done
        # automatic growth in the middle of a run. LJ ne 12 quenched to T 0.05 (cpu-layer, same
        # capacity policy, 3 seeds in each precision): some atom outgrows the initial 147
        # neighbours by step 2000; N_l reaches 73-78 by step 6000, over the initial 60 layers
        quench="--system lj --ne 12 --temp 0.05 --steps 6000 --equil 6000 --stage-reps 0 --check --quiet"
        if gpu_has $b max-layers && gpu_has $b max-nbr; then
            for where in host device; do
                gpu_has $b layers || [ $where = host ] || continue
                t_ok "grow-$v-$prec-layers-$where" gpu_grows_and_passes "$gpu_rows/grow-$v-$prec-layers-$where.csv" \
                    $b $quench --max-nbr 600 $(gpu_has $b layers && echo --layers $where)
            done
            t_ok "grow-$v-$prec-nbr" gpu_grows_and_passes "$gpu_rows/grow-$v-$prec-nbr.csv" $b $quench --max-layers 200
        fi
        # the rebuild rule under test: SP and LJ over 2000 steps (~100-150 rebuilds); then the
        # planted unsafe rule on the same LJ run (cpu-layer and cpu-grouped, float and double,
        # lose a pair at step 49 at 0.7 delta; SP at 0.7 loses none in 2000 steps, so LJ only)
        verify="--steps 2000 --equil 100 --verify-lists --stage-reps 0 --quiet"
        t_verified "verify-lists-$v-$prec-sp" $b --ne 14 $verify
        t_verified "verify-lists-$v-$prec-lj" $b --system lj --ne 14 $verify \
            --rebuild-frac 0.5
        t_error "verify-lists-catches-unsafe-rule-$v-$prec" 5 \
            'verify-lists: step [0-9]+: pair \([0-9]+, [0-9]+\) .* missing' $b --system lj --ne 14 $verify \
            --rebuild-frac 0.7
        # drift (tier 3)
        bound_var=DRIFT_BOUND_$prec
        t_ok "drift-$v-$prec-sp-ne16" gpu_drift_within "${!bound_var}" $b --ne 16 --steps 10000 --equil 500 --quiet
        # the device running ahead
        if gpu_has $b decide && [ "$v" != gpu-dd ]; then   # gpu-dd's device decision: cases_90 (its backends)
            # the companions the device decision needs, where the program has them (gpu-rumd has
            # no layers and sorts instead of reordering: --sort-every stands for --reorder)
            dev="--decide device"
            for k in layers reorder-at reduce; do gpu_has $b $k && dev="$dev --$k device"; done
            reo=sort-every; gpu_has $b reorder && reo=reorder
            # a program with neither (gpu-onchip: n2 lists need no order) runs these cases without
            reof() { gpu_has $b $reo && echo --$reo "$1"; }
            # and one without --graph (gpu-onchip: a chunk is one launch already) runs them graph off,
            # the flag left out
            grf() { gpu_has $b graph && echo --graph "$1"; }
            # --graph cond needs a driver that takes conditional nodes in a capture: where it
            # says it does not (exit 2, one line), its cases are a visible SKIP
            conds="cond 10|cond 37"
            gpu_has $b graph || conds=""
            out=$(gpu_has $b graph && $b --ne 8 $dev --graph cond --sample-every 10 --steps 40 --equil 0 --stage-reps 0 --quiet 2>&1)
            if [ $? = 2 ] && grep -q 'refuses a conditional node' <<<"$out"; then
                t_skip "device-graph-cond-$v-$prec" "$out"; conds=""
            fi
            graph_runs="off 10|on 10|on 1|on 37|off 100"
            gpu_has $b graph || graph_runs="off 10|off 1|off 37|off 100"
            for sys in "sp 20" "lj 12"; do
                set -- $sys
                IFS='|' read -ra runs <<<"$graph_runs${conds:+|$conds}"
                for run in "${runs[@]}"; do
                    set -- $sys $run
                    t_grep "device-check-$v-$prec-$1-graph-$3-every$4" '^check pass ' check_passes \
                        "$gpu_rows/device-check-$v-$prec-$1-graph-$3-every$4.csv" $b --system $1 --ne $2 $dev \
                        $(grf $3) --sample-every $4 $(reof 30) --steps 700 --equil 100 --check --quiet
                done
            done
            [ $prec = double ] && t_ok "device-same-rebuilds-$v-sp" gpu_same_rebuilds $b --ne 16 $dev $(reof 50) \
                --steps 500 --equil 0 --stage-reps 0 --quiet
            [ $prec = double ] && t_ok "device-same-rebuilds-$v-lj" gpu_same_rebuilds $b --system lj --ne 12 $dev \
                $(reof 50) --steps 500 --equil 0 --stage-reps 0 --quiet
            t_ok "device-drift-$v-$prec-sp-ne16" gpu_drift_within "${!bound_var}" $b --ne 16 $dev $(grf on) \
                --steps 10000 --equil 500 --quiet
            [ $prec = double ] && t_ok "device-overflow-replay-$v" gpu_replay_same $b --ne 16 $dev $(grf on) \
                --sample-every 20 --steps 400 --equil 0 --stage-reps 0 --quiet
            # --leapfrog fused: the check after each graph mode, t_p 1 and 4 where the program has
            # --tp; the same rebuilds and energies as split from the same start (equilibration with
            # rescales, reordering, a planted overflow replayed)
            if gpu_has $b leapfrog; then
                tps="1"; gpu_has $b tp && tps="1 4"
                g=on; [ -n "$conds" ] && g=cond
                for tp in $tps; do
                    tpf=""; gpu_has $b tp && tpf="--tp $tp"
                    fused_runs="off 10|on 37${conds:+|cond 10}"
                    [ "$tp" = 1 ] || fused_runs="$g 10"   # t_p 4: the production graph mode only (suite time)
                    for sys in "sp 20" "lj 12"; do
                        set -- $sys
                        IFS="|" read -ra fruns <<<"$fused_runs"
                        for run in "${fruns[@]}"; do
                            set -- $sys $run
                            t_grep "device-fused-check-$v-$prec-$1-graph-$3-every$4-tp$tp" '^check pass ' check_passes \
                                "$gpu_rows/device-fused-check-$v-$prec-$1-graph-$3-every$4-tp$tp.csv" $b --system $1 \
                                --ne $2 $dev --leapfrog fused $tpf --graph $3 --sample-every $4 $(reof 30) \
                                --steps 700 --equil 100 --check --quiet
                        done
                    done
                done
                if [ $prec = double ]; then   # rounding differences: see gpu_fused_same
                    t_ok "device-fused-same-$v-$prec-sp" gpu_fused_same $b --ne 16 $dev --graph $g $(reof 50) \
                        --sample-every 50 --steps 300 --equil 100 --stage-reps 0 --quiet
                    t_ok "device-fused-same-$v-$prec-lj-graph-off" gpu_fused_same $b --system lj --ne 12 $dev \
                        --graph off $(reof 50) --sample-every 10 --steps 300 --equil 100 --stage-reps 0 --quiet
                    gpu_has $b tp && t_ok "device-fused-same-$v-$prec-sp-tp4" gpu_fused_same $b --ne 16 $dev --tp 4 \
                        --graph $g $(reof 50) --sample-every 100 --steps 400 --equil 0 --stage-reps 0 --quiet
                    t_ok "device-fused-same-$v-$prec-overflow-replay" gpu_fused_same $b --ne 16 $dev --graph on \
                        --grow-from 15 --sample-every 20 --steps 400 --equil 0 --stage-reps 0 --quiet
                fi
                t_ok "device-fused-drift-$v-$prec-sp-ne16" gpu_drift_within "${!bound_var}" $b --ne 16 $dev \
                    --leapfrog fused --graph $g --steps 10000 --equil 500 --quiet
                t_error "device-fused-needs-device-$v-$prec" 2 'fused needs --decide device' $b --leapfrog fused --ne 8
            fi
            gpu_has $b layers &&
                t_error "device-needs-device-layers-$v-$prec" 2 'needs --layers device' $b --decide device --ne 8
            gpu_has $b graph &&
                t_error "device-graph-needs-device-$v-$prec" 2 'needs --decide device' $b --graph on --ne 8
            t_error "device-no-verify-lists-$v-$prec" 2 'with --decide host' $b $dev --verify-lists --ne 8
        fi
        # capacity limits: one line naming the flag, exit 3
        if gpu_has $b max-nbr; then
            t_error "err-gpu-$v-$prec-nbr-capacity" 3 'max-nbr' $b --ne 8 --steps 0 --equil 0 --max-nbr 4
        fi
        if gpu_has $b max-layers; then
            for where in host device; do
                gpu_has $b layers || [ $where = host ] || continue
                t_error "err-gpu-$v-$prec-layer-capacity-$where" 3 'max-layers' $b --ne 8 \
                    $(gpu_has $b layers && echo --layers $where) --steps 0 --equil 0 --max-layers 2
            done
        fi
    done
done
