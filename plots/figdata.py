"""figdata.py - the numbers of each figure, from the committed CSVs and plots/tables.py, with
pandas.

table_data(table) -> the panels of one table, each with its series (points x, y, their range
and revision, and the CSV rows each point came from), the paper's reference marks, and notes
on what is missing.  Both plotting tools and the report use it, so they show the same numbers.

As a program it writes what gnuplot needs (plots/gp/render.gp draws it):
    python3 plots/figdata.py --gnuplot DIR [ID...]
        DIR/ID/p<k>_<j>.dat   one file per series or reference mark ("x y label" lines)
        DIR/ID/spec.gp        title, layout and, per panel, the set-up and plot commands
Environment: NBR_RESULTS (results directory, default results/ of this repository),
NBR_GPU_MACHINE / NBR_CPU_MACHINE (default h200 / cpu-amd-epyc), BUILD (where the programs
that state the knob defaults are: build/).
"""
import os
import re
import subprocess
import sys
import textwrap

import pandas as pd

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
import nbrcsv  # noqa: E402
import tables  # noqa: E402
from nbrcsv import num, text  # noqa: E402

REFERENCE = os.path.join(ROOT, "reference", "paper.csv")
PALETTE = ["#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#17becf", "#7f7f7f"]
REF_COLOR = "#444444"


def results_dir():
    return os.environ.get("NBR_RESULTS", os.path.join(ROOT, "results"))


def machines_with(name):
    """The results/<machine> folders that hold the file name, sorted."""
    d = results_dir()
    return sorted(m for m in os.listdir(d) if os.path.isfile(os.path.join(d, m, name))) if os.path.isdir(d) else []


def rel(path):
    """path as the reader of a message or report knows it: relative to the repository."""
    try:
        r = os.path.relpath(path, ROOT)
        return path if r.startswith("..") else r
    except ValueError:
        return path


_cache = {}


def load(path):
    """The ok rows of a CSV (cached; a file without a status column: all rows); None when the
    file does not exist."""
    if path not in _cache:
        df = nbrcsv.read_optional(path)
        if df is not None and "status" in df.columns:
            df = df[df["status"] == "ok"]
        _cache[path] = df
    return _cache[path]


def refnum(r, col):
    """A number of a reference/paper.csv row (dict), None when empty."""
    v = r.get(col, "")
    return float(v) if v not in nbrcsv.MISSING else None


def reference():
    """reference/paper.csv by id: dicts of text."""
    df = nbrcsv.read(REFERENCE, need=["id", "value", "lo", "hi", "x", "sentence"])
    for col in ("value", "lo", "hi"):
        num(df, col)   # a bad number stops here, with its line
    return {r["id"]: r for r in df.to_dict("records")}


def fmt(v):
    if v is None or v != v:
        return "-"
    if v == 0:
        return "0"
    a = abs(v)
    if v == int(v) and a < 1e7:
        return str(int(v))
    if a >= 1e5 or a < 1e-3:
        return f"{v:.3g}"
    if a >= 100:
        return f"{v:.0f}"
    return f"{v:.3g}"


def paths(spec_paths):
    d = results_dir()
    return [os.path.join(d, p.format(gpu=tables.GPU, cpu=tables.CPU)) for p in spec_paths]


def revs_text(revs):
    return ", ".join(sorted(revs)) if revs else "-"


# ------------------------------------------------------------------------ report helpers
# (shared by report.py and the sections of coulomb.py, dd.py, rumd.py)

def md_table(head, rows):
    """A markdown table: the header, then one line per row (cells as str)."""
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    lines += ["| " + " | ".join(str(c) for c in r) + " |" for r in rows]
    return "\n".join(lines)


def md_sections(path, optional=False):
    """A hand-written text file (reference/*_text.md) split at '## id' headings: {id: text}.
    optional: a file that does not exist is {} (otherwise it is an error)."""
    out, key = {}, None
    if optional and not os.path.exists(path):
        return out
    with open(path) as f:
        for line in f:
            m = re.match(r"^## (\S+)\s*$", line)
            if m:
                key = m.group(1)
                out[key] = []
            elif key:
                out[key].append(line)
    return {k: "".join(v).strip() for k, v in out.items()}


