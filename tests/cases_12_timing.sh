# The timing columns, the numbers the harness exists for, by value.
#   timing-fake-clock-*   test-clock (cpu-grouped linked with tests/fake_clock.c in place of
#                         common/timers.c: step k takes a known time) against values worked out
#                         by hand below: the run row's us_per_atom_step (median over blocks, per
#                         atom), us_per_atom_step_mean, us_per_step, timing_blocks, total_s, and
#                         every block row's timed_steps and us_per_atom_step. Caught: the median
#                         without sorting, us_per_atom_step 1000x too small, per step for per atom.
#   timing-wall-process-* the production binary's own clock against the process's wall time
#                         measured outside it (date +%s.%N around the run): total_s <= the
#                         process time + 10 ms and total_s >= half of it; the row's columns
#                         agree with each other (mean x N x steps = total_s; us_per_step = N x
#                         us_per_atom_step; the median within a factor 3 of the mean).
# The fake clock's steps 1..100 take 0.5 ms each, 101..200 3 ms, 201..300 1 ms, 301..400 4 ms,
# 401..500 1.5 ms, 501..600 9 ms, 601..700 2 ms. The run: SP, ne 6 (N = 216), --equil 150,
# --avg-block 100, --steps 650 (or 550). Blocks end at steps 100, 200, ..., 600 and 650; the
# first is equilibration (no timed steps), the second times its 50 production steps 151..200.
#   steps 650: timed blocks 50 x 3, 100 x 1, 100 x 4, 100 x 1.5, 100 x 9, 50 x 2 ms per step;
#     per-step times 3 1 4 1.5 9 2 -> sorted 1 1.5 2 3 4 9: median 2.5 ms (unsorted: (4 + 1.5)/2
#     = 2.75); total 150 + 100 + 400 + 150 + 900 + 100 ms = 1.8 s over 500 steps
#     us_per_step 2500, us_per_atom_step 2500 / 216 = 11.5741, mean 1.8e6 / 500 / 216 = 16.6667
#   steps 550: per-step 3 1 4 1.5 9 (the last block 501..550) -> median 3 ms (unsorted: 4);
#     total 150 + 100 + 400 + 150 + 450 ms = 1.25 s over 400 steps
#     us_per_step 3000, us_per_atom_step 13.8889, mean 1.25e6 / 400 / 216 = 14.4676
T12=$TEST_LOG_DIR/t12
mkdir -p "$T12"
_t12_col() { python3 runs/csvq.py get "$@"; }

# _t12_expect CSV NAME=VALUE...: the last row's columns against the values (relative 2e-5: %.6g)
_t12_expect() {
    local csv=$1 kv got rc=0; shift
    for kv in "$@"; do
        got=$(_t12_col "$csv" "${kv%%=*}") || { echo "no column ${kv%%=*}"; return 1; }
        if awk -v g="$got" -v w="${kv#*=}" 'BEGIN { d = g - w; if (d < 0) d = -d; exit !(g != "" && d <= 2e-5 * (w < 0 ? -w : w) + 1e-12) }'; then
            echo "${kv%%=*} = $got (want ${kv#*=})"
        else
            echo "${kv%%=*} = $got, want ${kv#*=}"; rc=1
        fi
    done
    return $rc
}

# _t12_fake PREC STEPS COLUMN=VALUE...: the fake-clock run's row against the values
_t12_fake() {
    local prec=$1 steps=$2 csv=$T12/fake-$1-$2.csv; shift 2
    rm -f "$csv" "$T12/fake-$prec-$steps-blocks.csv"
    "$BUILD/$prec/test-clock" --system sp --ne 6 --equil 150 --avg-block 100 --steps "$steps" --stage-reps 0 \
        --quiet --allow-dirty --csv "$csv" --blocks-csv "$T12/fake-$prec-$steps-blocks.csv" || return 1
    _t12_expect "$csv" n=216 "$@"
}

