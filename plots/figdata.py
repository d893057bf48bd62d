"""figdata.py - the numbers of each figure, from the committed CSVs and plots/tables.py.

table_data(table) -> the panels of one table, each with its series (points x, y and the CSV
row each point came from), the paper's reference marks, and notes on what is missing.  Both
plotting tools and the report use it, so they show the same numbers.  Standard library only.

As a program it writes what gnuplot needs (plots/gp/render.gp draws it):
    python3 plots/figdata.py --gnuplot DIR [ID...]
        DIR/ID/p<k>_<j>.dat   one file per series or reference mark ("x y label" lines)
        DIR/ID/spec.gp        title, layout and, per panel, the set-up and plot commands
Environment: NBR_RESULTS (results directory, default results/ of this repository),
NBR_GPU_MACHINE / NBR_CPU_MACHINE (default h200 / cpu-amd-epyc).
"""
import math
import os
import re
import sys
import textwrap

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
import nbrcsv  # noqa: E402
import tables  # noqa: E402

REFERENCE = os.path.join(ROOT, "reference", "paper.csv")
PALETTE = ["#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#17becf", "#7f7f7f"]
REF_COLOR = "#444444"


def results_dir():
    return os.environ.get("NBR_RESULTS", os.path.join(ROOT, "results"))


def rel(path):
    """path as the reader of a message or report knows it: relative to the repository."""
    try:
        r = os.path.relpath(path, ROOT)
        return path if r.startswith("..") else r
    except ValueError:
        return path


_cache = {}


def load(path):
    """The ok rows of a CSV (cached); None when the file does not exist."""
    if path not in _cache:
        t = nbrcsv.read_optional(path)
        _cache[path] = None if t is None else (t.header, [r for r in t if r.get("status", "ok") == "ok"])
    return _cache[path]


def reference():
    """reference/paper.csv by id."""
    t = nbrcsv.read(REFERENCE, need=["id", "value", "lo", "hi", "x", "sentence"])
    out = {}
    for r in t:
        out[r["id"]] = r
    return out


def fmt(v):
    if v is None:
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


def matches(row, where):
    for k, v in where.items():
        val = row.get(k)
        if val is None:
            return False
        if isinstance(v, (list, tuple)):
            if val not in v:
                return False
        elif v.startswith("!"):
            if val == v[1:]:
                return False
        elif val != v:
            return False
    return True


def steps_of(row):
    try:
        return float(row.get("steps", "0"))
    except ValueError:
        return 0.0


class Source:
    """The rows a series draws from: run rows of its CSVs, or block rows joined to them."""

    def __init__(self, csvs, blocks):
        self.missing, self.rows = [], []
        runs = []
        for p in paths(csvs):
            got = load(p)
            if got is None:
                self.missing.append(p)
            else:
                runs += got[1]
        self.run_rows = runs
        if not blocks:
            self.rows = runs
            return
        bpath = paths([blocks])[0]
        got = load(bpath)
        if got is None:
            self.missing.append(bpath)
            return
        by_tag = {}
        for r in runs:
            by_tag[r["tag"]] = r  # the last ok row of a tag is the current one
        for b in got[1]:
            run = by_tag.get(b.get("tag"))
            if run is not None:
                merged = dict(run)
                merged.update(b)
                self.rows.append(nbrcsv.Row(merged, b.path, b.line))


class Point:
    """One plotted point: y is the median over the runs of that point (repeats, reruns of
    the same length), lo/hi their range, row the run whose value is the median; iterates as
    (x, y, row)."""
    __slots__ = ("x", "y", "row", "rows", "lo", "hi")

    def __init__(self, x, y, row, rows=None, lo=None, hi=None):
        self.x, self.y, self.row = x, y, row
        self.rows = rows or [row]
        self.lo, self.hi = (y if lo is None else lo), (y if hi is None else hi)

    def __iter__(self):
        return iter((self.x, self.y, self.row))

    def __getitem__(self, k):
        return (self.x, self.y, self.row)[k]

    def mapped(self, g):
        """The point with g applied to its value and to its range."""
        a, b = sorted((g(self.lo), g(self.hi)))
        return Point(self.x, g(self.y), self.row, self.rows, a, b)


def best_per_x(rows, xcol, categories, prefer=None):
    """The rows that make each x's point: those of the table's own experiment (tag matching
    prefer) if any, of them the longest runs, of them those of the newest row's git revision;
    all of these are kept (repeats, reruns) for the median."""
    best = {}
    for r in rows:
        if categories is not None:
            x = r.get(xcol)
            if x not in categories:
                continue
            key = categories.index(x) + 1
        else:
            key = r.num(xcol)
            if key is None:
                continue
        rank = (bool(prefer and re.search(prefer, r.get("tag", ""))), steps_of(r))
        if key not in best or rank > best[key][0]:
            best[key] = (rank, [r])
        elif rank == best[key][0]:
            best[key][1].append(r)
    out = []
    for x in sorted(best):
        rows = best[x][1]
        # repeats of one build only: rows of an older git revision measured other code
        rev = rows[-1].get("git_rev")
        out.append((x, [r for r in rows if r.get("git_rev") == rev]))
    return out