def section_main(name, draw, section, argv):
    """The command line of a paper's figures-and-section script (coulomb.py, dd.py):
    NAME --figures OUTDIR (draw(OUTDIR)) | --section OUT.md (section(OUT.md) on stdout); exits
    2 with the file and line on a damaged CSV or an unreadable file, 2 with the usage otherwise."""
    if len(argv) == 2 and argv[0] in ("--figures", "--section"):
        try:
            if argv[0] == "--figures":
                draw(argv[1])
            else:
                sys.stdout.write(section(argv[1]))
        except (nbrcsv.CsvError, OSError) as e:
            print(f"{name}: {e}", file=sys.stderr)
            sys.exit(2)
        sys.exit(0)
    print(f"usage: {name} --figures OUTDIR | --section OUT.md", file=sys.stderr)
    sys.exit(2)


def save_figure(fig, outdir, name):
    """A matplotlib figure laid out tight, written as OUTDIR/NAME.png and .svg (110 dpi; the SVG without
    a date and with fixed ids), closed."""
    import matplotlib
    import matplotlib.pyplot as plt
    matplotlib.rcParams["svg.hashsalt"] = "nbrlab"  # fixed ids and no date: a redraw of the same data is the same file
    fig.tight_layout()
    for ext in ("png", "svg"):
        fig.savefig(os.path.join(outdir, f"{name}.{ext}"), dpi=110, metadata={"Date": None} if ext == "svg" else None)
    plt.close(fig)


def fig_links(outmd, figs):
    """Markdown lines linking plots/out/mpl/<fig>.png from OUT.md's folder (NBR_PLOTS_OUT), or
    saying that the figure is not drawn yet."""
    base = os.path.dirname(os.path.abspath(outmd))
    plots = os.environ.get("NBR_PLOTS_OUT", os.path.join(ROOT, "plots", "out"))
    out = []
    for f in figs:
        p = os.path.join(plots, "mpl", f + ".png")
        out += [f"![{f}]({os.path.relpath(p, base)})" if os.path.exists(p) else f"*({f}: no figure drawn yet: make plots)*", ""]
    return out


# ------------------------------------------------------------------------ knob defaults

_defaults = {}


def program_defaults():
    """(knob column -> value, where from) as the GPU program's --print-config states them;
    (None, None) when no GPU program is built here."""
    if "prog" not in _defaults:
        _defaults["prog"] = (None, None)
        build = os.environ.get("BUILD", "build")
        for p in tables.DEFAULTS_FROM:
            prog = os.path.join(build if os.path.isabs(build) else os.path.join(ROOT, build), p)
            if not os.access(prog, os.X_OK):
                continue
            try:
                out = subprocess.run([prog, "--print-config"], capture_output=True, text=True, timeout=30)
            except (OSError, subprocess.TimeoutExpired):
                continue
            if out.returncode != 0:
                continue
            conf = {}
            for line in out.stdout.splitlines():
                k, sep, v = line.partition("=")
                if sep:
                    conf[tables.FLAG_COLUMN.get(k.strip(), k.strip().replace("-", "_"))] = v.strip()
            got = {k: conf[k] for k in tables.KNOB_COLUMNS if k in conf}
            if got:
                _defaults["prog"] = (got, f"{rel(prog)} --print-config")
                break
    return _defaults["prog"]


def resolve(where, df):
    """where with DEFAULT replaced by the paper's setting: the program's, else the value most
    of the rows df have (they carry every knob column). Returns (where, note or None)."""
    if tables.DEFAULT not in where.values():
        return where, None
    prog, src = program_defaults()
    out, from_rows = {}, []
    for k, v in where.items():
        if v != tables.DEFAULT:
            out[k] = v
        elif prog and k in prog:
            out[k] = prog[k]
        else:
            vals = text(df, k)
            out[k] = vals.mode().iloc[0] if len(vals) and vals.ne("").any() else ""
            from_rows.append(k)
    note = (f"paper settings of {', '.join(from_rows)}: the value most rows share (no GPU program "
            "built to ask)" if from_rows else None)
    return out, note


