# tests/cases_27_columns.sh - columns tested for what their names say (issue 38, point 1): the
# run row's energy, temperature and step columns derived independently from the blocks CSV of
# the same run, and the stage fractions summing to 1; the list's columns (nbr_per_atom,
# cells_per_axis, layers, rebuilds, reorders, steps_per_rebuild, bytes_per_atom,
# capacity_grows, lists_verified) on a lattice; the kernel-level columns (t_*_us, gbs_*,
# frac_*) under a fake clock. The timing columns of production: tests/cases_12_timing.sh.
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

# The list's columns on a system computed by hand: SP on an fcc lattice at rho 1.2 (spacing
# a = (4 / rho)^(1/3) = 1.494, nearest neighbours at 1.056 inside r_c), T 0.01 (a solid: atoms
# stay within ~0.02 of their sites), r_n = r_c + 0.5 = 1.622 between the shells at a (6 more)
# and 1.22 a (24): every build finds 12 + 6 neighbours per atom. Derived apart:
#   nbr_per_atom      full-list entries per atom: twice the O(N^2) count of lattice pairs within
#                     r_n (minimum image) over N
#   cells_per_axis    floor(L / r_n), L = (N / rho)^(1/3)
#   layers            the largest cell occupancy (N_l): the start's sites ((i, j, k) + the fcc basis
#                     offset by 1/4) a - L/2 (common/state.c) in cells of width L / G from -L/2
#                     (kernels/cells.h); each site 0.06 cell widths or more from a cell's face
#   rebuilds          the blocks CSV's builds_total at the last block minus at step --equil;
#   steps_per_rebuild (--steps - --equil) / that (production builds only)
#   bytes_per_atom    the storage docs/csv.md names: r, v, f (3 x 3 reals) and one real per atom,
#                     the cells (a head per cell, a link per atom: ints), and the list as
#                     allocated (--max-nbr M: M ints per atom + N + 2; --max-pairs P: P + 1 pairs
#                     of two 32-bit ints; grown from --grow-from 5: to 10% over the need + 2
#                     (kernels/capacity.c), the need the lattice's pairs, N x 9)
#   capacity_grows    0 at a fixed capacity; 1 grown from 5 (the need never changes after)
#   reorders          --reorder 1: every rebuild reorders the atoms first, so the production
#                     reorderings are the production builds
#   lists_verified    --verify-lists checks each list before its rebuild, equilibration's too:
#                     every build after step 0 (builds_total - 1), one more if the last step
#                     asked for a rebuild the run did not reach
_t27_lattice() {   # PROGRAM CAPACITY-OPTION VALUE
    local v=$1 run=$cols/lattice-$1.csv blocks=$cols/lattice-$1-blocks.csv
    $b/$v --system sp --lattice fcc --rho 1.2 --delta 0.5 --ne 4 --temp 0.01 --rebuild-frac 0.05 --steps 600 --equil 100 \
        --avg-block 100 --stage-reps 0 "$2" "$3" --reorder 1 --verify-lists --quiet --csv "$run" --blocks-csv "$blocks" >/dev/null ||
        return 1
    "$T_NUMPY_PY" - "$run" "$blocks" "$2" "$3" <<'PY'
import itertools, math, sys
import numpy as np
sys.path.insert(0, "runs")
import csvq
run = list(csvq.read(sys.argv[1]).rows)[-1]
blocks = list(csvq.read(sys.argv[2]).rows)
n, ne, rho = int(run["n"]), int(run["ne"]), float(run["rho"])
rn = float(run["rc"]) + float(run["delta"])
a = (4 / rho) ** (1 / 3)
L = ne * a
assert abs(L - (n / rho) ** (1 / 3)) < 1e-9 * L and n == 4 * ne ** 3, (n, ne, L)
basis = np.array([[0, 0, 0], [0.5, 0.5, 0], [0.5, 0, 0.5], [0, 0.5, 0.5]])
pos = np.array([(np.array(c) + f) * a for c in itertools.product(range(ne), repeat=3) for f in basis])
d = pos[:, None, :] - pos[None, :, :]
d -= L * np.round(d / L)
r = np.sqrt((d * d).sum(axis=2))
pairs = int(((r < rn) & (r > 0)).sum()) // 2
at = {int(b["step"]): int(b["builds_total"]) for b in blocks}
steps, equil = int(run["steps"]), int(run["equil"])
builds = at[steps] - at[equil]
G = max(3, math.floor(L / rn))
cell = np.floor((pos + a / 4) / (L / G)).astype(int)
assert (np.abs((pos + a / 4) / (L / G) - np.round((pos + a / 4) / (L / G))) > 0.05).all()   # no site near a face
layers = np.unique(cell @ [1, G, G * G], return_counts=True)[1].max()
real = 8 if run["precision"] == "double" else 4
cap, value = sys.argv[3], int(sys.argv[4])
grown = math.ceil(1.1 * pairs + 2)   # kernels/capacity.c's margin over the need
lists = 4 * (n + 2 + value * n) if cap == "--max-nbr" else 8 * (value + 1) if cap == "--max-pairs" else 8 * (grown + 1)
want = {
    "nbr_per_atom": (2 * pairs / n, 5e-5),
    "cells_per_axis": (G, 0),
    "layers": (layers, 0),
    "rebuilds": (builds, 0),
    "reorders": (builds, 0),
    "steps_per_rebuild": ((steps - equil) / builds, 5e-5),
    "bytes_per_atom": ((n * (9 * real + real) + 4 * (G ** 3 + n) + lists) / n, 0.05 + 1e-9),
    "capacity_grows": (1 if cap == "--grow-from" else 0, 0),
}
bad = [f"{c}: row {run[c]}, derived {w:.6g}" for c, (w, tol) in want.items() if not abs(float(run[c]) - w) <= tol]
verified, last = int(run["lists_verified"]), int(blocks[-1]["builds_total"])
if not last - 1 <= verified <= last: bad.append(f"lists_verified: row {verified}, derived {last - 1} (or {last})")
if builds < 10: bad.append(f"only {builds} production builds: the mean over builds is not tested")
if bad: sys.exit("\n".join(bad))
print("list columns derived: " + ", ".join(f"{c} {w:.6g}" for c, (w, _) in want.items()) + f", lists_verified {verified}")
PY
}
if [ -z "$T_NUMPY_PY" ]; then t_skip columns-lattice "$T_NUMPY_WHY"
elif [ -x "$b/cpu-grouped" ]; then t_grep columns-lattice-cpu-grouped 'list columns derived' _t27_lattice cpu-grouped --max-nbr 40
else t_skip columns-lattice-cpu-grouped "$b/cpu-grouped not built"; fi
if [ -z "$T_NUMPY_PY" ]; then :
elif [ -x "$b/cpu-pairlist" ]; then
    t_grep columns-lattice-cpu-pairlist 'list columns derived' _t27_lattice cpu-pairlist --max-pairs 5000
    t_grep columns-lattice-cpu-pairlist-grown 'list columns derived' _t27_lattice cpu-pairlist --grow-from 5
