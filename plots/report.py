"""report.py OUT.md - the reproduction report: every table of plots/tables.py, measured
against the paper, with the figure, the numbers, the paper's sentences and the hand-written
explanations of reference/report_text.md.  Generated only from the CSVs under results/,
reference/paper.csv and that text: every number about our runs comes from a CSV row, and
the report names the git revision of each.  Reads the CSVs with pandas (plots/figdata.py);
run by runs/report.sh (make report) in the project's virtual environment (plots/venv.sh).
"""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import cluster  # noqa: E402
import launch  # noqa: E402
import coulomb  # noqa: E402
import dd  # noqa: E402
import rumd  # noqa: E402
import salt  # noqa: E402
import figdata  # noqa: E402
import nbrcsv  # noqa: E402
import tables  # noqa: E402
from figdata import fmt, md_table, refnum, rel, revs_text  # noqa: E402
from nbrcsv import num, text  # noqa: E402

TEXT = os.path.join(figdata.ROOT, "reference", "report_text.md")


def cell(row, col):
    v = row.get(col)
    v = "-" if v is None or v != v or v == "" else str(v)   # a column an older file lacks: "-"
    try:
        # energies keep every digit the program wrote: their differences are the result
        return fmt(float(v)) if v not in ("-", "") and col not in ("ne", "n", "steps", "equil", "tag",
                                                                 "e_start", "e_end") else v
    except ValueError:
        return v


def xtext(panel, x):
    cats = panel["spec"].get("categories")
    return cats[int(x) - 1] if cats else fmt(x)


def thin(xs, most=12):
    """At most `most` x values, evenly spread, first and last kept."""
    if len(xs) <= most:
        return xs
    step = (len(xs) - 1) / (most - 1)
    return sorted({xs[round(k * step)] for k in range(most)})


def pivot(td, k):
    p = td["panels"][k]
    ser = [s for s in p["series"] if s["points"]]
    if not ser:
        return ""
    xs = thin(sorted({pt[0] for s in ser for pt in s["points"]}))
    rows = []
    for x in xs:
        at = [q for s in ser for q in s["points"] if q.x == x]
        rows.append([xtext(p, x)] + [next((fmt(q.y) for q in s["points"] if q.x == x), "-") for s in ser]
                    + [revs_text(set().union(*(q.revs for q in at)))])
    head = [p["spec"]["xlabel"]] + [s["label"] for s in ser] + ["revision"]
    return f"*{p['spec'].get('title', '')}* ({p['spec']['ylabel']}):\n\n" + md_table(head, rows)


def listing(td):
    """The run rows behind the figure: per point of a plain series, the row it came from
    (for per-block tables, the last ok row of each run)."""
    t = td["table"]
    seen, rows = set(), []
    if t.get("blocks"):
        keys = [k for k in ("tag", "git_rev") if k in td["rows"].columns]
        rows = td["rows"].drop_duplicates(keys, keep="last").to_dict("records") if keys else []
    else:
        for p in td["panels"]:
            for s in p["series"]:
                if "ratio" in s["spec"]:
                    continue
                for x, y, r in s["points"]:
                    k = (r.get("_file"), r.get("_line"))
                    if k not in seen:
                        seen.add(k)
                        rows.append(r)
    cols = t.get("columns", []) + ["git_rev"]
    if not rows:
        return ""
    return md_table(cols, [[cell(r, c) for c in cols] for r in rows])