def select(df, where):
    """The rows of df where every column has the wanted value (a list: one of them; "!v": not
    v). A column the rows lack matches nothing."""
    mask = pd.Series(True, index=df.index)
    for k, v in where.items():
        col = text(df, k)
        if k not in df.columns:
            mask &= False
        elif isinstance(v, (list, tuple)):
            mask &= col.isin(v)
        elif v.startswith("!"):
            mask &= col != v[1:]
        else:
            mask &= col == v
    return df[mask]


# ------------------------------------------------------------------------ rows of a series

def run_rows(csvs):
    """(the ok rows of the CSVs, in file order, with _order; the files that do not exist)."""
    frames, missing = [], []
    for p in paths(csvs):
        df = load(p)
        if df is None:
            missing.append(p)
        else:
            frames.append(df)
    df = pd.concat(frames, ignore_index=True) if frames else pd.DataFrame(columns=["_file", "_line"])
    df["_order"] = range(len(df))
    return df, missing


def last_runs(b):
    """Per (tag, git_rev) only the blocks of the last run: a rerun (REDO=1) appends its blocks
    again, starting from block 1."""
    if b.empty:
        return b
    key = text(b, "tag") + "\x00" + text(b, "git_rev")
    blk = num(b, "block") if "block" in b.columns else num(b, "step")
    start = (blk <= blk.groupby(key).shift()).astype(int)
    run = start.groupby(key).cumsum()
    return b[run == run.groupby(key).transform("max")]


def block_rows(runs, bpath):
    """Block rows (--blocks-csv) joined to their run's row by tag and revision: the run row
    gives the columns the blocks lack (knobs, steps, delta...)."""
    b = load(bpath)
    if b is None:
        return None
    b = last_runs(b.copy())
    keys = [k for k in ("tag", "git_rev") if k in b.columns and k in runs.columns]
    r = runs.drop_duplicates(keys, keep="last") if keys else runs
    r = r[[c for c in r.columns if c not in b.columns or c in keys]]
    m = b.merge(r, on=keys, how="inner") if keys else b.iloc[0:0]
    ts, sb = num(m, "timed_steps"), num(m, "steps_in_block")
    m["timed"] = (ts > 0).map({True: "1", False: "0"})
    m["full"] = ((ts == sb) & (ts > 0)).map({True: "1", False: "0"})
    m["_order"] = range(len(m))
    return m


class Point:
    """One plotted point: y is the median over the runs of that point (repeats, reruns of the
    same length and revision), lo/hi their range, row the run whose value is the median (a
    dict), rows all of them (a DataFrame), revs the revisions behind it; iterates as (x, y, row)."""
    __slots__ = ("x", "y", "row", "rows", "lo", "hi", "revs")

    def __init__(self, x, y, row, rows=None, lo=None, hi=None, revs=None):
        self.x, self.y, self.row = x, y, row
        self.rows = rows
        self.lo, self.hi = (y if lo is None else lo), (y if hi is None else hi)
        self.revs = set(revs or [])

    def __iter__(self):
        return iter((self.x, self.y, self.row))

    def __getitem__(self, k):
        return (self.x, self.y, self.row)[k]

    def mapped(self, g, other=None):
        """The point with g applied to its value and range (other: a point it was combined with,
        whose revisions it now also rests on)."""
        a, b = sorted((g(self.lo), g(self.hi)))
        return Point(self.x, g(self.y), self.row, self.rows, a, b, self.revs | (other.revs if other else set()))


