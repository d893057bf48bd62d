#!/usr/bin/env python3
"""compare.py - the one-page figure of a runs/compare.sh comparison (matplotlib).

  python3 plots/compare.py results/<machine>/compare/A_B.csv [--id COMPARE_ID] [--out FILE.png]
          [--threshold PCT] [--conf X] [--metric COL]

Left: the ratio B/A per benchmark, the Hodges-Lehmann estimate with its exact signed-rank
interval (runs/perfstat.py: the same numbers as the printed report), each pair's own ratio as
a dot, the no-change band of the threshold shaded; red = slower, green = faster.
Right: per-stage bars, A above B for each benchmark: the median us per atom-step of each stage
(frac_<stage> x metric) divided by A's median, so a stage that moved shows as a longer segment.
Default output: the CSV's name with .png (--out FILE.svg for a vector figure).
"""
import argparse
import math
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "runs"))
import perfstat  # noqa: E402

STAGE_COLORS = {"list": "#4e79a7", "force": "#e15759", "integrate": "#59a14f", "transfer": "#b07aa1",
                "reorder": "#edc948", "other": "#9c755f"}
VERDICT_COLORS = {"slower": "#d62728", "faster": "#2ca02c", "no change": "#333333", "no data": "#999999"}


def pair_ratios(rows, bench, metric):
    pairs = {}
    for r in rows:
        if r["bench"] == bench:
            pairs.setdefault(int(r["pair"]), {})[r["side"]] = perfstat.num(r, metric)
    return [p["B"] / p["A"] for p in pairs.values() if p.get("A") and p.get("B")]