def hyperfine(td):
    """Whole-program times (hyperfine) beside the in-program timers of the same point."""
    spec = td["table"].get("hyperfine")
    if not spec:
        return ""
    path = figdata.paths([spec])[0]
    h = nbrcsv.read_optional(path, need=["tag", "runs", "mean_s", "stddev_s", "us_per_atom_step_whole"],
                             numeric=["mean_s", "stddev_s", "us_per_atom_step_whole"])
    if h is None or h.empty:
        return ""
    h = h.assign(git_rev=text(h, "git_rev").replace("", "-"), mean=num(h, "mean_s"), sd=num(h, "stddev_s"),
                 whole=num(h, "us_per_atom_step_whole"))
    h = h.drop_duplicates("tag", keep="last")   # a rerun replaces the earlier timing
    runs = td["rows"].assign(us=num(td["rows"], "us_per_atom_step"), rev=text(td["rows"], "git_rev"))
    rows = []
    for r in h.itertuples():
        # the in-program time of the same point at the same revision (old hyperfine rows
        # name none: then the newest run row of that tag)
        same = runs[(runs["tag"] == r.tag) & ((runs["rev"] == r.git_rev) | (r.git_rev == "-"))]
        inprog = same["us"].iloc[-1] if len(same) else None
        rows.append([r.tag, r.runs, f"{fmt(r.mean)} ± {fmt(r.sd)}", fmt(r.whole), r.git_rev, fmt(inprog),
                     same["rev"].iloc[-1] if len(same) else "-", fmt(r.whole / inprog) if inprog else "-"])
    return ("Whole-program wall time by hyperfine (start-up, set-up and the equilibration steps "
            "included, divided by N x all steps) beside the in-program median over timed blocks "
            f"(`{rel(path)}`):\n\n"
            + md_table(["point", "runs", "whole run (s)", "whole: µs/atom-step", "its revision",
                        "in-program: µs/atom-step", "its revision", "whole / in-program"], rows))


def spread(sp):
    """Every run of one configuration (one of tables.SPREADS): how much the same measurement varies."""
    runs, _ = figdata.run_rows(sp["csv"])
    where, _ = figdata.resolve(sp["where"], figdata.select(runs, {"variant": "gpu-layer"}))
    rows = figdata.select(runs, where)
    rows = rows.assign(y=num(rows, sp["column"]), rev=text(rows, "git_rev"))
    rows = rows[rows["y"].notna()]
    if len(rows) < 3:
        return ""
    ys = sorted(rows["y"])
    med = rows["y"].median()
    files = sorted({os.path.basename(f) for f in rows["_file"]})
    revs = ", ".join(f"{rev} ({n} runs)" for rev, n in rows["rev"].value_counts().sort_index().items())
    return (f"## {sp['title']}\n\n{len(ys)} runs of the same configuration ({', '.join(files)}; revisions: {revs}): "
            f"{sp['column']} from {fmt(ys[0])} to {fmt(ys[-1])}, median {fmt(med)}; the fastest and slowest "
            f"differ by {(ys[-1] - ys[0]) / ys[0]:.0%}, and half of the runs lie within "
            f"{fmt(ys[len(ys) // 4])}..{fmt(ys[(3 * len(ys)) // 4])}. Differences between table entries smaller "
            "than this spread are not evidence of anything: rerun the points (REDO=1) before reading them.")


def paper_text(r):
    """The paper's number as reference/paper.csv writes it."""
    if refnum(r, "lo") is not None:
        return f"{r['lo']}-{r['hi']}"
    return r["value"]


def compare_line(td, c, refs):
    """[quantity, paper, measured, verdict, revision] for one compare entry, or None without data."""
    r = refs[c["ref"]]
    lo, hi, value = refnum(r, "lo"), refnum(r, "hi"), refnum(r, "value")
    if "column" in c:
        where = dict(c.get("where", {}))
        if c.get("loop"):
            where, _ = figdata.resolve({**tables.LOOPS[c["loop"]], **where}, td["rows"])
        rows = figdata.select(td["rows"], where)
        rows = rows.assign(_v=num(rows, c["column"]), _s=num(rows, "steps").fillna(0), _e=num(rows, "equil").fillna(0))
        rows = rows[rows["_v"].notna()]
        if rows.empty:
            return None
        best = rows[rows["_s"] == rows["_s"].max()].iloc[-1]   # the longest run, the newest of those
        v = abs(best["_v"]) if c.get("abs") else best["_v"]
        what = f"{c['column']} ({', '.join(f'{k} {w}' for k, w in c.get('where', {}).items())}, " \
               f"{int(best['_s'] - best['_e'])} timed steps{loop_part(c)})"
        return [what, paper_text(r), fmt(v), verdict(v, v, value, lo, hi), best.get("git_rev", "-") or "-"]
    p = td["panels"][c["panel"]]
    s = next((s for s in p["series"] if s["label"] == c["series"]), None)
    if s is None or not s["points"]:
        return None
    line = measured(p, s, c["at"], r)
    return line and line + [revs_text(line.pop())]


