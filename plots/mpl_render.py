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
LEGEND_PT = 7


def draw_panel(ax, p, cats):
    spec = p["spec"]
    # a panel's width holds about 60 characters of its title: longer ones wrap (table3's (d) ran
    # off the figure's edge)
    ax.set_title(textwrap.fill(spec.get("title", ""), 60), fontsize=9)
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
        # (the leading digit of the value: "0.0002"'s is 2, not 0)
        ax.yaxis.set_minor_formatter(ticker.FuncFormatter(
            lambda v, _: f"{v:g}" if f"{v:.0e}"[0] in "25" else ""))
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
    if spec.get("logx") and not cats:
        # the data's span (and a margin): matplotlib's log autoscale may reach decades below it
        ax.set_xlim(lo / 1.3, hi * 1.3)
    shown = set()   # paper points of one legend entry (figdata.ref_marks: "legend")
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
            # one legend entry per source ("paper SP"), each point's value written beside it
            ax.plot([m["x"]], [m["value"]], "*", ms=11, color=c, ls="none",
                    label=m["legend"] if m["legend"] not in shown else None)
            shown.add(m["legend"])
            if m.get("value_text"):
                ax.annotate(m["value_text"], (m["x"], m["value"]), xytext=(6, -3), textcoords="offset points",
                            fontsize=7, color=c)
    # below the axes, as gnuplot's "key below": a legend inside would hide points (place_legends
    # moves it under the x axis' labels)
    ax.legend(fontsize=LEGEND_PT, loc="upper center", bbox_to_anchor=(0.5, 0), ncol=legend_cols(p), framealpha=0.85)


def legend_entries(p):
    """The labels of the panel's legend."""
    if not p["has_data"]:
        return []
    return [s["label"] for s in p["series"] if s["points"]] + list(dict.fromkeys(m["legend"] for m in p["refs"]))


def legend_cols(p):
    """Two columns where the labels are short enough to fit a panel's width side by side."""
    return 2 if max([len(x) for x in legend_entries(p)] + [0]) <= 32 else 1


def place_legends(fig, axes):
    """Each legend just under its panel's tick labels and x label: their depth is measured (in
    points, which do not change with the panel's size), so tight_layout then makes room."""
    fig.canvas.draw()
    r = fig.canvas.get_renderer()
    for ax in axes:
        leg = ax.get_legend()
        if leg is None:
            continue
        depth = (ax.get_window_extent(r).y0 - ax.xaxis.get_tightbbox(r).y0) * 72 / fig.dpi
        handles, labels = ax.get_legend_handles_labels()
        ax.legend(handles, labels, fontsize=LEGEND_PT, loc="upper center", bbox_to_anchor=(0.5, 0),
                  ncol=leg._ncols, framealpha=0.85, borderaxespad=(depth + 3) / LEGEND_PT)


def legend_rows(p):
    """Lines the panel's legend takes."""
    c = legend_cols(p)
    return (len(legend_entries(p)) + c - 1) // c


def figure(td):
    import matplotlib
    matplotlib.use("Agg")
    matplotlib.rcParams["svg.hashsalt"] = "nbrlab"  # fixed ids: a redraw of the same data is the same file
    import matplotlib.pyplot as plt

    t = td["table"]
    rows, cols = figdata.layout(len(td["panels"]))
    # each row of panels grows by its tallest legend (below the axes)
    extra = sum(max(legend_rows(p) for p in td["panels"][r * cols:(r + 1) * cols]) * 0.16 + 0.3
                for r in range(rows))
    fig, axes = plt.subplots(rows, cols, figsize=(6.4 if cols == 1 else 4.3 * cols, 3.6 * rows + 0.4 + extra),
                             squeeze=False)
    for k, p in enumerate(td["panels"]):
        draw_panel(axes[k // cols][k % cols], p, p["spec"].get("categories"))
    for k in range(len(td["panels"]), rows * cols):
        axes[k // cols][k % cols].set_visible(False)
    note = figdata.figure_note(td)
    fig.suptitle(t["title"] + ("\n" + textwrap.fill(note, 40 * cols + 20) if note else ""), fontsize=10)
    place_legends(fig, [ax for row in axes for ax in row if ax.get_visible()])
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
