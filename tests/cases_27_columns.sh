# tests/cases_27_columns.sh - columns tested for what their names say (issue 38, point 1; a
# first part): the run row's energy, temperature and step columns derived independently from
# the blocks CSV of the same run, and the stage fractions summing to 1.
# The run: --equil 0, a sample point and a block every 10 steps, 40 steps, so each block row's
# e_end is one production sample and its temp_mean that sample's sum v^2 / (3N); then
#   e_start = block 1's e_end, e_end = block 4's (windows of one sample: 4 samples / 10 < 1),
#   drift = (e_end - e_start) / |e_start| (its sign included), e_rms = the population rms of
#   the 4 samples over |their mean|, temp_measured = the blocks' mean x N / (N - 1) (3(N - 1)
#   degrees of freedom, docs/csv.md), steps_done = the last block's step.
# Sourced by tests/run.sh (tests/lib.sh loaded).
b=$BUILD/double
cols=$TEST_LOG_DIR/cols
rm -rf "$cols"; mkdir -p "$cols"
_t27_derive() {   # PROGRAM SYSTEM
    local v=$1 sys=$2 run=$cols/$1-$2.csv blocks=$cols/$1-$2-blocks.csv
    $b/$v --system "$sys" --ne $([ "$sys" = lj ] && echo 9 || echo 6) --steps 40 --equil 0 --sample-every 10 --avg-block 10 --quiet \
        --csv "$run" --blocks-csv "$blocks" >/dev/null || return 1
    python3 - "$run" "$blocks" <<'PY'
import math, sys
sys.path.insert(0, "runs")
import csvq
run = list(csvq.read(sys.argv[1]).rows)[-1]
blocks = list(csvq.read(sys.argv[2]).rows)
f = lambda r, c: float(r[c])
n = int(run["n"])
e = [f(b, "e_end") for b in blocks]
assert len(e) == 4, len(e)
close = lambda a, b, tol: abs(a - b) <= tol * max(abs(b), 1e-300)
checks = {
    "e_start": (f(run, "e_start"), e[0], 1e-9),
    "e_end": (f(run, "e_end"), e[-1], 1e-9),
    "drift": (f(run, "drift"), (e[-1] - e[0]) / abs(e[0]), 1e-3),
    "e_rms": (f(run, "e_rms"), math.sqrt(sum((x - sum(e) / 4) ** 2 for x in e) / 4) / abs(sum(e) / 4), 1e-3),
    "temp_measured": (f(run, "temp_measured"), sum(f(b, "temp_mean") for b in blocks) / 4 * n / (n - 1), 1e-7),
    "steps_done": (f(run, "steps_done"), f(blocks[-1], "step"), 0),
}
bad = [f"{c}: row {got!r}, derived {want!r}" for c, (got, want, tol) in checks.items() if not close(got, want, tol)]
fr = [f(run, c) for c in run if c.startswith("frac_") and run[c] not in ("", "-")]
if not (len(fr) >= 3 and abs(sum(fr) - 1) <= 3e-4):
    bad.append(f"stage fractions {fr} sum to {sum(fr)}")
if bad:
    sys.exit("\n".join(bad))
print(f"columns derived: {', '.join(checks)}, fractions sum {sum(fr):.4f}")
PY
}
for _t27_v in cpu-grouped cpu-pairlist; do
    for _t27_s in sp lj; do
        if [ -x "$b/$_t27_v" ]; then t_grep "columns-derived-$_t27_v-$_t27_s" 'columns derived' _t27_derive "$_t27_v" "$_t27_s"
        else t_skip "columns-derived-$_t27_v-$_t27_s" "$b/$_t27_v not built"; fi
    done
done