def points(df, xcol, ycol, cats, prefer):
    """One Point per x: the rows of the table's own experiment (tag matching prefer) if any, of
    them the longest runs, of them those of the newest row's git revision (repeats of one
    build: rows of older code are not mixed in); the median of their y."""
    if df.empty:
        return []
    d = df.copy()
    if cats is not None:
        x = text(d, xcol)
        d = d[x.isin(cats)]
        d["_x"] = [float(cats.index(v) + 1) for v in text(d, xcol)]
    else:
        d["_x"] = num(d, xcol)
        d = d[d["_x"].notna()]
    d["_y"] = num(d, ycol)
    d["_pref"] = text(d, "tag").map(lambda t: bool(prefer and re.search(prefer, t)))
    d["_steps"] = num(d, "steps").fillna(0)
    d["_rev"] = text(d, "git_rev")
    d["_ts"] = text(d, "timestamp")
    out = []
    for x, g in d.groupby("_x", sort=True):
        g = g[g["_pref"] == g["_pref"].max()]
        g = g[g["_steps"] == g["_steps"].max()]
        newest = g.sort_values(["_ts", "_order"]).iloc[-1]
        g = g[(g["_rev"] == newest["_rev"]) & g["_y"].notna()]
        if g.empty:
            continue
        g = g.sort_values(["_y", "_order"], kind="stable")
        ys = g["_y"].tolist()
        n = len(ys)
        y = ys[n // 2] if n % 2 else 0.5 * (ys[n // 2 - 1] + ys[n // 2])
        row = g.iloc[(n - 1) // 2].to_dict()
        out.append(Point(float(x), y, row, g, ys[0], ys[-1], {newest["_rev"] or "-"}))
    return out


def series_points(t, panel, s, td_notes):
    """(points, note, missing files) of one plain (not ratio) series."""
    runs, missing = run_rows(s.get("csv", t["csv"]))
    blocks = s.get("blocks", t.get("blocks"))
    rows = runs
    if blocks:
        bpath = paths([blocks])[0]
        rows = block_rows(runs, bpath)
        if rows is None:
            missing.append(bpath)
            rows = runs.iloc[0:0]
    where = dict(t.get("where", {}))
    where.update(s.get("where", {}))
    where, dnote = resolve(where, select(rows, {k: v for k, v in where.items() if k not in tables.KNOB_COLUMNS}))
    if dnote and dnote not in td_notes:
        td_notes.append(dnote)
    cats = panel.get("categories")
    ycol = s.get("y", panel["y"])
    pts = points(select(rows, where), panel["x"], ycol, cats, t.get("prefer"))
    note = None
    if missing and rows.empty:
        note = "no " + ", ".join(rel(p) for p in missing)
    elif not pts:
        note = "no rows with " + ", ".join(f"{k}={v}" for k, v in where.items())
    if pts and s.get("norm") is not None:
        key = cats.index(s["norm"]) + 1 if cats else float(s["norm"])
        base = next((p for p in pts if p.x == key), None)
        if base is None or base.y == 0:
            pts, note = [], f"no {panel['x']}={s['norm']} point to compare with"
        else:
            pts = [p.mapped(lambda v, b=base.y: v / b, base) for p in pts]
    if pts and s.get("step_ratio"):
        pts = [p.mapped(lambda v, d=prev.y: v / d, prev) for prev, p in zip(pts, pts[1:])
               if p.x == prev.x + 1 and prev.y != 0]
    if pts and s.get("rel_first"):
        y0 = pts[0].y
        pts = [p.mapped(lambda v: (v - y0) / abs(y0), pts[0]) for p in pts] if y0 else []
    if pts and s.get("hline"):
        pts = [max(pts, key=lambda p: p.row.get("_steps", 0))]
    return pts, note, missing


def ref_marks(panel, refs):
    cats = panel.get("categories")
    out = []
    for spec in panel.get("refs", []):
        r = refs.get(spec["id"])
        if r is None:
            raise nbrcsv.CsvError(f"{rel(REFERENCE)}: no reference id '{spec['id']}' (named in plots/tables.py)")
        value, lo, hi = refnum(r, "value"), refnum(r, "lo"), refnum(r, "hi")
        x = spec.get("x", r.get("x") or None)
        if x is not None:
            if cats:
                x = cats.index(x) + 1 if x in cats else None
            else:
                x = float(x)
        kind = spec.get("kind") or ("band" if lo is not None else "point" if x is not None else "hline")
        if kind == "vline" and x is None:
            x = value
        who = f" {r['system'].upper()}" if r.get("system") else ""
        if lo is not None:
            label = f"paper{who}: {fmt(lo)}-{fmt(hi)}"
        elif kind == "pm":
            label = f"paper{who}: +-{fmt(value)}"
        else:
            label = f"paper{who}: {fmt(value)}"
        # a paper point's legend entry is its source ("paper SP"), once per panel; its value is
        # written beside it (three points of one paper: one entry, not three)
        legend, value_text = f"paper{who}", (f"{fmt(lo)}-{fmt(hi)}" if lo is not None else fmt(value))
        if spec.get("label"):
            label = legend = spec["label"]
        if kind == "point" and lo is not None:
            value = 0.5 * (lo + hi)
        out.append(dict(id=spec["id"], kind=kind, value=value, lo=lo, hi=hi, x=x, label=label,
                        legend=legend if kind == "point" else label, value_text=value_text if kind == "point" else None))
    return out


def table_data(t, refs=None):
    """Everything the figure and the report show for table t (a tables.TABLES entry)."""
    refs = refs if refs is not None else reference()
    panels, by_label, absent, dnotes = [], {}, [], []
    sides = {}   # machine ({cpu}, {gpu}) -> whether a series it must give has points
    for panel in t["panels"]:
        out = []
        for s in panel["series"]:
            if "ratio" in s:
                out.append(dict(spec=s, label=s["label"], points=[], note=None))
                continue
            pts, note, gone = series_points(t, panel, s, dnotes)
            d = dict(spec=s, label=s["label"], points=pts, note=note)
            if not s.get("optional"):
                absent += [rel(g) for g in gone if rel(g) not in absent]
                for side in ("cpu", "gpu"):
                    if any("{" + side + "}" in c for c in s.get("csv", t["csv"])):
                        sides[side] = sides.get(side, False) or bool(pts)
            out.append(d)
            by_label.setdefault(s["label"], d)
        panels.append(dict(spec=panel, series=out))
    for p in panels:
        for d in p["series"]:
            if "ratio" not in d["spec"]:
                continue
            num_, den = (by_label.get(lbl) for lbl in d["spec"]["ratio"])
            if num_ is None or den is None:
                raise ValueError(f"tables.py: {t['id']}: ratio of unknown series {d['spec']['ratio']}")
            dq = {q.x: q for q in den["points"]}
            d["points"] = [q.mapped(lambda v, b=dq[q.x].y: v / b, dq[q.x]) for q in num_["points"]
                           if q.x in dq and dq[q.x].y]
            if not d["points"]:
                d["note"] = f"needs both '{num_['label']}' and '{den['label']}' at the same {p['spec']['x']}"
    for p in panels:
        p["refs"] = ref_marks(p["spec"], refs)
        p["series"] = [d for d in p["series"] if not d["spec"].get("hidden")]
        p["has_data"] = any(d["points"] for d in p["series"])
    # what is missing, once per file: "not in the results yet: a.csv, b.csv", then other gaps
    missing, notes = [], []
    for p in panels:
        for d in p["series"]:
            if d["spec"].get("optional") or not d["note"]:
                continue
            if d["note"].startswith("no ") and d["note"].endswith(".csv") or ".csv, " in d["note"]:
                missing += [m for m in d["note"][3:].split(", ") if m not in missing]
            elif "ratio" in d["spec"] and any(by_label[lbl]["note"] for lbl in d["spec"]["ratio"]):
                continue  # its inputs are missing: said already
            elif f"{d['label']}: {d['note']}" not in notes:
                notes.append(f"{d['label']}: {d['note']}")
    missing += [m for m in absent if m not in missing]  # files missing beside others that exist
    if missing:
        notes.insert(0, "not in the results yet: " + ", ".join(missing))
    notes += dnotes
    # the run rows the report lists: every row of the table's CSVs that the table's filter keeps
    runs, gone = run_rows(t["csv"])
    where, _ = resolve(t.get("where", {}), runs)
    listed = select(runs, {k: v for k, v in where.items() if k in runs.columns})
    revs = sorted({r for p in panels for d in p["series"] for q in d["points"] for r in q.revs})
    has_data = any(p["has_data"] for p in panels)
    # complete: every machine the table needs has given rows (Table 2 needs both); has_data
    # alone is a figure with something to draw
    sides_missing = [side for side, ok in sides.items() if not ok]
    return dict(table=t, panels=panels, notes=notes, rows=listed, has_data=has_data,
                complete=has_data and not sides_missing, sides_missing=sides_missing,
                missing=[rel(p) for p in gone], revs=revs)


def run_hint(t):
    where = "the GPU machine" if t["machine"] == "gpu" else "a CPU machine"
    return f"run {t['driver']} on {where}"


def not_run_text(t):
    return f"no data yet: {run_hint(t)}"


def figure_note(td):
    """The line under a figure's title: gaps, or that nothing was run; and the revisions."""
    if not td["has_data"]:
        return not_run_text(td["table"])
    notes = list(td["notes"])
    notes.append(("revision " if len(td["revs"]) == 1 else "revisions ") + ", ".join(td["revs"]))
    return "; ".join(notes)


# ---------------------------------------------------------------------------- gnuplot output

def gp_str(s):
    """A gnuplot single-quoted string (inside a double-quoted eval string)."""
    return "'" + s.replace("'", "") + "'"


def layout(n):
    cols = n if n <= 3 else 3
    return (n + cols - 1) // cols, cols


def write_gnuplot(td, outdir):
    t = td["table"]
    d = os.path.join(outdir, t["id"])
    os.makedirs(d, exist_ok=True)
    for f in os.listdir(d):
        if f.endswith(".dat"):
            os.remove(os.path.join(d, f))
    rows, cols = layout(len(td["panels"]))
    lines = [f"# {t['id']}: written by plots/figdata.py from plots/tables.py and the CSVs; do not edit",
             f"fig_title = {gp_str(t['title'])}",
             "fig_note = \"" + "\\n".join(textwrap.wrap(figure_note(td).replace('"', "'"), 40 * cols + 20)) + "\"",
             f"npanels = {len(td['panels'])}", f"rows = {rows}", f"cols = {cols}",
             f"array setup[{len(td['panels'])}]", f"array plotcmd[{len(td['panels'])}]"]
    for k, p in enumerate(td["panels"], start=1):
        spec = p["spec"]
        cats = spec.get("categories")
        setup = [f"set title {gp_str(spec.get('title', ''))}", f"set xlabel {gp_str(spec['xlabel'])}",
                 f"set ylabel {gp_str(spec['ylabel'])}"]
        xs = [pt[0] for s in p["series"] for pt in s["points"]]
        ys = [v for s in p["series"] for q in s["points"] for v in (q.lo, q.hi)]
        if spec.get("logx") and xs:
            setup.append("set logscale x; set format x '%g'")
        elif xs and not cats and max(xs) >= 10000:
            setup.append("set format x '%.0s%c'")  # 10k, 20k: long numbers collide
        if spec.get("logy") and xs:
            setup.append("set logscale y; set format y '%g'")  # 0.01, not 0.010000
        elif ys and min(ys) >= 0 and all(m["kind"] == "vline" or m["kind"] != "pm" and
                                         (m["lo"] if m["lo"] is not None else m["value"]) >= 0 for m in p["refs"]):
            # times, ratios: from 0, the headroom (render.gp's set offsets) at the top only
            setup.append("set yrange [0:*]; set offsets 0, 0, graph 0.05, 0")
        if cats:
            setup.append("set xtics (" + ", ".join(f"{gp_str(c)} {i}" for i, c in enumerate(cats, 1)) + ")"
                         + (" rotate by -20" if len(cats) > 3 else ""))
            setup.append(f"set xrange [0.5:{len(cats) + 0.5}]")
        terms = []
        if not xs:
            setup.append("set label 1 'no data yet' at graph 0.5, 0.5 center")
            terms.append("NaN notitle")
            setup.append("set xrange [0:1]; set yrange [0:1]" if not cats else "set yrange [0:1]")
        else:
            lo, hi = (min(xs), max(xs)) if not cats else (0.5, len(cats) + 0.5)
            for j, s in enumerate(p["series"], start=1):
                if not s["points"]:
                    continue
                f = os.path.join(d, f"p{k}_s{j}.dat")
                with open(f, "w") as out:
                    out.write(f"# {s['label']}: x y (median of the runs) lo hi (their range)\n")
                    if s["spec"].get("hline"):
                        out.write(f"{lo} {s['points'][0].y}\n{hi} {s['points'][0].y}\n")
                    else:
                        for q in s["points"]:
                            out.write(f"{q.x} {q.y} {q.lo} {q.hi}\n")
                color = PALETTE[(j - 1) % len(PALETTE)]
                if s["spec"].get("hline"):
                    style, cols = "lines dt 3 lw 2", "1:2"
                elif any(q.hi > q.lo for q in s["points"]):
                    style, cols = "yerrorlines pt 7 ps 0.8 lw 1.5", "1:2:3:4"
                else:
                    style, cols = "linespoints pt 7 ps 0.8 lw 1.5", "1:2"
                terms.append(f"{gp_str(f)} using {cols} with {style} lc rgb {gp_str(color)} title {gp_str(s['label'])}")
            ymin, ymax = min(ys), max(ys)
            shown = set()
            for j, m in enumerate(p["refs"], start=1):
                f = os.path.join(d, f"p{k}_r{j}.dat")
                dt = 1 + j % 4 + 1
                with open(f, "w") as out:
                    if m["kind"] == "band":
                        out.write(f"{lo} {m['lo']} {m['hi']}\n{hi} {m['lo']} {m['hi']}\n")
                        terms.append(f"{gp_str(f)} using 1:2:3 with filledcurves fs transparent solid 0.15 "
                                     f"lc rgb {gp_str(REF_COLOR)} title {gp_str(m['label'])}")
                        continue
                    if m["kind"] == "hline":
                        out.write(f"{lo} {m['value']}\n{hi} {m['value']}\n")
                    elif m["kind"] == "pm":
                        out.write(f"{lo} {m['value']}\n{hi} {m['value']}\n\n{lo} {-m['value']}\n{hi} {-m['value']}\n")
                    elif m["kind"] == "vline":
                        if m["x"] is None:
                            continue
                        a, b = ymin, ymax  # the data's span: the line must not stretch the axis
                        out.write(f"{m['x']} {a}\n{m['x']} {b}\n")
                    elif m["kind"] == "point":
                        if m["x"] is None:
                            continue
                        out.write(f"{m['x']} {m['value']}\n")
                        # one key entry per source, each point's value beside it (as matplotlib)
                        title = f"title {gp_str(m['legend'])}" if m["legend"] not in shown else "notitle"
                        shown.add(m["legend"])
                        terms.append(f"{gp_str(f)} using 1:2 with points pt 3 ps 2 lc rgb {gp_str(REF_COLOR)} {title}")
                        if m.get("value_text"):
                            setup.append(f"set label {10 + j} {gp_str(m['value_text'])} at {m['x']}, {m['value']} "
                                         f"offset 1, -0.3 font ',8' tc rgb {gp_str(REF_COLOR)}")
                        continue
                terms.append(f"{gp_str(f)} using 1:2 with lines dt {dt} lw 1.5 lc rgb {gp_str(REF_COLOR)} "
                             f"title {gp_str(m['label'])}")
        lines.append(f"setup[{k}] = \"{'; '.join(setup)}\"")
        lines.append(f"plotcmd[{k}] = \"plot " + ", ".join(terms) + "\"")
    with open(os.path.join(d, "spec.gp"), "w") as out:
        out.write("\n".join(lines) + "\n")


def main(argv):
    if len(argv) < 2 or argv[0] != "--gnuplot":
        print("usage: figdata.py --gnuplot DIR [ID...]", file=sys.stderr)
        return 2
    outdir, ids = argv[1], argv[2:] or [t["id"] for t in tables.TABLES]
    try:
        refs = reference()
        for i in ids:
            if i not in tables.BY_ID:
                print(f"figdata.py: no table '{i}' in plots/tables.py", file=sys.stderr)
                return 2
            td = table_data(tables.BY_ID[i], refs)
            write_gnuplot(td, outdir)
            print(f"  {i}: {'data' if td['has_data'] else 'no data yet'}"
                  + (f" ({'; '.join(td['notes'])})" if td["notes"] and td["has_data"] else ""))
    except (nbrcsv.CsvError, OSError) as e:
        print(f"figdata.py: {e}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