def median_point(x, rows, ycol):
    vals = sorted(((y, k) for k, r in enumerate(rows) for y in [r.num(ycol)] if y is not None))
    if not vals:
        return None
    n = len(vals)
    y = vals[n // 2][0] if n % 2 else 0.5 * (vals[n // 2 - 1][0] + vals[n // 2][0])
    row = rows[vals[(n - 1) // 2][1]]
    return Point(x, y, row, [rows[k] for _, k in vals], vals[0][0], vals[-1][0])


def series_points(t, panel, s):
    """(points, note, missing files) of one plain (not ratio) series."""
    src = Source(s.get("csv", t["csv"]), s.get("blocks", t.get("blocks")))
    where = dict(t.get("where", {}))
    where.update(s.get("where", {}))
    cats = panel.get("categories")
    ycol = s.get("y", panel["y"])
    rows = [r for r in src.rows if matches(r, where)]
    pts = [p for p in (median_point(x, rs, ycol) for x, rs in best_per_x(rows, panel["x"], cats, t.get("prefer")))
           if p is not None]
    note = None
    if src.missing and not src.rows:
        note = "no " + ", ".join(rel(p) for p in src.missing)
    elif not pts:
        note = "no rows with " + ", ".join(f"{k}={v}" for k, v in where.items())
    if pts and s.get("norm") is not None:
        key = cats.index(s["norm"]) + 1 if cats else float(s["norm"])
        base = next((p.y for p in pts if p.x == key), None)
        if base in (None, 0):
            pts, note = [], f"no {panel['x']}={s['norm']} point to compare with"
        else:
            pts = [p.mapped(lambda v: v / base) for p in pts]
    if pts and s.get("step_ratio"):
        pts = [p.mapped(lambda v, d=prev.y: v / d) for prev, p in zip(pts, pts[1:])
               if p.x == prev.x + 1 and prev.y != 0]
    if pts and s.get("rel_first"):
        y0 = pts[0].y
        pts = [p.mapped(lambda v: (v - y0) / abs(y0)) for p in pts] if y0 else []
    if pts and s.get("hline"):
        pts = [max(pts, key=lambda p: steps_of(p.row))]
    return pts, note, src.missing


def ref_marks(panel, refs):
    cats = panel.get("categories")
    out = []
    for spec in panel.get("refs", []):
        r = refs.get(spec["id"])
        if r is None:
            raise nbrcsv.CsvError(f"{rel(REFERENCE)}: no reference id '{spec['id']}' (named in plots/tables.py)")
        value, lo, hi = r.num("value"), r.num("lo"), r.num("hi")
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
            text = f"paper{who}: {fmt(lo)}-{fmt(hi)}"
        elif kind == "pm":
            text = f"paper{who}: +-{fmt(value)}"
        else:
            text = f"paper{who}: {fmt(value)}"
        if spec.get("label"):
            text = spec["label"]
        if kind == "point" and lo is not None:
            value = 0.5 * (lo + hi)
        out.append(dict(id=spec["id"], kind=kind, value=value, lo=lo, hi=hi, x=x, label=text))
    return out


def table_data(t, refs=None):
    """Everything the figure and the report show for table t (a tables.TABLES entry)."""
    refs = refs if refs is not None else reference()
    panels, by_label, absent = [], {}, []
    for panel in t["panels"]:
        out = []
        for s in panel["series"]:
            if "ratio" in s:
                out.append(dict(spec=s, label=s["label"], points=[], note=None))
                continue
            pts, note, gone = series_points(t, panel, s)
            d = dict(spec=s, label=s["label"], points=pts, note=note)
            if not s.get("optional"):
                absent += [rel(g) for g in gone if rel(g) not in absent]
            out.append(d)
            by_label.setdefault(s["label"], d)
        panels.append(dict(spec=panel, series=out))
    for p in panels:
        for d in p["series"]:
            if "ratio" not in d["spec"]:
                continue
            num, den = (by_label.get(lbl) for lbl in d["spec"]["ratio"])
            if num is None or den is None:
                raise ValueError(f"tables.py: {t['id']}: ratio of unknown series {d['spec']['ratio']}")
            dy = {q.x: q.y for q in den["points"]}
            d["points"] = [q.mapped(lambda v, b=dy[q.x]: v / b) for q in num["points"] if dy.get(q.x)]
            if not d["points"]:
                d["note"] = f"needs both '{num['label']}' and '{den['label']}' at the same {p['spec']['x']}"
    for p in panels:
        p["refs"] = ref_marks(p["spec"], refs)
        p["series"] = [d for d in p["series"] if not d["spec"].get("hidden")]
        p["has_data"] = any(d["points"] for d in p["series"])
    # what is missing, once per file: "not yet in results/: a.csv, b.csv", then other gaps
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
    # the run rows the report lists: every row of the table's CSVs that some series uses
    src = Source(t["csv"], None)
    listed = [r for r in src.run_rows if matches(r, {k: v for k, v in t.get("where", {}).items() if k in r})]
    return dict(table=t, panels=panels, notes=notes, rows=listed, has_data=any(p["has_data"] for p in panels),
                missing=[rel(p) for p in src.missing])


def run_hint(t):
    where = "the GPU machine" if t["machine"] == "gpu" else "a CPU machine"
    return f"run {t['driver']} on {where}"


def not_run_text(t):
    return f"no data yet: {run_hint(t)}"


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
             "fig_note = \"" + "\\n".join(textwrap.wrap(('; '.join(td['notes']) if td['has_data'] else not_run_text(t))
                                                     .replace('"', "'"), 40 * cols + 20)) + "\"",
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
            setup.append("set logscale x")
        elif xs and not cats and max(xs) >= 10000:
            setup.append("set format x '%.0s%c'")  # 10k, 20k: long numbers collide
        if spec.get("logy") and xs:
            setup.append("set logscale y")
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
                        terms.append(f"{gp_str(f)} using 1:2 with points pt 3 ps 2 lc rgb {gp_str(REF_COLOR)} "
                                     f"title {gp_str(m['label'])}")
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
    except nbrcsv.CsvError as e:
        print(f"figdata.py: {e}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
