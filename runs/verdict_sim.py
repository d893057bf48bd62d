#!/usr/bin/env python3
"""verdict_sim - the regression verdict's error rates by simulation (docs/regression.md).

A/A suites are drawn from the noise of the committed compare CSVs: the paired log-ratios
d = ln(B/A) of every comparison, A/A comparisons as they are, the others (a planted or real
slowdown) centred on their own median (the median pair of an odd count, exactly 0, left out);
then each benchmark's pool is centred on its median (an A/A offset between two builds of one
revision is a real difference of a few 0.1%, not noise), so the pools keep their heavy tails
and any skew, and "no difference" is exactly true. "loaded" multiplies the noise so that its
MAD is that of the user's false alarm of issue 38 (a loaded 2-core machine, x10). Each simulated benchmark draws its pairs
with replacement from its pool, the suite's verdict is decided by runs/perfstat.py's own
functions, and a suite with any benchmark "slower" is a false alarm. Power: one benchmark's
d shifted by ln(1 + slowdown); found = that benchmark called slower.

  gate   5 benchmarks, each from its own pool (gate-aa.csv A/A pairs + centred gate-planted)
  quick  12 benchmarks, each from the union of every pool (all benchmarks' noise together:
         the heaviest tails the CSVs have)

The old rule (before issue 38: 6 pairs, then more until the benchmark "settled", at most 20;
slower = the signed-rank interval above 1 and the estimate beyond the threshold; no
correction for the number of benchmarks) is simulated beside the new one.

  verdict_sim.py [--suites N] [--seed S] [--out DIR] CSV...
Writes DIR/sim.csv (one row per rule x suite x planted slowdown) and prints it.
Needs numpy and pandas (plots/venv.sh: build/venv/bin/python).
"""
import argparse
import functools
import math
import os
import sys

import numpy as np
import pandas as pd

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import perfstat  # noqa: E402

perfstat.signed_rank_k = functools.lru_cache(maxsize=None)(perfstat.signed_rank_k)   # speed only
GATE = ["pairlist-sp", "grouped-lj", "full-sp", "layer-lj", "cells-sp"]


def pools(paths):
    """Per benchmark name, the log-ratios of every comparison (A/A raw, others centred)."""
    out = {}
    for path in paths:
        _, rows = perfstat.read_csv(path)
        df = pd.DataFrame(rows)
        df["v"] = pd.to_numeric(df["us_per_atom_step"], errors="coerce")
        wide = df.pivot_table(index=["compare_id", "bench", "pair"], columns="side", values="v").dropna()
        wide["d"] = np.log(wide["B"] / wide["A"])
        aa = (df["a_label"] == df["b_label"]).all() or os.path.basename(path).startswith("gate-aa")
        for (_, bench), g in wide.groupby(level=["compare_id", "bench"]):
            d = g["d"].to_numpy()
            if not aa:
                d = d - np.median(d)
                d = d[d != 0]
            out.setdefault(bench, []).append(d)
    return {b: np.concatenate(v) for b, v in out.items()}


def centred(pool):
    """Each pool less its median: A/A pools keep their noise, not the small offset between
    two builds of one revision (shown in sim-pools.csv), so a sign test's H0 holds exactly."""
    return {b: (p - np.median(p))[p != np.median(p)] for b, p in pool.items()}


def new_rule(ds, thr, conf=0.95):
    """perfstat's verdict for a suite: per benchmark (est, p), Holm across them."""
    res = []
    for d in ds:
        est = perfstat.hl_interval(list(d), conf)[0]
        ps, pf = perfstat.sign_p(d)
        res.append(dict(est=math.exp(est), p_slower=ps, p_faster=pf))
    perfstat.decide(res, conf, thr)
    return [r["verdict"] == "slower" for r in res]


def old_rule(draw, thr, conf=0.95, lo_n=6, hi_n=20):
    """The rule before issue 38, for one benchmark: pairs from draw(n) until settled."""
    d = list(draw(hi_n))
    for n in range(lo_n, hi_n + 1):
        est, lo, hi, _ = (math.exp(x) if i < 3 else x for i, x in enumerate(perfstat.hl_interval(d[:n], conf)))
        if lo > 1 and est > 1 + thr:
            return True
        if (hi < 1 and est < 1 / (1 + thr)) or (lo >= 1 / (1 + thr) and hi <= 1 + thr):
            return False
    return False


def wilson(k, n, z=1.96):
    p = k / n
    c = (p + z * z / (2 * n)) / (1 + z * z / n)
    h = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, c - h), min(1.0, c + h)


