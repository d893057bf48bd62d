#!/usr/bin/env python3
"""history.py - a metric of the committed bench rows against the commit order (runs/history.sh).

  python3 plots/history.py BENCH_CSV... [--order REVS_FILE] [--metric COL] [--suite S]
          [--out FILE.png] [--table-only] [--run RUN_ID]

Rows: results/<machine>/bench.csv (runs/bench.sh; tags SUITE/ID/RUNID-rK), status ok, from a
committed revision (git_rev without -dirty, not unknown). One series per benchmark id of the
suite (variant x system [x size]); per revision the median of its repeats, the band spanning
their minimum and maximum. The x axis is the commit order: REVS_FILE lists the revisions
oldest first (git rev-list --reverse; runs/history.sh writes it); without it, the order of
first appearance in the CSV. Prints the table (per series and revision: runs, median, range,
change from the previous revision with data); draws the figure unless --table-only
(matplotlib; a log y axis when the series span more than a decade).
--run RUN_ID: only the rows of one bench.sh invocation (its summary table).
"""
import argparse
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "runs"))
import perfstat  # noqa: E402


def rev_hash(git_rev):
    """'v1.2-3-gabc1234' -> 'abc1234'; 'abc1234' -> 'abc1234'; None for dirty/unknown."""
    r = git_rev.strip()
    if not r or r == "unknown" or r.endswith("-dirty") or "+" in r:
        return None
    parts = r.split("-")
    if len(parts) >= 3 and parts[-1].startswith("g"):
        return parts[-1][1:]
    return r


def load(paths, metric, suite=None, run=None, committed=True):
    series = {}   # id -> rev -> [values]
    for path in paths:
        _, rows = perfstat.read_csv(path)
        for row in rows:
            tag = row.get("tag", "")
            parts = tag.split("/")
            if len(parts) != 3 or row.get("status") != "ok":
                continue
            if suite and parts[0] != suite:
                continue
            if run and not parts[2].startswith(run):
                continue
            rev = rev_hash(row.get("git_rev", ""))
            if rev is None:
                if committed:
                    continue
                rev = row.get("git_rev", "?")
            v = perfstat.num(row, metric)
            if v is None:
                continue
            key = f"{parts[0]}/{parts[1]}" if not suite else parts[1]
            series.setdefault(key, {}).setdefault(rev, []).append(v)
    return series


def order_revs(series, order_file):
    seen = []
    for revs in series.values():
        seen += [r for r in revs if r not in seen]
    if not order_file:
        return seen, []
    with open(order_file) as f:
        full = [line.strip() for line in f if line.strip()]
    pos = {}
    for r in seen:
        hits = [k for k, h in enumerate(full) if h.startswith(r) or r.startswith(h)]
        if hits:
            pos[r] = hits[0]
    ordered = sorted(pos, key=pos.get)
    return ordered, [r for r in seen if r not in pos]


def table(series, revs, metric):
    w = max([len(k) for k in series] + [9])
    print(f"{'benchmark':<{w}}  {'revision':<12} runs  {'median':>10}  {'min':>10}  {'max':>10}  vs previous")
    for key in sorted(series):
        prev = None
        for rev in revs:
            vals = series[key].get(rev)
            if not vals:
                continue
            m = perfstat.median(vals)
            change = f"{100 * (m / prev - 1):+.1f}%" if prev else "-"
            print(f"{key:<{w}}  {rev[:12]:<12} {len(vals):4d}  {m:10.4g}  {min(vals):10.4g}  {max(vals):10.4g}  {change}")
            prev = m