def draw(rows, results, meta, out):
    import matplotlib
    matplotlib.use("Agg")
    matplotlib.rcParams["svg.hashsalt"] = "nbrlab"
    import matplotlib.pyplot as plt

    thr = meta["threshold"]
    results = [r for r in results if "est" in r] + [r for r in results if "est" not in r]
    n = len(results)
    fig, (ax, bx) = plt.subplots(1, 2, figsize=(11.7, max(4.5, 1.0 + 0.42 * n + 1.6)),
                                 gridspec_kw=dict(width_ratios=[1.1, 1]))
    ys = list(range(n))[::-1]
    ax.axvspan(1 / (1 + thr), 1 + thr, color="#dddddd", alpha=0.6, lw=0,
               label=f"no-change band ({100 * thr:g}%)")
    ax.axvline(1, color="k", lw=0.8)
    # the axis spans the intervals and the band; pair ratios beyond it sit on its edge as
    # triangles (one wild pair must not squash every interval)
    lo_all = min([1 / (1 + thr)] + [r["lo"] for r in results if "lo" in r])
    hi_all = max([1 + thr] + [r["hi"] for r in results if "hi" in r])
    span = math.log(hi_all / lo_all)
    x_lo, x_hi = lo_all * math.exp(-0.15 * span), hi_all * math.exp(0.15 * span)
    for y, r in zip(ys, results):
        dots = pair_ratios(rows, r["bench"], meta["metric"])
        inside = [d for d in dots if x_lo <= d <= x_hi]
        ax.plot(inside, [y + 0.18] * len(inside), "o", ms=3, color="#888888", alpha=0.7, zorder=2)
        for d in dots:
            if d < x_lo or d > x_hi:
                ax.plot([x_lo if d < x_lo else x_hi], [y + 0.18], "<" if d < x_lo else ">", ms=5,
                        color="#888888", clip_on=False, zorder=2)
        if "est" not in r:
            ax.text(1, y, "no data", va="center", ha="center", color="grey", fontsize=8)
            continue
        c = VERDICT_COLORS[r["verdict"]]
        ax.errorbar([r["est"]], [y], xerr=[[r["est"] - r["lo"]], [r["hi"] - r["est"]]], fmt="s", ms=6,
                    color=c, capsize=4, lw=2, zorder=3)
        ax.text(0.99, y - 0.32, f"x{r['est']:.3f} [{r['lo']:.3f}, {r['hi']:.3f}] {r['verdict']}, {r['n']} pairs",
                transform=ax.get_yaxis_transform(), ha="right", va="center", fontsize=7, color=c)
    ax.set_yticks(ys)
    ax.set_yticklabels([r["bench"] for r in results], fontsize=8)
    ax.set_ylim(-1.6, n - 0.3)
    ax.set_xscale("log")
    ax.set_xlim(x_lo, x_hi)
    from matplotlib import ticker
    ax.xaxis.set_major_formatter(ticker.FuncFormatter(lambda v, _: f"{v:g}"))
    ax.xaxis.set_minor_formatter(ticker.FuncFormatter(lambda v, _: f"{v:g}"))
    ax.tick_params(axis="x", which="both", labelsize=7)
    ax.set_xlabel(f"B/A of {meta['metric']} (log scale; dots: each pair, triangles: beyond the axis)")
    ax.set_title("ratio B/A: estimate and interval", fontsize=10)
    ax.grid(True, axis="x", which="both", alpha=0.3)
    ax.legend(loc="lower left", fontsize=7, framealpha=0.8)

    # per-stage bars, normalized by A's median of the metric
    stages = []
    for r in results:
        for st in r.get("stages", []):
            if st["stage"] not in stages and (st["med_a"] > 0 or st["med_b"] > 0):
                stages.append(st["stage"])
    labels = set()
    for y, r in zip(ys, results):
        if "est" not in r:
            continue
        norm = r["med_a"]
        for side, dy in (("a", 0.18), ("b", -0.18)):
            left = 0.0
            for st in r["stages"]:
                if st["stage"] not in stages:
                    continue
                wdt = st["med_" + side] / norm
                lab = st["stage"] if st["stage"] not in labels else None
                labels.add(st["stage"])
                moved = r.get("moved") is not None and r["moved"]["stage"] == st["stage"]
                bx.barh(y + dy, wdt, left=left, height=0.32, color=STAGE_COLORS.get(st["stage"], "#bab0ac"),
                        edgecolor="k" if moved and side == "b" else "none", lw=1.2, label=lab)
                left += wdt
            bx.text(left + 0.01, y + dy, side.upper(), va="center", fontsize=6)
    bx.set_yticks(ys)
    bx.set_yticklabels([])
    bx.set_ylim(-1.6, n - 0.3)
    bx.axvline(1, color="k", lw=0.6, ls=":")
    bx.set_xlabel("median time per stage / A's median step time (A upper, B lower bar)")
    bx.set_title("per stage (frac_<stage> x metric); outlined: the stage that moved", fontsize=10)
    bx.legend(loc="lower center", fontsize=7, ncol=6, framealpha=0.8)
    bx.grid(True, axis="x", alpha=0.3)

    slower = [r["bench"] for r in results if r.get("verdict") == "slower"]
    head = (f"A = {meta['a_label']}   B = {meta['b_label']}   suite {meta.get('suite', '?')}   "
            f"compare {meta['compare_id']}   verdict: "
            + (f"SLOWER ({', '.join(slower)})" if slower else f"no significant slowdown beyond {100 * thr:g}%"))
    fig.suptitle(head, fontsize=10)
    fig.text(0.5, 0.01, f"{perfstat.METHOD}, nominal {100 * meta['conf']:.0f}%; pairs run back to back, "
             "order alternating; slower = interval above 1 and estimate above 1 + threshold",
             ha="center", fontsize=7, color="#444444")
    fig.tight_layout(rect=(0, 0.03, 1, 0.95))
    fig.savefig(out, dpi=110, metadata={"Software": None} if out.endswith(".png") else {"Date": None})
    plt.close(fig)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("csv")
    ap.add_argument("--id")
    ap.add_argument("--out")
    ap.add_argument("--threshold", type=float, default=5, help="percent")
    ap.add_argument("--conf", type=float, default=0.95)
    ap.add_argument("--metric", default="us_per_atom_step")
    args = ap.parse_args(argv)
    try:
        _, rows = perfstat.read_csv(args.csv)
        rows = perfstat.select(rows, args.id)
    except (perfstat.PerfError, OSError) as e:
        print(f"compare.py: {e}", file=sys.stderr)
        return 2
    thr = args.threshold / 100
    results = perfstat.analyze(rows, args.metric, args.conf, thr)
    r0 = rows[0]
    meta = dict(a_label=r0.get("a_label", "A"), b_label=r0.get("b_label", "B"), compare_id=r0["compare_id"],
                metric=args.metric, threshold=thr, conf=args.conf, suite=r0.get("suite", "?"))
    out = args.out or os.path.splitext(args.csv)[0] + ".png"
    draw(rows, results, meta, out)
    print(f"compare.py: {out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
