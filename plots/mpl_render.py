"""mpl_render.py - draws one table's figure with matplotlib (PNG and SVG), from the data that
plots/figdata.py takes out of the CSVs (pandas) as plots/tables.py defines; plots/mpl/<table>.py
call main().  The same panels, series and reference marks as the gnuplot figure.
"""
import os
import sys
import textwrap

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import figdata  # noqa: E402
import nbrcsv  # noqa: E402
import tables  # noqa: E402

REF_DASHES = ["--", ":", "-.", (0, (5, 2, 1, 2))]


def draw_panel(ax, p, cats):
    spec = p["spec"]
    ax.set_title(spec.get("title", ""), fontsize=9)
    ax.set_xlabel(spec["xlabel"])
    ax.set_ylabel(spec["ylabel"])
    ax.grid(True, alpha=0.3)
    if cats:
        ax.set_xticks(range(1, len(cats) + 1))
        ax.set_xticklabels(cats, rotation=20 if len(cats) > 3 else 0, fontsize=8)
        ax.set_xlim(0.5, len(cats) + 0.5)
    if not p["has_data"]:
        ax.text(0.5, 0.5, "no data yet", transform=ax.transAxes, ha="center", va="center", color="grey")
        return
    from matplotlib import ticker
    plain = ticker.FuncFormatter(lambda v, _: f"{v:g}")
    if spec.get("logx"):
        ax.set_xscale("log")
    if spec.get("logy"):
        ax.set_yscale("log")
        # 0.2, 0.5 rather than 2x10^-1: a log axis spanning less than a decade or two
        ax.yaxis.set_major_formatter(plain)
        ax.yaxis.set_minor_formatter(ticker.FuncFormatter(
            lambda v, _: f"{v:g}" if str(f"{v:g}")[0] in "25" else ""))
    xs = [pt[0] for s in p["series"] for pt in s["points"]]
    lo, hi = (min(xs), max(xs)) if not cats else (0.5, len(cats) + 0.5)
    for j, s in enumerate(p["series"]):
        if not s["points"]:
            continue
        color = figdata.PALETTE[j % len(figdata.PALETTE)]
        if s["spec"].get("hline"):
            ax.plot([lo, hi], [s["points"][0][1]] * 2, ":", lw=2, color=color, label=s["label"])
        else:
            pts = s["points"]
            ys = [q.y for q in pts]
            # error bars: the range of the repeated runs of a point, where there are several
            err = [[q.y - q.lo for q in pts], [q.hi - q.y for q in pts]] if any(q.hi > q.lo for q in pts) else None
            ax.errorbar([q.x for q in pts], ys, yerr=err, fmt="o-", ms=4, lw=1.5, capsize=3,
                        color=color, label=s["label"])
    for j, m in enumerate(p["refs"]):
        dash = REF_DASHES[j % len(REF_DASHES)]
        c = figdata.REF_COLOR
        if m["kind"] == "band":
            ax.axhspan(m["lo"], m["hi"], color=c, alpha=0.15, label=m["label"])
        elif m["kind"] == "hline":
            ax.axhline(m["value"], ls=dash, color=c, lw=1.2, label=m["label"])
        elif m["kind"] == "pm":
            ax.axhline(m["value"], ls=dash, color=c, lw=1.2, label=m["label"])
            ax.axhline(-m["value"], ls=dash, color=c, lw=1.2)
        elif m["kind"] == "vline" and m["x"] is not None:
            ax.axvline(m["x"], ls=dash, color=c, lw=1.2, label=m["label"])
        elif m["kind"] == "point" and m["x"] is not None:
            ax.plot([m["x"]], [m["value"]], "*", ms=11, color=c, label=m["label"], ls="none")
    ax.legend(fontsize=7, loc="best", framealpha=0.85)


def figure(td):
    import matplotlib
    matplotlib.use("Agg")
    matplotlib.rcParams["svg.hashsalt"] = "nbrlab"  # fixed ids: a redraw of the same data is the same file
    import matplotlib.pyplot as plt

    t = td["table"]
    rows, cols = figdata.layout(len(td["panels"]))
    fig, axes = plt.subplots(rows, cols, figsize=(6.4 if cols == 1 else 4.3 * cols, 3.6 * rows + 0.4), squeeze=False)
    for k, p in enumerate(td["panels"]):
        draw_panel(axes[k // cols][k % cols], p, p["spec"].get("categories"))
    for k in range(len(td["panels"]), rows * cols):
        axes[k // cols][k % cols].set_visible(False)
    note = figdata.figure_note(td)
    fig.suptitle(t["title"] + ("\n" + textwrap.fill(note, 40 * cols + 20) if note else ""), fontsize=10)
    fig.tight_layout()
    return fig


def main(table_id, argv):
    outdir = argv[0] if argv else os.path.join(HERE, "out", "mpl")
    if table_id not in tables.BY_ID:
        print(f"mpl_render: no table '{table_id}' in plots/tables.py", file=sys.stderr)
        return 2
    try:
        td = figdata.table_data(tables.BY_ID[table_id])
    except (nbrcsv.CsvError, OSError) as e:
        print(f"mpl_render: {e}", file=sys.stderr)
        return 2
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        print("mpl_render: matplotlib is not installed (pip install matplotlib, or apt-get install "
              "python3-matplotlib)", file=sys.stderr)
        return 3
    os.makedirs(outdir, exist_ok=True)
    fig = figure(td)
    # no dates in the files: a redraw of the same data is the same file
    fig.savefig(os.path.join(outdir, f"{table_id}.png"), dpi=100, metadata={"Software": None})
    fig.savefig(os.path.join(outdir, f"{table_id}.svg"), metadata={"Date": None})
    print(f"  {table_id}: {os.path.join(outdir, table_id)}.png/.svg"
          + ("" if td["has_data"] else " (no data yet)"))
    return 0