else t_skip columns-lattice-cpu-pairlist "$b/cpu-pairlist not built"; fi

# The kernel-level columns under a fake clock (test-clock: tests/fake_clock.c): each of the
# --stage-reps 5 calls of a replay takes a known time, list 40 us, reorder 70 - 40 (replayed with
# a list build, whose time is subtracted), force 200, other 10, integrate 20. So t_<stage>_us are
# those; gbs_* are '-' (no CPU program states its stages' bytes); frac_<stage> = t x calls per
# step / their sum, the calls per step of list and reorder from the row's rebuilds and reorders
# over the production steps, the others 1.
_t27_stages() {
    local run=$cols/stages.csv
    $b/test-clock --system sp --ne 6 --steps 650 --equil 150 --avg-block 100 --stage-reps 5 --quiet --allow-dirty \
        --csv "$run" >/dev/null || return 1
    python3 - "$run" <<'PY'
import sys
sys.path.insert(0, "runs")
import csvq
run = list(csvq.read(sys.argv[1]).rows)[-1]
prod = int(run["steps"]) - int(run["equil"])
us = {"list": 40, "reorder": 30, "force": 200, "other": 10, "integrate": 20}
per_step = {"list": int(run["rebuilds"]) / prod, "reorder": int(run["reorders"]) / prod}
w = {k: t * per_step.get(k, 1) for k, t in us.items()}
bad = [f"t_{k}_us: row {run[f't_{k}_us']}, want {t}" for k, t in us.items() if abs(float(run[f"t_{k}_us"]) - t) > 1e-3 * t]
bad += [f"gbs_{k}: row {run[f'gbs_{k}']}, want -" for k in us if run[f"gbs_{k}"] != "-"]
bad += [f"frac_{k}: row {run[f'frac_{k}']}, want {x / sum(w.values()):.4f}" for k, x in w.items()
        if abs(float(run[f"frac_{k}"]) - x / sum(w.values())) > 6e-5]
if int(run["rebuilds"]) < 5 or int(run["reorders"]) < 1: bad.append("too few rebuilds or reorders to weigh")
if bad: sys.exit("\n".join(bad))
print("stage columns derived: " + ", ".join(f"frac_{k} {x / sum(w.values()):.4f}" for k, x in w.items()))
PY
}
if [ -x "$b/test-clock" ]; then t_grep columns-stages-fake-clock 'stage columns derived' _t27_stages
else t_skip columns-stages-fake-clock "$b/test-clock not built"; fi