# the block rows: timed steps and us per atom-step (ms per step / 216 atoms x 1000)
_t12_fake_blocks() {
    local csv=$T12/fake-$1-650-blocks.csv
    _t12_fake "$1" 650 >/dev/null || return 1
    python3 - "$csv" <<'EOF'
import csv, sys
sys.path.insert(0, "runs"); import csvq  # the rows with knobs expanded (docs/csv.md)
rows = list(csvq.read(sys.argv[1]).rows)
ms = [0, 3, 1, 4, 1.5, 9, 2]
want = [(b + 1, s, t, m / 216 * 1e3) for b, (s, t, m) in
        enumerate(zip([100, 200, 300, 400, 500, 600, 650], [0, 50, 100, 100, 100, 100, 50], ms))]
got = [(int(r["block"]), int(r["step"]), int(r["timed_steps"]), float(r["us_per_atom_step"])) for r in rows]
print("blocks (block, step, timed, us/atom-step):", got)
assert len(got) == len(want), "%d block rows, want %d" % (len(got), len(want))
for g, w in zip(got, want):
    assert g[:3] == w[:3] and abs(g[3] - w[3]) <= 2e-5 * w[3] + 1e-12, "block %s, want %s" % (g, w)
EOF
}

for prec in double float; do
    if [ ! -x "$BUILD/$prec/test-clock" ]; then t_skip "timing-fake-clock-$prec" "$BUILD/$prec/test-clock not built"; continue; fi
    t_ok "timing-fake-clock-even-$prec" _t12_fake "$prec" 650 us_per_step=2500 us_per_atom_step=11.574074 \
        us_per_atom_step_mean=16.666667 timing_blocks=6 total_s=1.8
    t_ok "timing-fake-clock-odd-$prec" _t12_fake "$prec" 550 us_per_step=3000 us_per_atom_step=13.888889 \
        us_per_atom_step_mean=14.467593 timing_blocks=5 total_s=1.25
done
if [ -x "$BUILD/double/test-clock" ]; then t_ok timing-fake-clock-blocks _t12_fake_blocks double; fi

# The real clock: cpu-grouped, SP ne 16 (4096 atoms), 3000 steps in blocks of 300, NVE from the
# start (--equil 0), so the untimed part is the start (lattice, first list and forces) and the
# report. Measured on an idle core: total_s 98% of the process's wall time (0.574 of 0.585 s at
# 1000 steps). The lower bound 0.5 leaves room for a loaded machine: a stall of the untimed part
# as long as the whole timed part. The upper bound: total_s is a part of the process's lifetime;
# 10 ms for the difference of CLOCK_MONOTONIC (the program) and CLOCK_REALTIME (date).
_t12_wall() {
    local prec=$1 csv=$T12/wall-$1.csv t0 t1
    rm -f "$csv"
    t0=$(date +%s.%N)
    "$BUILD/$prec/cpu-grouped" --system sp --ne 16 --steps 3000 --equil 0 --avg-block 300 --stage-reps 0 --quiet \
        --allow-dirty --csv "$csv" || return 1
    t1=$(date +%s.%N)
    local total mean med perstep n blocks
    total=$(_t12_col "$csv" total_s) && mean=$(_t12_col "$csv" us_per_atom_step_mean) &&
        med=$(_t12_col "$csv" us_per_atom_step) && perstep=$(_t12_col "$csv" us_per_step) &&
        n=$(_t12_col "$csv" n) && blocks=$(_t12_col "$csv" timing_blocks) || return 1
    awk -v t0="$t0" -v t1="$t1" -v total="$total" -v mean="$mean" -v med="$med" -v perstep="$perstep" -v n="$n" \
        -v blocks="$blocks" 'BEGIN {
        wall = t1 - t0; bad = 0
        printf "process %.4f s, total_s %s (%.3f of it); mean %s, median %s us/atom-step, %s us/step, N %s, %s blocks\n",
               wall, total, total / wall, mean, med, perstep, n, blocks
        if (!(total <= wall + 0.01)) { print "total_s exceeds the process wall time"; bad = 1 }
        if (!(total >= 0.5 * wall)) { print "total_s below half the process wall time"; bad = 1 }
        d = mean * n * 3000 / 1e6 - total; if (d < 0) d = -d
        if (!(d <= 1e-4 * total)) { print "us_per_atom_step_mean x N x steps differs from total_s"; bad = 1 }
        d = med * n - perstep; if (d < 0) d = -d
        if (!(d <= 1e-4 * perstep)) { print "us_per_step differs from N x us_per_atom_step"; bad = 1 }
        if (!(med <= 3 * mean && med >= mean / 3)) { print "the median is not within a factor 3 of the mean"; bad = 1 }
        if (blocks != 10) { print "timing_blocks is not 10"; bad = 1 }
        exit bad }'
}
for prec in double float; do
    if [ -x "$BUILD/$prec/cpu-grouped" ]; then t_ok "timing-wall-process-$prec" _t12_wall "$prec"
    else t_skip "timing-wall-process-$prec" "$BUILD/$prec/cpu-grouped not built"; fi
done
