#!/usr/bin/env python3
"""perfstat - the statistics and the interleaved runner behind runs/compare.sh (stdlib only).

The question: is revision B slower than revision A on this machine, beyond noise?  Absolute
times here wander by 10-30% between runs (shared cores, other builds), so A and B are run
side by side in one session, interleaved in pairs, and every pair gives one ratio:

  * each run gives one number, its metric (default us_per_atom_step: the program's own median
    over its timing blocks, so a burst inside a run is already discounted);
  * pair i runs A and B back to back, the order alternating (A B, B A, A B, ...), so a drift
    in machine load, or a first-run-is-slower effect, hits both sides alike;
  * d_i = ln(B_i / A_i); the ratio B/A is exp of the Hodges-Lehmann estimate of the centre of
    the d_i (the median of the Walsh averages (d_i + d_j)/2, i <= j), and its interval is the
    exact distribution-free one of the Wilcoxon signed-rank test: the k-th smallest and k-th
    largest Walsh averages, k from the exact null distribution of the signed-rank statistic
    (no normal approximation, no resampling: the same samples always give the same interval).
    The interval's actual coverage is printed (it is discrete: with 6 pairs the widest
    interval, [min d, max d], covers 1 - 2/64 = 96.9%; 5 pairs can reach only 93.8%).
  * every benchmark runs the same fixed number of pairs (--pairs): how many never depends on
    what the pairs showed, so a test keeps its level (adding pairs until a verdict "settles"
    is optional stopping, and inflates false alarms).
  * the decision: per benchmark the exact one-sided sign test of the d_i (how many pairs B was
    slower in; no symmetry assumed, heavy tails harmless; pairs with d_i = 0 dropped), with
    Holm's step-down correction across the benchmarks of the comparison, so the chance that
    an A/A comparison calls any benchmark slower is at most alpha = 1 - conf (family-wise).
  * verdict at threshold t:  slower  = Holm rejects "not slower" and estimate > 1 + t
                             faster  = Holm rejects "not faster" and estimate < 1/(1 + t)
                             no change otherwise.
    The interval is shown per benchmark, uncorrected; the verdict uses the corrected test.
    Simulated and measured error rates: docs/regression.md, runs/verdict_sim.py.
  * per stage: stage time = frac_<stage> x metric (us per atom-step spent in that stage); the
    same paired estimate and interval per stage say which stage moved.

Command line:
  perfstat.py run ...          the interleaved runner (runs/compare.sh calls it)
  perfstat.py analyze CSV      the report again, from a compare CSV (--id ID: that comparison)
  perfstat.py summary CSV...   one line per comparison in the CSVs: verdicts and the fraction
                               that failed (the A/A false-alarm and planted-slowdown rates)
  perfstat.py pairs A B        the estimate, interval and verdict of two comma-separated
                               samples, paired in order (the tests' known answers)
  perfstat.py suite NAME       the benchmarks of a suite (runs/suites.txt), one per line
  perfstat.py merge DEST SRC.. append rows to DEST with the union of the columns (bench.csv)
Exit status of run/analyze: 0 = no significant slowdown beyond the threshold, 1 = at least one
benchmark slower, 2 = could not compare (bad input, a run failed, no data); a benchmark both
sides refuse as beyond this machine (exit 3) is left out and named.
"""
import argparse
import csv
import fnmatch
import math
import os
import shlex
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import csvq  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
SUITES = os.path.join(HERE, "suites.txt")
METHOD = "Hodges-Lehmann ratio of paired runs, exact Wilcoxon signed-rank interval"
PREFIX_COLS = ["compare_id", "suite", "bench", "pair", "side", "order", "side_label", "a_label", "b_label"]


class PerfError(Exception):
    def __init__(self, msg, code=None, side=None):
        super().__init__(msg)
        self.code, self.side = code, side   # where a run failed: its exit status and side (A, B)


# A program's exit status for a configuration this machine cannot hold (common/fail.h)
EXIT_CAPACITY = 3