def simulate(rule, suite_pools, pairs, thr, slow, nsuites, rng, scale=1.0):
    """Suites with any benchmark slower (slow = 0), or with the planted one found; the noise
    multiplied by scale (a busier machine)."""
    hits = 0
    suite_pools = [p * scale for p in suite_pools]
    nb = len(suite_pools)
    for s in range(nsuites):
        target = s % nb
        shift = [math.log1p(slow) if (slow and b == target) else 0.0 for b in range(nb)]
        if rule == "new":
            ds = [rng.choice(p, pairs) + sh for p, sh in zip(suite_pools, shift)]
            called = new_rule(ds, thr)
        else:
            called = [old_rule(lambda n, p=p, sh=sh: rng.choice(p, n) + sh, thr) for p, sh in zip(suite_pools, shift)]
        hits += called[target] if slow else any(called)
    return hits


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("csv", nargs="+")
    ap.add_argument("--suites", type=int, default=10000)
    ap.add_argument("--seed", type=int, default=38)
    ap.add_argument("--out", default="")
    args = ap.parse_args()
    rng = np.random.default_rng(args.seed)
    raw = pools(args.csv)
    pool = centred(raw)
    missing = [b for b in GATE if b not in pool]
    if missing:
        sys.exit(f"verdict_sim: no pairs of {', '.join(missing)} in the CSVs")
    union = np.concatenate(list(pool.values()))
    union_raw = np.concatenate(list(raw.values()))
    stats = pd.DataFrame([dict(pool=b, pairs=len(p), raw_median=np.median(raw.get(b, union_raw)), mad=np.median(np.abs(p - np.median(p))),
                               p99_abs=np.quantile(np.abs(p), 0.99), max_abs=np.abs(p).max(),
                               kurtosis=pd.Series(p).kurt()) for b, p in list(pool.items()) + [("union", union)]])
    print(stats.to_string(index=False, float_format=lambda x: f"{x:.4g}"))
    suites = dict(gate=[pool[b] for b in GATE], quick=[union] * 12)
    # "loaded": the union's noise scaled to the spread of the user's false alarm of issue 38
    # (pair ratios 1.084 1.033 0.974 1.000 1.339 1.048 1.105 on a loaded 2-core machine)
    user = np.log([1.084, 1.033, 0.974, 1.000, 1.339, 1.048, 1.105])
    loaded = np.median(np.abs(user - np.median(user))) / stats.iloc[-1]["mad"]
    print(f"loaded: noise x {loaded:.2f} (the user's pairs' MAD {np.median(np.abs(user - np.median(user))):.4f})")
    runs = []
    scen = []
    for rule in ("old", "new"):
        scen += [(rule, "quick", 0.05, 0.0, "as measured"), (rule, "quick", 0.05, 0.0, "loaded"),
                 (rule, "quick", 0.0, 0.0, "as measured"), (rule, "quick", 0.0, 0.0, "loaded"),
                 (rule, "gate", 0.25, 0.0, "as measured"), (rule, "gate", 0.0, 0.0, "as measured")]
    scen += [("new", "quick", 0.05, 0.10, "as measured"), ("new", "quick", 0.05, 0.10, "loaded"),
             ("new", "gate", 0.05, 0.10, "as measured"), ("new", "gate", 0.05, 0.10, "loaded"),
             ("new", "gate", 0.25, 0.30, "as measured"), ("old", "quick", 0.05, 0.10, "as measured")]
    for rule, suite, thr, slow, noise in scen:
        pairs = (18 if suite == "quick" else 12) if rule == "new" else (20 if suite == "quick" else 12)
        k = simulate(rule, suites[suite], pairs, thr, slow, args.suites, rng, loaded if noise == "loaded" else 1.0)
        lo, hi = wilson(k, args.suites)
        runs.append(dict(rule=rule, suite=suite, benchmarks=len(suites[suite]),
                         pairs=pairs if rule == "new" else f"6-{pairs}", threshold=thr, noise=noise,
                         planted=slow, suites=args.suites, what="power" if slow else "false alarms", count=k,
                         rate=k / args.suites, ci95_lo=lo, ci95_hi=hi))
        print(f"{rule} {suite} pairs {runs[-1]['pairs']} threshold {thr:g} noise {noise} planted {slow:g}: "
              f"{runs[-1]['what']} {k} of {args.suites} = {100 * k / args.suites:.2f}% "
              f"[{100 * lo:.2f}, {100 * hi:.2f}]", flush=True)
    table = pd.DataFrame(runs)
    if args.out:
        os.makedirs(args.out, exist_ok=True)
        table.to_csv(os.path.join(args.out, "sim.csv"), index=False, float_format="%.5g")
        stats.to_csv(os.path.join(args.out, "sim-pools.csv"), index=False, float_format="%.5g")
    print(table.to_string(index=False))


if __name__ == "__main__":
    main()