def measured(p, s, at, r):
    """[quantity, paper, measured, verdict, revisions] of series s at `at` (see tables.py)."""
    lo, hi, value = refnum(r, "lo"), refnum(r, "hi"), refnum(r, "value")
    pts = s["points"]
    name = f"{p['spec'].get('title', '')}: {s['label']}"
    if at == "all":
        ys = [y for x, y, row in pts]
        return [name + " (all sizes)", paper_text(r), f"{fmt(min(ys))}-{fmt(max(ys))}",
                verdict(min(ys), max(ys), value, lo, hi), set().union(*(q.revs for q in pts))]
    if at in ("min", "max"):
        x, y, row = (min if at == "min" else max)(pts, key=lambda pt: pt[1])
        if r.get("quantity") == p["spec"]["x"]:
            # the paper names the best setting: is ours the same, and does it matter?
            ys = [pt[1] for pt in pts]
            spread = (max(ys) - min(ys)) / min(ys) if min(ys) > 0 else 0
            v = "same" if value is not None and abs(x - value) <= 1e-9 * max(1, abs(value)) else "elsewhere"
            return [f"{name}: {p['spec']['xlabel']} of the {'least' if at == 'min' else 'most'} time",
                    paper_text(r), f"{xtext(p, x)} ({fmt(y)})",
                    f"{v}; all {len(pts)} points within {spread:.0%} of each other", set().union(*(q.revs for q in pts))]
        q = next(q for q in pts if q.x == x)
        return [f"{name}: largest value (at {p['spec']['xlabel']} {xtext(p, x)})" if at == "max"
                else f"{name}: smallest value (at {p['spec']['xlabel']} {xtext(p, x)})",
                paper_text(r), fmt(y), verdict(y, y, value, lo, hi), q.revs]
    if at == "tail":
        # the end of a time series, robust to a stray block: the median of its last quarter
        tailp = pts[-max(1, len(pts) // 4):]
        tail = sorted(pt[1] for pt in tailp)
        y = tail[len(tail) // 2]
        return [f"{name}: median of the last {len(tail)} points ({p['spec']['xlabel']} "
                f"{xtext(p, pts[-len(tail)][0])}-{xtext(p, pts[-1][0])})", paper_text(r), fmt(y),
                verdict(y, y, value, lo, hi), set().union(*(q.revs for q in tailp))]
    if at in ("first", "last"):
        x, y, row = pts[0] if at == "first" else pts[-1]
    else:
        cats = p["spec"].get("categories")
        key = cats.index(at) + 1 if cats else float(at)
        hit = [pt for pt in pts if pt[0] == key]
        if not hit:
            return None
        x, y, row = hit[0]
    q = next(q for q in pts if q.x == x)
    return [f"{name} at {p['spec']['xlabel']} {xtext(p, x)}", paper_text(r), fmt(y), verdict(y, y, value, lo, hi),
            q.revs]


def loop_part(c):
    """', device loop' for a compare entry of one step loop, else nothing."""
    return f", {tables.LOOP_NAME[c['loop']]}" if c.get("loop") else ""


def entry_name(td, c):
    """What a compare entry measures, as compare_line names it, without the data."""
    if "column" in c:
        return f"{c['column']} ({', '.join(f'{k} {w}' for k, w in c.get('where', {}).items())}{loop_part(c)})"
    return f"{td['panels'][c['panel']]['spec'].get('title', '')}: {c['series']}"


def compare_lines(td, c, refs):
    """compare_line, or for the device loop's entry without rows a line saying so."""
    line = compare_line(td, c, refs)
    if line is None and c.get("loop") == "device":
        line = [entry_name(td, c), paper_text(refs[c["ref"]]), "not measured yet", "", "-"]
    return line


def loop_rows(td, loop):
    """The table's run rows of one step loop."""
    where, _ = figdata.resolve(dict(tables.LOOPS[loop]), td["rows"])
    return figdata.select(td["rows"], where)


def loops_text(td):
    """Which step loops the table's rows ran, and at which revisions (GPU tables only)."""
    if td["table"]["machine"] != "gpu":
        return ""
    parts = []
    for loop in ("device", "paper"):
        rows = loop_rows(td, loop)
        revs = ", ".join(sorted(set(text(rows, "git_rev")) - {""})) or "-"
        parts.append(f"{tables.LOOP_TEXT[loop]}: " + (
            f"{len(rows)} rows, revision {revs}" if len(rows) else
            f"not measured yet (GPU_LOOP={loop} runs/gpu_tables.sh on the GPU machine)"))
    return ("**Step loops.** " + "; ".join(parts) + f". Series labelled '{tables.DEVICE_SUFFIX.lstrip(', ')}' "
            "are the device loop's, the others the paper loop's. Each panel names its timing: "
            f"{tables.PROD} (us_per_atom_step: the median over whole 1000-step blocks, the step as a user runs it) "
            f"or {tables.KERNEL} (t_<stage>_us: each stage replayed alone after the run, --stage-reps times).")


def loop_changes(tds, refs):
    """Every compare entry measured in both loops: the paper loop's value beside the device
    loop's, and why they differ."""
    rows = []
    for td in tds:
        entries = [c for c in td["table"].get("compare", []) if c.get("loop")]
        for c in entries:
            if c["loop"] != "device":
                continue
            twin = next((e for e in entries if e["loop"] == "paper" and e["ref"] == c["ref"]
                         and e.get("panel") == c.get("panel") and e.get("at") == c.get("at")
                         and e.get("column") == c.get("column") and e.get("where") == c.get("where")
                         and e.get("series", "") == c.get("series", "").removesuffix(tables.DEVICE_SUFFIX)), None)
            if twin is None:
                continue
            dev, pap = compare_line(td, c, refs), compare_line(td, twin, refs)
            if pap is None:
                continue
            name = entry_name(td, twin)
            if dev is None:
                rows.append([td["table"]["id"], name, f"{pap[2]} ({pap[4]})", "not measured yet", "-"])
                continue
            try:
                ratio = f"{float(dev[2]) / float(pap[2]):.2f}"
            except (ValueError, ZeroDivisionError):
                ratio = "-"   # a range (all sizes) or a setting, not one number
            rows.append([td["table"]["id"], name, f"{pap[2]} ({pap[4]})", f"{dev[2]} ({dev[4]})", ratio])
    if not rows:
        return ""
    return ("## The device loop against the paper loop\n\n"
            "Each number of the tables above that both loops measured (revision in brackets). In the paper loop "
            "the host reads the device's properties after every step to decide on a rebuild, so every step waits "
            "for a round trip to the host, which outweighs the kernels below about a million atoms; in the device "
            "loop the device decides, 100 steps are launched as one CUDA graph and the rebuild kernels run only on "
            "the steps that rebuild. So production times (whole steps) fall most at small N. Kernel times "
            "(t_<stage>_us) replay the same kernels in either loop and should agree within the run-to-run spread, "
            "except the stages whose place the loop moves: the list build (layer assignment on the host in the paper "
            "loop, on the device in the device loop), the reordering and the reductions; time fractions follow from "
            "both.\n\n"
            + md_table(["table", "quantity", "paper loop", "device loop", "device / paper"], rows))


def grid(td, refs):
    """tables.py grid: the paper's numbers down, each column's measurement and its ratio to the
    paper across (e.g. the CPU chain with and without reordering)."""
    g = td["table"].get("grid")
    if not g:
        return ""
    head, rows, any_data = ["quantity", "paper"], [], False
    for name, _ in g["columns"]:
        head += [f"{name}: measured", f"{name}: measured / paper", f"{name}: revision"]
    for ref, k, at, label in g["rows"]:
        r, p = refs[ref], td["panels"][k]
        row = [label, paper_text(r)]
        for _, label in g["columns"]:
            s = next((s for s in p["series"] if s["label"] == label), None)
            q = next((q for q in s["points"] if xtext(p, q.x) == at), None) if s else None
            value = refnum(r, "value")
            if q is None:
                row += ["-", "-", "-"]
                continue
            any_data = True
            row += [fmt(q.y), f"{q.y / value:.2f}" if value else "-", revs_text(q.revs)]
        rows.append(row)
    return f"*{g['title']}*:\n\n" + md_table(head, rows) if any_data else ""


def verdict(vmin, vmax, value, lo, hi):
    if lo is not None:
        if vmax < lo or vmin > hi:
            return "outside the paper's range"
        return "within the paper's range" if lo <= vmin and vmax <= hi else "overlaps the paper's range"
    if not value:
        return ""
    ratio = vmin / value
    if abs(ratio - 1) <= 0.1 + 1e-12:   # 10% itself agrees (1.1 is not exactly 1 + 0.1 in binary)
        return "agrees (within 10%)"
    return f"{ratio:.2g}x the paper's"


# the CSVs of the sections after the tables (plots/coulomb.py, dd.py, rumd.py), in any results/<machine>/
SECTION_CSVS = ("coulomb.csv", "dd_timing.csv", "dd_scaling.csv", "rumd_fig6.csv", "rumd_fig7.csv",
                "rumd_rapaport.csv", "rumd_gamdpy.csv", "gamdpy.csv", "salt.csv", "rumd_first.csv", "salt_mats.csv")


def section_records():
    """Every row of the sections' CSVs (SECTION_CSVS), as records with _file; gamdpy's rows name
    their code and version where the others name a compiler."""
    out = []
    d = figdata.results_dir()
    for m in (sorted(os.listdir(d)) if os.path.isdir(d) else []):
        for name in SECTION_CSVS:
            df = nbrcsv.read_optional(os.path.join(d, m, name), need=["git_rev"])
            if df is None:
                continue
            for r in df.to_dict("records"):
                if not r.get("compiler") and r.get("code"):
                    r["compiler"] = f"{r['code']} {r.get('version') or ''}".strip()
                out.append(r)
    return out


def machines(tds):
    """The machines the rows come from: device, host, compiler, revision, dates."""
    seen = {}
    for recs in [td["rows"].to_dict("records") for td in tds] + [section_records()]:
        for r in recs:
            d = os.path.basename(os.path.dirname(r["_file"]))
            key = (d, r.get("device") or "?", r.get("compiler") or "?")
            e = seen.setdefault(key, dict(revs=set(), dates=[], files=set()))
            e["revs"].add(r.get("git_rev") or "?")
            e["dates"].append((r.get("timestamp") or "")[:10])
            e["files"].add(os.path.basename(r["_file"]))
    rows = []
    for (d, dev, comp), e in sorted(seen.items()):
        dates = sorted(x for x in e["dates"] if x)
        rows.append([f"results/{d}", dev, comp, ", ".join(sorted(e["revs"])),
                     f"{dates[0]} .. {dates[-1]}" if dates else "?", ", ".join(sorted(e["files"]))])
    return md_table(["directory", "device", "compiler / program", "git revision", "dates", "files"], rows)


def newest_row(tds):
    """The date of the newest row reported: the report's date, so that the same rows give the
    same report on any day (CI regenerates it and compares: plots/check_committed.sh)."""
    dates = [(r.get("timestamp") or "")[:10] for recs in [td["rows"].to_dict("records") for td in tds]
             + [section_records()] for r in recs]
    return max((d for d in dates if d), default="?")


def figure_link(tid, outmd):
    base = os.path.dirname(os.path.abspath(outmd))
    plots = os.environ.get("NBR_PLOTS_OUT", os.path.join(figdata.ROOT, "plots", "out"))
    links = []
    for tool in ("mpl", "gp"):
        f = os.path.join(plots, tool, f"{tid}.png")
        if os.path.exists(f):
            links.append((tool, os.path.relpath(f, base)))
    if not links:
        return "*(no figure drawn yet: make plots)*"
    main = f"![{tid}]({links[0][1]})"
    others = ", ".join(f"[{'gnuplot' if tool == 'gp' else 'matplotlib'}]({p})" for tool, p in links[1:])
    return main + (f"\n\nThe same figure drawn by {others}." if others else "")


def render(outmd):
    refs = figdata.reference()
    text = figdata.md_sections(TEXT)
    tds = [figdata.table_data(t, refs) for t in tables.TABLES]
    out = ["# Reproducing Rapaport 2011 with nbrlab",
           "",
           f"*Generated by `runs/report.sh` (make report) from the CSVs under `results/` (rows up to "
           f"{newest_row(tds)}), `reference/paper.csv` and the text of "
           "`reference/report_text.md`; do not edit: edit those and regenerate.*",
           "", text.get("intro", ""), "", "## Where the numbers come from", "", machines(tds), "",
           text.get("hardware", ""), "", "## Summary: the paper's numbers beside ours", ""]
    summary = []
    for td in tds:
        for c in td["table"].get("compare", []):
            line = compare_line(td, c, refs)
            if line:
                summary.append([td["table"]["id"]] + line)
    if summary:
        out.append(md_table(["table", "quantity", "paper", "measured", "verdict", "revision"], summary))
    else:
        out.append("Nothing measured yet that the paper gives a number for.")
    not_run = [td for td in tds if not td["complete"]]
    if not_run:
        out += ["", "Not measured yet: " + "; ".join(f"{td['table']['id']} (`{td['table']['driver']}`"
                                                  + "".join(f"; no {m.upper()} side yet" for m in td["sides_missing"]
                                                            if td["has_data"]) + ")" for td in not_run)
                + ". On the GPU machine, `runs/gpu_tables.sh` runs every GPU table; then `make plots && make report`."]
    for td in tds:
        t = td["table"]
        out += ["", f"## {t['title']}", ""]
        quotes = []  # the paper's sentences, each once, with our notes on the number used
        ids = [m["id"] for p in td["panels"] for m in p["refs"]] + [c["ref"] for c in t.get("compare", [])]
        for i in ids:
            q = f"\"{refs[i]['sentence']}.\""
            if q not in quotes:
                quotes.append(q)
        if quotes:
            out += ["The paper: " + " ".join(quotes), ""]
        notes = [f"{paper_text(refs[i])}: {refs[i]['note']}" for i in dict.fromkeys(ids) if refs[i].get("note")]
        if notes:
            out += ["(Reading the paper's numbers: " + "; ".join(notes) + ".)", ""]
        if not td["has_data"]:
            out += [f"**Not measured yet**: {figdata.run_hint(t)}, then `make plots && make report`.", ""]
        else:
            out += [figure_link(t["id"], outmd), ""]
            lt = loops_text(td)
            if lt:
                out += [lt, ""]
            if td["notes"]:
                out += ["Gaps: " + "; ".join(td["notes"]) + ".", ""]
            gr = grid(td, refs)
            if gr:
                out += [gr, ""]
            lines = [compare_lines(td, c, refs) for c in t.get("compare", [])]
            lines = [x for x in lines if x]
            if lines:
                out += [md_table(["quantity", "paper", "measured", "verdict", "revision"], lines), ""]
            for k in t.get("pivot", []):
                pv = pivot(td, k)
                if pv:
                    out += [pv, ""]
            hf = hyperfine(td)
            if hf:
                out += [hf, ""]
            ls = listing(td)
            if ls:
                out += ["<details><summary>The runs behind the figure</summary>", "", ls, "", "</details>", ""]
        if text.get(t["id"]):
            out += ["**Why it differs from the paper.** " + text[t["id"]], ""]
    for sp in map(spread, tables.SPREADS):
        if sp:
            out += ["", sp, ""]
    lc = loop_changes(tds, refs)
    if lc:
        out += ["", lc, ""]
    # Sirny 2010's Coulomb tables: their own CSVs, thesis numbers and text (plots/coulomb.py)
    out += ["", coulomb.section(outmd), ""]
    # Doijade et al. 2025's multi-GPU halo exchange (issue 13): gpu-dd's CSVs (plots/dd.py)
    out += ["", dd.section(outmd), ""]
    # Bailey et al. 2017 (RUMD) and gamdpy beside: their own CSVs and reference/rumd (plots/rumd.py)
    out += ["", rumd.section(outmd), ""]
    # RUMD's molten salt on the CPU beside LAMMPS (issue 12 item 5): salt_mats.csv (plots/salt.py)
    out += ["", salt.section(outmd), ""]
    # cluster pairs against atom lists (issue 37): cpu_cluster.csv and gpu-cluster's rows (plots/cluster.py)
    out += ["", cluster.section(outmd), ""]
    # one launch per stage or per chunk (issue 36): runs/device/launch.sh's rows (plots/launch.py)
    out += ["", launch.section(outmd), ""]
    if text.get("caveats"):
        out += ["## Caveats", "", text["caveats"], ""]
    os.makedirs(os.path.dirname(os.path.abspath(outmd)), exist_ok=True)
    with open(outmd, "w") as f:
        f.write("\n".join(out).rstrip() + "\n")
    return tds


def main(argv):
    if len(argv) != 1:
        print("usage: report.py OUT.md", file=sys.stderr)
        return 2
    try:
        tds = render(argv[0])
    except (nbrcsv.CsvError, OSError) as e:
        print(f"report.py: {e}", file=sys.stderr)
        return 2
    # a table counts when every side it needs is there (Table 2: the CPU rows and the GPU rows)
    done = [td["table"]["id"] for td in tds if td["complete"]]
    print(f"{rel(argv[0])}: {len(done)} of {len(tds)} tables with data ({', '.join(done) or 'none'})")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