# ---------------------------------------------------------------------------- statistics
def median(xs):
    s = sorted(xs)
    n = len(s)
    if n == 0:
        raise PerfError("median of no values")
    return s[n // 2] if n % 2 else 0.5 * (s[n // 2 - 1] + s[n // 2])


def walsh_averages(d):
    """(d_i + d_j)/2 for i <= j, sorted: n(n+1)/2 values."""
    n = len(d)
    return sorted((d[i] + d[j]) / 2 for i in range(n) for j in range(i, n))


def signed_rank_counts(n):
    """counts[w] = number of the 2^n sign patterns whose signed-rank statistic W+ equals w."""
    counts = [1]
    for r in range(1, n + 1):
        new = counts + [0] * r
        for w, c in enumerate(counts):
            new[w + r] += c
        counts = new
    return counts


def signed_rank_k(n, conf):
    """The order k of the interval [W_(k), W_(M+1-k)] and its exact coverage: the largest k
    with 2 P(W+ <= k-1) <= 1 - conf; k = 1 (the widest) when even that is not enough."""
    counts = signed_rank_counts(n)
    total = 2.0 ** n
    alpha = 1 - conf
    k, cum = 1, counts[0]
    while 2 * (cum + counts[k]) / total <= alpha + 1e-12:
        cum += counts[k]
        k += 1
    return k, 1 - 2 * cum / total


def hl_interval(d, conf=0.95):
    """Hodges-Lehmann estimate of the centre of d and its exact signed-rank interval.
    Returns (estimate, low, high, coverage)."""
    n = len(d)
    if n < 2:
        raise PerfError(f"{n} pair(s): at least 2 are needed")
    w = walsh_averages(d)
    k, cover = signed_rank_k(n, conf)
    return median(w), w[k - 1], w[len(w) - k], cover


def sign_p(d):
    """Exact one-sided sign-test p-values (slower, faster) of the log-ratios d: the chance
    of at least as many positive (negative) signs among the nonzero d under H0 (each sign
    1/2). No nonzero d: (1, 1)."""
    pos = sum(1 for x in d if x > 0)
    neg = sum(1 for x in d if x < 0)
    n = pos + neg
    tail = lambda k: sum(math.comb(n, j) for j in range(k, n + 1)) / 2.0 ** n
    return (tail(pos), tail(neg)) if n else (1.0, 1.0)


def holm(ps, alpha):
    """Holm's step-down: which of the p-values are rejected at family-wise level alpha."""
    order = sorted(range(len(ps)), key=lambda i: ps[i])
    out = [False] * len(ps)
    for rank, i in enumerate(order):
        if ps[i] > alpha / (len(ps) - rank):
            break
        out[i] = True
    return out


def pairs_needed(benchmarks, alpha):
    """The fewest pairs with which the one-sided sign test's smallest p, 2^-n (every pair one
    way), reaches Holm's first threshold alpha / benchmarks: with fewer, no benchmark of the
    family can be called slower or faster, whatever the pairs show."""
    return max(1, math.ceil(math.log2(max(benchmarks, 1) / alpha) - 1e-12))


def undecidable(results, alpha):
    """(most, least, m): the most pairs any benchmark of RESULTS ran, the pairs the test needs
    over their m, and m; most < least means no benchmark could be called slower or faster."""
    have = [r for r in results if "est" in r]
    return max((r["n"] for r in have), default=0), pairs_needed(len(have), alpha), len(have)


def verdict(est, slower_sig, faster_sig, thr):
    """The verdict of a ratio B/A with estimate est, given whether the (corrected) test found
    B slower or faster; threshold thr."""
    if slower_sig and est > 1 + thr:
        return "slower"
    if faster_sig and est < 1 / (1 + thr):
        return "faster"
    return "no change"


def decide(results, conf, thr):
    """Holm across the benchmarks of RESULTS (each with p_slower, p_faster, est): sets each
    one's verdict and its Holm-adjusted p-value of its direction."""
    have = [r for r in results if "est" in r]
    alpha = 1 - conf
    slow = holm([r["p_slower"] for r in have], alpha)
    fast = holm([r["p_faster"] for r in have], alpha)
    for r, s, f in zip(have, slow, fast):
        r["verdict"] = verdict(r["est"], s, f, thr)
        r["holm"] = s if r["est"] >= 1 else f


def compare_pairs(a, b, conf=0.95, thr=0.05):
    """A and B, paired in order (both positive): medians, ratio estimate and interval, verdict."""
    if len(a) != len(b):
        raise PerfError(f"{len(a)} A values but {len(b)} B values: they must pair up")
    if any(x <= 0 for x in a + b):
        raise PerfError("values must be positive (times)")
    d = [math.log(y / x) for x, y in zip(a, b)]
    est, lo, hi, cover = hl_interval(d, conf)
    r = dict(n=len(a), med_a=median(a), med_b=median(b), est=math.exp(est), lo=math.exp(lo),
             hi=math.exp(hi), cover=cover)
    r["ratio_of_medians"] = r["med_b"] / r["med_a"]
    r["p_slower"], r["p_faster"] = sign_p(d)
    r["n_slower"], r["n_nonzero"] = sum(x > 0 for x in d), sum(x != 0 for x in d)
    decide([r], conf, thr)   # alone: a family of one
    return r


# ---------------------------------------------------------------------------- suites
def read_suite(name, path=SUITES):
    """The lines of suite NAME: (id template, precision, variant or glob, [flags])."""
    lines, known = [], set()
    with open(path) as f:
        for k, line in enumerate(f, 1):
            text = line.split("#", 1)[0].strip()
            if not text:
                continue
            fields = shlex.split(text)
            if len(fields) < 4:
                raise PerfError(f"{path} line {k}: expected 'suite id precision variant flags...'")
            known.add(fields[0])
            if fields[0] == name:
                lines.append((fields[1], fields[2], fields[3], fields[4:]))
    if not lines:
        raise PerfError(f"no suite '{name}' in {path} (suites: {', '.join(sorted(known))})")
    return lines


def have_gpu():
    try:
        out = subprocess.run(["nvidia-smi", "-L"], capture_output=True, text=True, timeout=30).stdout
    except (OSError, subprocess.SubprocessError):
        return False
    return "GPU" in out


def expand_suite(name, builds, path=SUITES, gpu=None):
    """Benchmarks (id, precision, variant, flags) of suite NAME that every build dir in
    BUILDS has. A glob (cpu-*) skips variants that have a line of their own in the suite;
    gpu-* programs need a GPU. Returns (benchmarks, notes on what was left out)."""
    if gpu is None:
        gpu = have_gpu()
    lines = read_suite(name, path)
    explicit = {v for _, _, v, _ in lines if not any(c in v for c in "*?[")}
    benches, notes, seen = [], [], set()

    def present(prec, v):
        return [os.access(os.path.join(b, prec, v), os.X_OK) for b in builds]

    for tmpl, prec, pat, flags in lines:
        if any(c in pat for c in "*?["):
            names = set()
            for b in builds:
                d = os.path.join(b, prec)
                if os.path.isdir(d):
                    names |= {v for v in os.listdir(d) if fnmatch.fnmatch(v, pat)}
            names = sorted(v for v in names if v not in explicit and not v.startswith("test-"))
        else:
            names = [pat]
        for v in names:
            bid = tmpl.replace("{v}", v).replace("{p}", prec)
            if v.startswith("gpu-") and not gpu:
                notes.append(f"{bid}: no GPU here")
                continue
            have = present(prec, v)
            if not all(have):
                missing = [b for b, h in zip(builds, have) if not h]
                notes.append(f"{bid}: {prec}/{v} not built in {', '.join(missing)}")
                continue
            if bid in seen:
                raise PerfError(f"suite {name}: benchmark id '{bid}' twice")
            seen.add(bid)
            benches.append((bid, prec, v, flags))
    return benches, notes


# ---------------------------------------------------------------------------- CSV
def read_csv(path):
    with open(path, newline="") as f:
        r = csv.reader(f)
        header = next(r, None)
        if header is None:
            raise PerfError(f"{path}: empty")
        rows, lines = [], []
        for k, fields in enumerate(r, 2):
            if len(fields) != len(header):
                raise PerfError(f"{path} line {k}: {len(fields)} fields, the header has {len(header)}")
            rows.append(dict(zip(header, fields)))
            lines.append(k)
    if csvq.KNOBS in header:   # the programs' rows: their knobs as columns (docs/csv.md)
        try:
            header, rows = csvq.expand(path, header, rows, lines)
        except csvq.CsvError as e:
            raise PerfError(str(e)) from None
    return header, rows


def append_rows(path, rows, prefix=PREFIX_COLS):
    """Append ROWS (dicts) to a compare CSV; a new column (a newer schema) rewrites the file
    with the union of the columns, missing values as '-' (the schema's 'not applicable')."""
    header, old = ([], [])
    if os.path.exists(path) and os.path.getsize(path) > 0:
        header, old = read_csv(path)
    cols = list(header) or list(prefix)
    for row in rows:
        cols += [c for c in row if c not in cols]
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    if cols != header:
        tmp = path + ".tmp"
        with open(tmp, "w", newline="") as f:
            w = csv.writer(f, lineterminator="\n")
            w.writerow(cols)
            for row in old + rows:
                w.writerow([row.get(c, "-") for c in cols])
        os.replace(tmp, path)
    else:
        with open(path, "a", newline="") as f:
            w = csv.writer(f, lineterminator="\n")
            for row in rows:
                w.writerow([row.get(c, "-") for c in cols])


def num(row, col):
    try:
        v = float(row.get(col, ""))
    except ValueError:
        return None
    return v if math.isfinite(v) else None


def stage_cols(rows):
    cols = []
    for row in rows:
        cols += [c for c in row if c.startswith("frac_") and c not in cols]
    return cols


# ---------------------------------------------------------------------------- analysis
def analyze(rows, metric="us_per_atom_step", conf=0.95, thr=0.05):
    """Per benchmark of one comparison's rows: the paired result, and per stage."""
    by_bench = {}
    for row in rows:
        by_bench.setdefault(row["bench"], {}).setdefault(int(row["pair"]), {})[row["side"]] = row
    results = []
    for bench, pairs in by_bench.items():
        full = [pairs[i] for i in sorted(pairs) if "A" in pairs[i] and "B" in pairs[i]]
        a = [num(p["A"], metric) for p in full]
        b = [num(p["B"], metric) for p in full]
        ok = [(x, y, p) for x, y, p in zip(a, b, full) if x and y and x > 0 and y > 0]
        res = dict(bench=bench, n=len(ok), stages=[])
        if len(ok) < 2:
            res.update(verdict="no data", error=f"{len(ok)} complete pair(s)")
            results.append(res)
            continue
        res.update(compare_pairs([x for x, _, _ in ok], [y for _, y, _ in ok], conf, thr))
        first = ok[0][2]["A"]
        res["variant"], res["system"] = first.get("variant", "?"), first.get("system", "?")
        for col in stage_cols([p[s] for _, _, p in ok for s in "AB"]):
            sa = [(num(p["A"], col) or 0) * x for x, _, p in ok]
            sb = [(num(p["B"], col) or 0) * y for _, y, p in ok]
            st = dict(stage=col[5:], med_a=median(sa), med_b=median(sb))
            st["diff"] = st["med_b"] - st["med_a"]
            if min(sa) > 0 and min(sb) > 0:
                st.update(compare_pairs(sa, sb, conf, thr))
            res["stages"].append(st)
        results.append(res)
    decide(results, conf, thr)   # the benchmarks are one family: Holm across them
    for res in results:
        if "est" in res:
            res["moved"] = moved_stage(res, thr)
    return results


def moved_stage(res, thr):
    """The stage whose change explains the most: among the stages whose interval excludes 1,
    the one with the largest |B - A| in us per atom-step. Named when the benchmark itself is
    slower or faster, or when that stage alone moved beyond the threshold; None otherwise
    (a significant change of a few percent in a small stage is not news)."""
    best = None
    for st in res["stages"]:
        if "lo" not in st or not (st["lo"] > 1 or st["hi"] < 1):
            continue
        if best is None or abs(st["diff"]) > abs(best["diff"]):
            best = st
    if best is None:
        return None
    if res["verdict"] in ("slower", "faster") or best["est"] > 1 + thr or best["est"] < 1 / (1 + thr):
        return best
    return None


def fmt_moved(st, total):
    if st is None:
        return "-"
    share = f", {100 * st['diff'] / total:+.0f}% of A's step" if total else ""
    return f"{st['stage']} x{st['est']:.2f} ({st['diff']:+.4g} us{share})"


def report(results, meta, out=sys.stdout):
    thr, conf = meta["threshold"], meta["conf"]
    p = lambda *a: print(*a, file=out)
    p(f"compare: A = {meta['a_label']}, B = {meta['b_label']}; suite {meta.get('suite', '?')}, "
      f"machine {meta.get('machine', '?')}, id {meta.get('compare_id', '?')}")
    p(f"  metric {meta['metric']} (each run: the median of its timing blocks); pairs run back to "
      f"back, order alternating A B / B A")
    p(f"  ratio B/A: {METHOD} (nominal {100 * conf:.0f}%; 'cover' = its exact coverage)")
    p(f"  verdict at {100 * thr:g}%: slower = the one-sided sign test, Holm-corrected over the "
      f"{sum('est' in r for r in results)} benchmarks at family-wise {1 - conf:g}, finds B slower and estimate "
      f"> {1 + thr:.3g}; faster likewise below {1 / (1 + thr):.3g}; otherwise no change")
    p("  B>A = pairs in which B was slower / nonzero pairs; p(sign) = the sign test's one-sided p in the "
      "estimate's direction, uncorrected")
    p("")
    w = max([len(r["bench"]) for r in results] + [9])
    p(f"{'benchmark':<{w}}  pairs  median A   median B     B/A   interval          cover  B>A  p(sign)  verdict     stage that moved")
    for r in results:
        if "est" not in r:
            p(f"{r['bench']:<{w}}  {r['n']:5d}  {'-':>9}  {'-':>9}  {'-':>6}   {'-':<16}  {'-':>5}  {r['verdict']}  ({r.get('error', '')})")
            continue
        p(f"{r['bench']:<{w}}  {r['n']:5d}  {r['med_a']:9.4g}  {r['med_b']:9.4g}  {r['est']:6.3f}   "
          f"[{r['lo']:.3f}, {r['hi']:.3f}]  {100 * r['cover']:4.1f}%  {signs(r):>5} {p_dir(r):8.2g}  "
          f"{r['verdict']:<10}  {fmt_moved(r['moved'], r['med_a'])}")
    p("")
    p("per stage (us per atom-step = frac_<stage> x metric; medians, and B/A with its interval "
      "where the stage takes time on both sides)")
    for r in results:
        if not r.get("stages"):
            continue
        parts = []
        for st in r["stages"]:
            if st["med_a"] <= 0 and st["med_b"] <= 0:
                continue
            if "est" in st:
                mark = "*" if st["lo"] > 1 or st["hi"] < 1 else ""
                parts.append(f"{st['stage']} {st['med_a']:.3g}->{st['med_b']:.3g} x{st['est']:.2f}"
                             f"[{st['lo']:.2f},{st['hi']:.2f}]{mark}")
            else:
                parts.append(f"{st['stage']} {st['med_a']:.3g}->{st['med_b']:.3g}")
        p(f"  {r['bench']:<{w}}  " + "  ".join(parts))
    p("  * = the stage's interval excludes 1")
    p("")
    slower = [r for r in results if r.get("verdict") == "slower"]
    nodata = [r for r in results if r.get("verdict") == "no data"]
    if slower:
        p("verdict: SLOWER beyond " + f"{100 * thr:g}%: " + "; ".join(
            f"{r['bench']} x{r['est']:.3f} [{r['lo']:.3f}, {r['hi']:.3f}] ({fmt_moved(r['moved'], r['med_a'])})"
            for r in slower) + " (exit 1)")
        return 1
    if nodata or not results:
        p("verdict: could not compare " + ", ".join(r["bench"] for r in nodata) + " (exit 2)")
        return 2
    most, least, m = undecidable(results, 1 - conf)
    if most < least:
        p(f"verdict: undecided: {most} pairs a benchmark at most, and the one-sided sign test's smallest p, "
          f"2^-{most} = {2.0 ** -most:.3g}, is above Holm's first threshold over {m} benchmarks, "
          f"{1 - conf:g}/{m} = {(1 - conf) / m:.3g}: no benchmark could be called slower or faster whatever "
          f"the pairs showed; the intervals above are the evidence. Run at least {least} pairs (exit 2)")
        return 2
    faster = [r["bench"] for r in results if r.get("verdict") == "faster"]
    p(f"verdict: no significant slowdown beyond {100 * thr:g}%"
      + (f"; faster: {', '.join(faster)}" if faster else "") + " (exit 0)")
    return 0


def signs(r):
    return f"{r['n_slower']}/{r['n_nonzero']}"


def p_dir(r):
    return r["p_slower"] if r["est"] >= 1 else r["p_faster"]


def comparisons(rows):
    ids = []
    for row in rows:
        if row["compare_id"] not in ids:
            ids.append(row["compare_id"])
    return ids


def meta_of(rows, args):
    r0 = rows[0]
    return dict(a_label=r0.get("a_label", "A"), b_label=r0.get("b_label", "B"), compare_id=r0["compare_id"],
                suite=r0.get("suite", getattr(args, "suite", "?")), machine=getattr(args, "machine", "?"),
                metric=args.metric, threshold=args.threshold, conf=args.conf)


# ---------------------------------------------------------------------------- runner
class Side:
    def __init__(self, name, label, build):
        self.name, self.label, self.build = name, label, build
        self.flag_cache = {}

    def prog(self, prec, variant):
        return os.path.join(self.build, prec, variant)

    def allow_dirty(self, prog):
        """--allow-dirty where the program has it (newer revisions; older ones refuse it)."""
        if prog not in self.flag_cache:
            try:
                h = subprocess.run([prog, "--help"], capture_output=True, text=True, timeout=60)
                self.flag_cache[prog] = "--allow-dirty" in (h.stdout + h.stderr)
            except (OSError, subprocess.SubprocessError):
                self.flag_cache[prog] = False
        return self.flag_cache[prog]


class Lock:
    """One benchmark at a time on this machine (runs/lib.sh's NBR_LOCK), held per run."""

    def __init__(self, path):
        self.path = None if path in ("", "none") else path
        self.fd = None

    def __enter__(self):
        if self.path:
            import fcntl
            self.fd = open(self.path, "a")
            fcntl.flock(self.fd, fcntl.LOCK_EX)

    def __exit__(self, *exc):
        if self.fd:
            self.fd.close()
            self.fd = None


def run_one(side, bench, tag, tmpdir, lock, timeout):
    bid, prec, variant, flags = bench
    prog = side.prog(prec, variant)
    out = os.path.join(tmpdir, f"{tag}.csv")
    cmd = [prog] + flags + ["--csv", out, "--tag", tag, "--quiet"]
    if side.allow_dirty(prog):
        cmd.append("--allow-dirty")
    with lock:
        t0 = time.time()
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
        wall = time.time() - t0
    if p.returncode != 0 or not os.path.exists(out):
        msg = (p.stderr.strip() or p.stdout.strip()).splitlines()[-1:] or ["no output"]
        raise PerfError(f"{bid} ({side.name}): exit {p.returncode}: {msg[0]}  [{' '.join(cmd)}]", p.returncode, side.name)
    _, rows = read_csv(out)
    os.unlink(out)
    if not rows or rows[-1].get("status") != "ok":
        raise PerfError(f"{bid} ({side.name}): status {rows[-1].get('status') if rows else 'missing'}")
    return rows[-1], wall


def refused_by_both(err, pair, order, bench, tmpdir, lock, timeout):
    """A benchmark that the first side of its first pair refuses as beyond this machine's capacity
    (a GPU with less shared memory than the suite's): left out, not an error, where the other side
    refuses it alike. Any other failure, or one after the first pair, is a failed run."""
    if pair != 1 or getattr(err, "code", None) != EXIT_CAPACITY or err.side != order[0].name:
        return False
    try:
        run_one(order[1], bench, f"refused-{bench[0]}-{order[1].name}", tmpdir, lock, timeout)
    except PerfError as e2:
        return e2.code == EXIT_CAPACITY
    return False


def cmd_run(args):
    a = Side("A", args.a_label, args.a_build)
    b = Side("B", args.b_label, args.b_build)
    benches, notes = expand_suite(args.suite, [a.build, b.build], args.suite_file)
    for n in notes:
        print(f"  left out: {n}", file=sys.stderr)
    if args.only:
        benches = [x for x in benches if any(fnmatch.fnmatch(x[0], pat) for pat in args.only.split(","))]
    if not benches:
        raise PerfError(f"suite {args.suite}: no benchmark to run")
    cid = args.compare_id or time.strftime("%Y%m%dT%H%M%S", time.gmtime())
    lock = Lock(os.environ.get("NBR_LOCK", "/tmp/nbrlab-bench.lock"))
    meta = dict(a_label=a.label, b_label=b.label, compare_id=cid, suite=args.suite, machine=args.machine,
                metric=args.metric, threshold=args.threshold, conf=args.conf)
    print(f"compare {cid}: {len(benches)} benchmarks x {args.pairs} pairs (budget {args.budget:g} s, at least "
          f"{args.min_pairs} pairs): {', '.join(x[0] for x in benches)}", file=sys.stderr)
    least = pairs_needed(len(benches), 1 - args.conf)
    if args.pairs < least:
        print(f"  note: {args.pairs} pairs: the sign test over {len(benches)} benchmarks needs {least} pairs to "
              f"ever find one slower at family-wise {1 - args.conf:g}: the verdict will be undecided", file=sys.stderr)
    floor = max(args.min_pairs, min(least, args.pairs))   # the budget never cuts a decidable run undecidable
    rows, active, t_start = [], list(benches), time.time()
    round_time = 0.0
    errors, refused, written = [], [], 0
    with tempfile.TemporaryDirectory(prefix="nbrlab-compare.") as tmpdir:
        pair = 0
        while active:
            pair += 1
            t_round = time.time()
            for j, bench in enumerate(list(active)):
                order = (a, b) if (pair + j) % 2 == 1 else (b, a)
                try:
                    for k, side in enumerate(order, 1):
                        tag = f"cmp-{cid}-{bench[0]}-{pair}{side.name}"
                        row, _ = run_one(side, bench, tag, tmpdir, lock, args.run_timeout)
                        out = dict(compare_id=cid, suite=args.suite, bench=bench[0], pair=pair, side=side.name, order=k,
                                   side_label=side.label, a_label=a.label, b_label=b.label)
                        out.update(row)
                        rows.append(out)
                except (PerfError, subprocess.SubprocessError) as e:
                    active.remove(bench)
                    if refused_by_both(e, pair, order, bench, tmpdir, lock, args.run_timeout):
                        refused.append(f"{bench[0]}: {e}")
                        print(f"  left out: both sides refuse it on this machine: {e}", file=sys.stderr)
                        continue
                    errors.append(str(e))
                    print(f"  error: {e}", file=sys.stderr)
            round_time = time.time() - t_round
            elapsed = time.time() - t_start
            if len(rows) > written:   # each round's rows at once: an interrupted run keeps them
                append_rows(args.csv, rows[written:])
                written = len(rows)
            # a fixed number of pairs: what the pairs showed never decides whether more run;
            # the budget may end it early (a matter of time, not of the data)
            if pair >= args.pairs:
                break
            if pair >= floor and elapsed + round_time > args.budget:
                print(f"  stopping after {pair} of {args.pairs} pairs ({elapsed:.0f} s): the budget", file=sys.stderr)
                break
    results = analyze(rows, args.metric, args.conf, args.threshold) if rows else []
    with open(args.report, "w") if args.report else open(os.devnull, "w") as rep:
        code = report(results, meta, out=sys.stdout)
        if args.report:
            report(results, meta, out=rep)
    if refused:
        line = "left out, refused by both sides on this machine (exit 3, a capacity): " + "; ".join(refused)
        print(line)
        if args.report:
            with open(args.report, "a") as rep:
                print(line, file=rep)
    if errors:
        print("errors: " + "; ".join(errors))
        return 1 if code == 1 else 2
    print(f"  {len(rows)} runs in {time.time() - t_start:.0f} s; rows in {args.csv}", file=sys.stderr)
    return code


def select(rows, cid):
    ids = comparisons(rows)
    if not ids:
        raise PerfError("no rows")
    cid = cid or ids[-1]
    if cid not in ids:
        raise PerfError(f"no comparison {cid} (have: {', '.join(ids)})")
    return [r for r in rows if r["compare_id"] == cid]


def cmd_analyze(args):
    _, rows = read_csv(args.csv)
    rows = select(rows, args.id)
    return report(analyze(rows, args.metric, args.conf, args.threshold), meta_of(rows, args))


def cmd_summary(args):
    """Every comparison in the files: how many gave exit 1 (a significant slowdown)."""
    total = fails = 0
    worst = []
    for path in args.csv:
        _, rows = read_csv(path)
        for cid in comparisons(rows):
            sub = [r for r in rows if r["compare_id"] == cid]
            res = analyze(sub, args.metric, args.conf, args.threshold)
            slower = [r for r in res if r.get("verdict") == "slower"]
            total += 1
            fails += bool(slower)
            ests = [(r["est"], r["lo"], r["hi"], r["n"], r["bench"]) for r in res if "est" in r]
            top = max(ests) if ests else None
            worst += [e for e in ests]
            pairs = sorted({r["n"] for r in res})
            most, least, m = undecidable(res, 1 - args.conf)
            undecided = m > 0 and not slower and most < least
            state = "FAIL" if slower else "undecided" if undecided else "pass"
            print(f"{path} {cid}: {state}; pairs {pairs[0]}-{pairs[-1]}; "
                  + ("largest B/A " + f"{top[4]} x{top[0]:.3f} [{top[1]:.3f}, {top[2]:.3f}]" if top else "no data")
                  + ("; slower: " + ", ".join(f"{r['bench']} x{r['est']:.3f}" for r in slower) if slower else ""))
    if total:
        ests = sorted(e[0] for e in worst)
        print(f"{fails} of {total} comparisons failed the gate ({100.0 * fails / total:.0f}%) at threshold "
              f"{100 * args.threshold:g}%; per-benchmark B/A estimates: min {ests[0]:.3f}, median "
              f"{median(ests):.3f}, max {ests[-1]:.3f} ({len(ests)} benchmark results)")
    return 0


def cmd_merge(args):
    """Append the rows of SRC CSVs to DEST, the union of the columns (bench.csv keeps one file
    across schema changes). Like the programs, rows of a dirty or unknown revision are refused
    for a DEST under a directory named results unless --allow-dirty."""
    rows = []
    for src in args.src:
        _, part = read_csv(src)
        rows += part
    under_results = "results" in os.path.abspath(os.path.dirname(args.dest)).split(os.sep)
    for r in rows:
        rev = r.get("git_rev", "unknown")
        if under_results and not args.allow_dirty and (rev in ("", "unknown") or rev.endswith("-dirty")):
            raise PerfError(f"refusing to append to {args.dest}: revision '{rev}' is not a committed one "
                            f"(commit first, or ALLOW_DIRTY=1)")
    if rows:
        append_rows(args.dest, rows, prefix=[])
    return 0


def cmd_pairs(args):
    a = [float(x) for x in args.a.split(",")]
    b = [float(x) for x in args.b.split(",")]
    r = compare_pairs(a, b, args.conf, args.threshold)
    print(f"pairs {r['n']}  median A {r['med_a']:.6g}  median B {r['med_b']:.6g}  ratio {r['est']:.4f}  "
          f"interval [{r['lo']:.4f}, {r['hi']:.4f}]  cover {r['cover']:.4f}  signs {signs(r)}  p {p_dir(r):.4g}  "
          f"verdict {r['verdict']}")
    return 1 if r["verdict"] == "slower" else 0


def cmd_suite(args):
    benches, notes = expand_suite(args.name, args.build, args.suite_file)
    for n in notes:
        print(f"  left out: {n}", file=sys.stderr)
    for bid, prec, v, flags in benches:
        print("\t".join([bid, prec, v, " ".join(shlex.quote(f) for f in flags)]))
    return 0


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)

    def stats_opts(p):
        p.add_argument("--threshold", type=float, default=0.05, help="verdict threshold, a fraction (0.05 = 5%%)")
        p.add_argument("--conf", type=float, default=0.95, help="nominal confidence of the interval")
        p.add_argument("--metric", default="us_per_atom_step", help="CSV column compared (lower is better)")

    p = sub.add_parser("run", help="interleaved runs of two builds")
    stats_opts(p)
    p.add_argument("--a-build", required=True)
    p.add_argument("--b-build", required=True)
    p.add_argument("--a-label", default="A")
    p.add_argument("--b-label", default="B")
    p.add_argument("--suite", default="quick")
    p.add_argument("--suite-file", default=SUITES)
    p.add_argument("--only", help="comma-separated globs of benchmark ids")
    p.add_argument("--pairs", type=int, default=18, help="pairs per benchmark, fixed")
    p.add_argument("--min-pairs", type=int, default=6, help="pairs that run even past --budget")
    p.add_argument("--budget", type=float, default=600, help="seconds of runs; past it no new pair starts "
                   "(the first --min-pairs always run)")
    p.add_argument("--run-timeout", type=float, default=600)
    p.add_argument("--csv", required=True)
    p.add_argument("--report", help="also write the report to this file")
    p.add_argument("--compare-id")
    p.add_argument("--machine", default="?")
    p.set_defaults(func=cmd_run)

    p = sub.add_parser("analyze", help="the report of one comparison in a compare CSV")
    stats_opts(p)
    p.add_argument("csv")
    p.add_argument("--id", help="compare_id (default: the last)")
    p.add_argument("--machine", default="?")
    p.set_defaults(func=cmd_analyze)

    p = sub.add_parser("summary", help="pass/fail of every comparison in compare CSVs")
    stats_opts(p)
    p.add_argument("csv", nargs="+")
    p.set_defaults(func=cmd_summary)

    p = sub.add_parser("merge", help="append CSV rows to a CSV, the union of the columns")
    p.add_argument("dest")
    p.add_argument("src", nargs="+")
    p.add_argument("--allow-dirty", action="store_true")
    p.set_defaults(func=cmd_merge)

    p = sub.add_parser("pairs", help="two samples, paired in order")
    stats_opts(p)
    p.add_argument("a")
    p.add_argument("b")
    p.set_defaults(func=cmd_pairs)

    p = sub.add_parser("suite", help="list a suite's benchmarks")
    p.add_argument("name")
    p.add_argument("--build", action="append", default=[], help="build dir (repeatable; default build)")
    p.add_argument("--suite-file", default=SUITES)
    p.set_defaults(func=cmd_suite)

    args = ap.parse_args(argv)
    if getattr(args, "min_pairs", 5) < 5:
        ap.error("--min-pairs must be at least 5 (fewer pairs cannot give a 90% interval)")
    if getattr(args, "pairs", 99) < getattr(args, "min_pairs", 0):
        ap.error("--pairs must not be below --min-pairs")
    if getattr(args, "build", None) == []:
        args.build = ["build"]
    try:
        return args.func(args)
    except PerfError as e:
        print(f"perfstat: {e}", file=sys.stderr)
        return 2
    except OSError as e:
        print(f"perfstat: {e}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