def draw(series, revs, metric, out, title):
    import matplotlib
    matplotlib.use("Agg")
    matplotlib.rcParams["svg.hashsalt"] = "nbrlab"
    import matplotlib.pyplot as plt

    # upper: the metric itself; lower: each series relative to its first revision's median,
    # where a change of a few percent shows
    fig, (ax, rx) = plt.subplots(2, 1, figsize=(11, 9), sharex=True, gridspec_kw=dict(height_ratios=[3, 2]))
    cmap = plt.get_cmap("tab20")
    xs_all = range(len(revs))
    allv = []
    for j, key in enumerate(sorted(series)):
        pts = [(i, series[key][r]) for i, r in enumerate(revs) if series[key].get(r)]
        if not pts:
            continue
        x = [i for i, _ in pts]
        med = [perfstat.median(v) for _, v in pts]
        lo = [min(v) for _, v in pts]
        hi = [max(v) for _, v in pts]
        allv += lo + hi
        c = cmap(j % 20)
        for a, scale in ((ax, 1.0), (rx, med[0])):
            a.fill_between(x, [v / scale for v in lo], [v / scale for v in hi], color=c, alpha=0.25, lw=0)
            a.plot(x, [v / scale for v in med], "o-", color=c, ms=4, lw=1.5, label=key if a is ax else None)
            if len(x) == 1:   # a single revision: show its spread as an error bar
                a.errorbar(x, [med[0] / scale], yerr=[[(med[0] - lo[0]) / scale], [(hi[0] - med[0]) / scale]],
                           color=c, capsize=4)
    if allv and min(allv) > 0 and max(allv) / min(allv) > 10:
        ax.set_yscale("log")
    rx.axhline(1, color="k", lw=0.8)
    rx.set_ylabel("relative to the first revision")
    rx.grid(True, alpha=0.3)
    rx.set_xticks(list(xs_all))
    rx.set_xticklabels([r[:7] for r in revs], rotation=45, ha="right", fontsize=8)
    rx.set_xlim(-0.5, max(0.5, len(revs) - 0.5))
    rx.set_xlabel("revision (commit order, oldest left)")
    ax.set_ylabel(metric)
    ax.set_title(title, fontsize=10)
    ax.grid(True, alpha=0.3, which="both")
    ax.legend(fontsize=7, ncol=2, loc="center left", bbox_to_anchor=(1.01, 0.5))
    fig.text(0.01, 0.01, "line: median of the repeats of a revision; band: their min-max", fontsize=7,
             color="#444444")
    fig.tight_layout(rect=(0, 0.03, 1, 1))
    fig.savefig(out, dpi=110, metadata={"Software": None})
    base, ext = os.path.splitext(out)
    if ext == ".png":
        fig.savefig(base + ".svg", metadata={"Date": None})
    plt.close(fig)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("csv", nargs="+")
    ap.add_argument("--order")
    ap.add_argument("--metric", default="us_per_atom_step")
    ap.add_argument("--suite", default=None, help="only this suite (default: every suite, ids prefixed)")
    ap.add_argument("--out")
    ap.add_argument("--table-only", action="store_true")
    ap.add_argument("--run", help="only the rows of this bench.sh run id (dirty rows included)")
    args = ap.parse_args(argv)
    try:
        series = load(args.csv, args.metric, args.suite, args.run, committed=not args.run)
        revs, unplaced = order_revs(series, args.order)
    except (perfstat.PerfError, OSError) as e:
        print(f"history.py: {e}", file=sys.stderr)
        return 2
    if unplaced:
        print(f"history.py: not in the commit order (other branch or unknown here), left out: "
              f"{', '.join(unplaced)}", file=sys.stderr)
    if not series or not revs:
        print("history.py: no committed bench rows" + (f" of suite {args.suite}" if args.suite else "")
              + f" in {', '.join(args.csv)} (make bench on a committed revision adds some)", file=sys.stderr)
        return 1
    table(series, revs, args.metric)
    if args.table_only:
        return 0
    out = args.out or "plots/out/mpl/history.png"
    os.makedirs(os.path.dirname(out) or ".", exist_ok=True)
    title = f"{args.metric} against the commit order ({', '.join(args.csv)}" + \
            (f", suite {args.suite})" if args.suite else ")")
    draw(series, revs, args.metric, out, title)
    print(f"history.py: {out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
