"""dd.py - gpu-dd's multi-GPU measurements (issue 13, item 3) beside the GROMACS/NVSHMEM paper
(Doijade et al. 2025, ../shared/papers/002_*.txt): the figures (matplotlib, PNG and SVG) and the
REPORT.md section.

    dd.py --figures OUTDIR     draw dd_sp and dd_lj into OUTDIR: time per step against N (1 GPU:
                               gpu-layer and gpu-dd with one rank; P GPUs per backend), strong-scaling
                               speed-up and efficiency against atoms per GPU, halo exchange per step
    dd.py --section OUT.md     print the report section (figures linked from OUT.md's folder)

Reads every results/<machine>/dd_timing.csv (runs/device/dd.sh; its halo lines from dd_timing.log
beside it) and results/<machine>/dd_scaling.csv (runs/dd_scaling.sh; halo lines from
dd_scaling_halo.csv, joined by tag and revision). Any may be absent. Ranks, backend and mode
(plain, overlap, graph; "device" added with --decide device) come from the columns ranks, comm,
dd_overlap, dd_graph and decide; rows measured before those columns existed (they read '-') fall
back to the tag ("dd-2gpu-nccl-overlap-ne100", "dd-lj-2gpu-p2p-ne46-s500", "layer-1gpu-ne100"). Per case the last ok row in file order
is used (dd_scaling after dd_timing). Every number of ours is named with its revision; the
paper's statements and their numbers are the hand-written text of reference/dd_text.md.
"""
import glob
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import figdata  # noqa: E402
import nbrcsv  # noqa: E402
from figdata import fig_links, fmt, md_table  # noqa: E402
from nbrcsv import num, text  # noqa: E402

TEXT = os.path.join(figdata.ROOT, "reference", "dd_text.md")
SYSTEMS = ("sp", "lj")
FIGS = [f"dd_{s}" for s in SYSTEMS]
BACKENDS = ("mpi", "nccl", "p2p", "nvshmem")
COLORS = {"mpi": "#d62728", "nccl": "#1f77b4", "p2p": "#2ca02c", "nvshmem": "#9467bd"}
STYLES = {"plain": "-", "overlap": "--", "graph": ":", "device": "-."}
SOURCES = (("dd_timing.csv", "dd_timing"), ("dd_scaling.csv", "dd_scaling"))
# the targets on nvidia-h200-x2: speed-up of 2 GPUs at these sizes
TARGET_SPEEDUP = {"sp": (8_000_000, 1.85), "lj": (4_019_679, 1.8)}


# ------------------------------------------------------------------------------- data

def parse_tag(tag):
    """(kind, ranks, comm, mode) from a tag (rows without the columns); kind 'layer' or 'dd'."""
    kind = "layer" if re.search(r"(^|-)layer(-|$)", tag) else "dd"
    m = re.search(r"(?:^|-)(\d+)gpu(?:-|$)", tag)
    ranks = int(m.group(1)) if m else 1
    m = re.search(r"-(%s)(?:-|$)" % "|".join(BACKENDS), tag)
    comm = m.group(1) if m else ""
    mode = "overlap" if re.search(r"-overlap(-|$)", tag) else "graph" if re.search(r"-graph(-|$)", tag) else "plain"
    if re.search(r"-dev(-|$)", tag):
        mode += " device"
    return kind, ranks, comm, mode


def known(values):
    """The column's values with '-' (not recorded: the row predates the column) as ''."""
    return ["" if v in ("", "-") else v for v in values]


def mode_of(overlap, graph, decide, tagged):
    """plain / overlap / graph, plus ' device' for --decide device; from the columns where the row
    has them, else the mode the tag says."""
    if not overlap:
        return tagged
    base = "overlap" if overlap == "on" else "graph" if graph == "on" else "plain"
    return base + (" device" if decide == "device" else "")


def halo_from_log(path):
    """{tag: (halo_us, force_us)} from a runs/device/dd.sh log ('== TAG' then the program's lines)."""
    out, tag = {}, None
    if not os.path.exists(path):
        return out
    with open(path, errors="replace") as f:
        for line in f:
            m = re.match(r"^== (\S+)", line)
            if m:
                tag = m.group(1)
                continue
            m = re.search(r"halo exchange ([0-9.eE+-]+) us/step, force kernel ([0-9.eE+-]+) us/call", line)
            if m and tag:
                out[tag] = (float(m.group(1)), float(m.group(2)))
    return out


def halo_from_csv(path):
    """{(tag, git_rev): (halo_us, force_us)} from runs/dd_scaling.sh's dd_scaling_halo.csv."""
    df = nbrcsv.read_optional(path, need=["tag", "git_rev", "halo_us", "force_us"], numeric=["halo_us", "force_us"])
    if df is None:
        return {}
    h, f = num(df, "halo_us"), num(df, "force_us")
    return {(t, r): (a, b) for t, r, a, b in zip(text(df, "tag"), text(df, "git_rev"), h, f)}


REVS_FILE = "dd_report_revs"


def report_revs(machine_dir):
    """The revisions (prefixes) results/<machine>/dd_report_revs names, one per line ('#' starts a
    comment): the section and figures use only those rows of that machine, so that a run of one
    revision is what they show; none named (or no file): every revision."""
    path = os.path.join(machine_dir, REVS_FILE)
    if not os.path.exists(path):
        return []
    with open(path) as f:
        revs = [line.split("#")[0].strip() for line in f]
    revs = [r for r in revs if r]
    for r in revs:
        if not re.fullmatch(r"[0-9a-f]{7,40}", r):
            sys.exit(f"dd.py: {figdata.rel(path)}: '{r}' is not a revision (7 to 40 hex digits)")
    return revs


def rows():
    """One DataFrame of every ok row of every machine's dd CSVs, with machine, source, kind,
    ranks, comm, mode, sys, nn, t (us/step), halo, force; None when there is none."""
    import pandas as pd
    frames = []
    for d in sorted(glob.glob(os.path.join(figdata.results_dir(), "*", ""))):
        machine = os.path.basename(os.path.dirname(d))
        keep = report_revs(d)
        for fname, source in SOURCES:
            path = os.path.join(d, fname)
            df = nbrcsv.read_optional(path, need=["tag", "status", "n", "us_per_step"], numeric=["n", "us_per_step"])
            if df is None or df.empty:
                continue
            df = df[text(df, "status") == "ok"].copy()
            if df.empty:
                continue
            parsed = [parse_tag(t) for t in text(df, "tag")]
            df["kind"] = [p[0] for p in parsed]
            df.loc[text(df, "variant") == "gpu-layer", "kind"] = "layer"
            ranks = num(df, "ranks")
            df["ranks"] = [int(r) if r == r else p[1] for r, p in zip(ranks, parsed)]
            comm = known(text(df, "comm"))
            df["comm"] = [c if c else p[2] for c, p in zip(comm, parsed)]
            ov, gr, dec = known(text(df, "dd_overlap")), known(text(df, "dd_graph")), known(text(df, "decide"))
            df["dmode"] = [mode_of(o, g, c, p[3]) for o, g, c, p in zip(ov, gr, dec, parsed)]
            # --dd-newton on: a mode of its own; the dd_newton column where the row has it, else the
            # tag's "-newton" (rows written before the column)
            newton = known(text(df, "dd_newton"))
            df["dmode"] = ["newton " + m if (nw == "on" if nw else re.search(r"-newton(-|$)", t)) else m
                           for m, nw, t in zip(df["dmode"], newton, text(df, "tag"))]
            # DD_REORDER=0 rows (tags "-r0": gpu-dd and gpu-layer never sorted by cell) are cases of their own
            unsorted = [bool(re.search(r"-r0(-|$)", t)) for t in text(df, "tag")]
            df["dmode"] = [m + " unsorted" if u else m for m, u in zip(df["dmode"], unsorted)]
            df["unsorted"] = unsorted
            # a grid other than the slab P x 1 x 1 (DD_GRIDS: tags "-g<grid>") is a case of its own
            grid = known(text(df, "dd_grid"))
            df["dmode"] = [m + f" grid {g}" if g and not re.fullmatch(r"\d+x1x1", g) else m
                           for m, g in zip(df["dmode"], grid)]
            df["rev"] = text(df, "git_rev")
            if keep:
                df = df[[any(r.startswith(k) for k in keep) for r in df["rev"]]].copy()
                if df.empty:
                    continue
            df.loc[df.ranks == 1, "comm"] = ""
            sysc = text(df, "system")
            df["sys"] = [s if s else "sp" for s in sysc]
            df["nn"] = num(df, "n")
            df["t"] = num(df, "us_per_step")
            df["halo"], df["force"] = num(df, "halo_us"), num(df, "t_force_dd_us")
            if source == "dd_timing":
                logs = halo_from_log(os.path.join(d, "dd_timing.log"))
                keyed = [logs.get(t) for t in text(df, "tag")]
            else:
                hc = halo_from_csv(os.path.join(d, "dd_scaling_halo.csv"))
                keyed = [hc.get((t, r)) for t, r in zip(text(df, "tag"), text(df, "git_rev"))]
            df["halo"] = [h if h == h else (k[0] if k else float("nan")) for h, k in zip(df["halo"], keyed)]
            df["force"] = [f if f == f else (k[1] if k else float("nan")) for f, k in zip(df["force"], keyed)]
            df["machine"], df["source"] = machine, source
            df["order"] = range(len(df))
            frames.append(df)
    if not frames:
        return None
    df = pd.concat(frames, ignore_index=True)
    df["src_rank"] = df.source.map({"dd_timing": 0, "dd_scaling": 1})
    df = df.sort_values(["src_rank", "order"])
    # one row per case and revision: the last one (a speed-up compares rows of one revision)
    df = df.drop_duplicates(["machine", "sys", "nn", "kind", "ranks", "comm", "dmode", "rev"], keep="last")
    return df.reset_index(drop=True)


def single(df, machine, sys_, n, rev=None, unsorted=None):
    """(t of gpu-layer, t of gpu-dd 1 rank, the best of the two) at N on machine (NaN if none);
    given a revision (and whether the atoms were sorted), the single-GPU rows of that revision
    (and sorting) where there are any: a multi-GPU row is compared with code of its own time."""
    nan = float("nan")
    if df is None:
        return nan, nan, nan
    s = df[(df.machine == machine) & (df.sys == sys_) & (df.nn == n) & (df.ranks == 1)]
    if rev is not None and (s.rev == rev).any():
        s = s[s.rev == rev]
    if unsorted is not None and (s.unsorted == unsorted).any():
        s = s[s.unsorted == unsorted]
    lay = s[s.kind == "layer"].t.min() if (s.kind == "layer").any() else nan
    dd1 = s[s.kind == "dd"].t.min() if (s.kind == "dd").any() else nan
    best = min([x for x in (lay, dd1) if x == x], default=nan)
    return lay, dd1, best


def multi(df, sys_):
    """The multi-rank rows of one system, each with its speed-ups: sp_dd (over gpu-dd 1 rank),
    sp_best (over the best single GPU), eff (sp_best / P), extra (T_P - T_1/P, T_1 of gpu-dd)."""
    if df is None:
        return None
    m = df[(df.sys == sys_) & (df.ranks > 1) & (df.kind == "dd")].copy()
    if m.empty:
        return m
    sg = [single(df, r.machine, sys_, r.nn, r.rev, r.unsorted) for r in m.itertuples()]
    m["t_layer"] = [x[0] for x in sg]
    m["t_dd1"] = [x[1] for x in sg]
    m["t_best1"] = [x[2] for x in sg]
    m["sp_dd"] = m.t_dd1 / m.t
    m["sp_best"] = m.t_best1 / m.t
    m["eff"] = m.sp_best / m.ranks
    m["extra"] = m.t - m.t_dd1 / m.ranks
    return m.sort_values(["machine", "comm", "dmode", "ranks", "nn"])


def series(m):
    """(machine, ranks, comm, mode) -> rows sorted by N."""
    out = {}
    if m is None or m.empty:
        return out
    for key, g in m.groupby(["machine", "ranks", "comm", "dmode"], sort=True):
        out[key] = g.sort_values("nn")
    return out


def label(machines, machine, what):
    return what + (f" ({machine})" if len(machines) > 1 else "")


# ------------------------------------------------------------------------------- figures

def draw(outdir):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    df = rows()
    os.makedirs(outdir, exist_ok=True)
    for sys_ in SYSTEMS:
        fig, axes = plt.subplots(2, 2, figsize=(13, 9.5))
        a1, a2, a3, a4 = axes.flat
        d = df[df.sys == sys_] if df is not None else None
        machines = sorted(set(d.machine)) if d is not None else []
        any_data = d is not None and not d.empty
        for mach in machines:
            one = d[(d.machine == mach) & (d.ranks == 1)]
            for kind, style, what in (("layer", "-s", "gpu-layer, 1 GPU"), ("dd", "-o", "gpu-dd, 1 rank")):
                s = one[one.kind == kind].sort_values("nn")
                if not s.empty:
                    a1.plot(s.nn, s.t, style, ms=4, color="black" if kind == "layer" else "grey",
                            label=label(machines, mach, what))
        m = multi(df, sys_)
        for (mach, p, comm, mode), s in series(m).items():
            kw = dict(color=COLORS.get(comm, "#7f7f7f"), ls=STYLES.get(mode.split()[-1], "-"), marker="o", ms=4)
            name = label(machines, mach, f"{p} GPUs {comm}" + ("" if mode == "plain" else f" {mode}"))
            a1.plot(s.nn, s.t, label=name, **kw)
            a2.plot(s.nn / p, s.sp_best, label=name, **kw)
            a3.plot(s.nn / p, s.eff, label=name, **kw)
            h = s[s.halo == s.halo]
            if not h.empty:
                a4.plot(h.nn / p, h.halo, label=name, **kw)
        a1.set(xscale="log", yscale="log", xlabel="atoms N", ylabel="time per step (us, median of blocks)",
               title=f"{sys_.upper()}: time per step")
        n_t, s_t = TARGET_SPEEDUP[sys_]
        a2.axhline(1, color="grey", lw=0.8)
        a2.axhline(s_t, color="grey", lw=0.8, ls="--")
        a2.text(0.01, s_t, f" target {s_t}x at N = {n_t:,} (2 GPUs)", transform=a2.get_yaxis_transform(),
                fontsize=7, color="grey", va="bottom")
        a2.set(xscale="log", xlabel="atoms per GPU", ylabel="speed-up over the best single GPU",
               title="strong scaling: T(1 GPU, best of gpu-layer and gpu-dd) / T(P GPUs)")
        a3.axhline(1, color="grey", lw=0.8)
        a3.set(xscale="log", xlabel="atoms per GPU", ylabel="parallel efficiency (speed-up / P)",
               title="strong-scaling efficiency")
        a4.axhline(5, color="grey", lw=0.8, ls="--")
        a4.text(0.01, 5, " target: nvshmem <= 5 us at 1M atoms per GPU", transform=a4.get_yaxis_transform(),
                fontsize=7, color="grey", va="bottom")
        a4.set(xscale="log", yscale="log", xlabel="atoms per GPU",
               ylabel="halo exchange (us/step, replayed alone, largest over ranks)",
               title="halo exchange latency per backend")
        for a in (a1, a2, a3, a4):
            a.grid(True, which="both", alpha=0.3)
            if a.get_legend_handles_labels()[0]:
                a.legend(fontsize=7)
        if not any_data:
            fig.text(0.5, 0.5, f"no {sys_.upper()} rows yet: not yet measured\n(runs/device/dd.sh, runs/dd_scaling.sh "
                     "on nvidia-h200-x2)", ha="center", va="center", fontsize=14, color="grey",
                     bbox=dict(facecolor="white", alpha=0.95, edgecolor="grey"))
        fig.suptitle(f"gpu-dd, {sys_.upper()}: 1 and P GPUs (lines: solid plain, dashed --dd-overlap on, "
                     "dotted --dd-graph on)", fontsize=10)
        figdata.save_figure(fig, outdir, f"dd_{sys_}")
    print(f"  dd: {', '.join(FIGS)} -> {outdir}/")


# ------------------------------------------------------------------------------- report

def revs(rs):
    s = sorted({str(r) for r in rs if str(r)})
    return ", ".join(s) if s else "-"


def best_per_backend(m, sys_, n, p=2):
    """{comm: row} the fastest mode of each backend at N with p ranks (one machine: the first)."""
    out = {}
    if m is None or m.empty:
        return out
    s = m[(m.nn == n) & (m.ranks == p)]
    for comm, g in s.groupby("comm"):
        out[comm] = g.sort_values("t").iloc[0]
    return out


def strong_scaling(m, ps):
    """Issue 14's view, once more than 2 GPUs ran: per N and backend, the speed-up over the best
    single GPU (and the time per step) at each P, the backend's best mode there."""
    if not any(p > 2 for p in ps):
        return []
    body = []
    for n in sorted(set(m.nn)):
        per_p = {p: best_per_backend(m, None, n, p) for p in ps}
        for c in BACKENDS:
            cells = [per_p[p].get(c) for p in ps]
            if all(r is None for r in cells):
                continue
            body.append([f"{int(n):,}", c] + ["-" if r is None else f"{fmt(r.sp_best)}x ({fmt(r.t)} us, {r.dmode})"
                                              for r in cells])
    return ["Strong scaling at fixed N: speed-up over the best single GPU of the same machine and revision (time "
            "per step, mode) at each P, each backend's best mode there:", "",
            md_table(["N", "backend"] + [f"{p} GPUs" for p in ps], body), ""]


def crossover(m, comm, p=2):
    """Where P GPUs start to beat the best single GPU with this backend (its best mode per N):
    (text, value or None, kind) with kind 'at' (a measured N), 'below' (pays at every N) or 'above'."""
    if m is None or m.empty:
        return "not yet measured", None, None
    s = m[(m.comm == comm) & (m.ranks == p) & (m.sp_best == m.sp_best)]
    if s.empty:
        return "not yet measured", None, None
    best = s.groupby("nn").sp_best.max().sort_index()
    ns, sp = list(best.index), list(best.values)
    start = None
    for k in range(len(ns) - 1, -1, -1):
        if sp[k] > 1:
            start = ns[k]
        else:
            break
    if start is None:
        return f"never (speed-up <= 1 up to N = {int(ns[-1]):,})", ns[-1], "above"
    if start == ns[0]:
        return f"at every measured N (from {int(ns[0]):,}, {int(ns[0] / p):,} per GPU)", ns[0], "below"
    return f"from N = {int(start):,} ({int(start / p):,} per GPU)", start, "at"


def section(outmd):
    df, txt = rows(), figdata.md_sections(TEXT, optional=True)
    out = ["## Doijade et al. 2025: multi-GPU domain decomposition and the halo exchange (issue 13)", "",
           "*This section: `plots/dd.py` from `results/*/dd_timing.csv` (runs/device/dd.sh, halo lines from "
           "`dd_timing.log`) and `results/*/dd_scaling.csv` (runs/dd_scaling.sh, halo lines from "
           "`dd_scaling_halo.csv`); the paper's statements are the text of `reference/dd_text.md`.*", ""]
    chosen = [(os.path.basename(os.path.dirname(d)), report_revs(d))
              for d in sorted(glob.glob(os.path.join(figdata.results_dir(), "*", "")))]
    chosen = [f"{m}: {', '.join(r)}" for m, r in chosen if r]
    if chosen:
        out += [f"*Rows of the revisions that `results/<machine>/{REVS_FILE}` names only ({'; '.join(chosen)}); "
                "the other machines' rows of every revision.*", ""]
    out += [txt.get("intro", ""), ""]
    if txt.get("paper"):
        out += ["### What the paper reports (intra-node first)", "", txt["paper"], ""]
    out += fig_links(outmd, FIGS)
    if df is None or df.empty:
        out += ["**Not yet measured**: no gpu-dd rows under `results/` (runs/device/dd.sh or runs/dd_scaling.sh "
                "on nvidia-h200-x2 write them); every number of ours below reads \"not yet measured\".", ""]
    for sys_ in SYSTEMS:
        m = multi(df, sys_)
        d = df[df.sys == sys_] if df is not None else None
        out += [f"### {sys_.upper()}: time per step, speed-up, halo exchange", ""]
        if d is None or d.empty:
            out += ["Not yet measured.", ""]
            continue
        body, used = [], []
        for r in d.sort_values(["machine", "nn", "ranks", "kind", "comm", "dmode"]).itertuples():
            used.append(r.git_rev)
            if r.ranks == 1:
                case = ("gpu-layer, 1 GPU" if r.kind == "layer" else "gpu-dd, 1 rank") + (" unsorted" if r.unsorted else "")
                body.append([r.machine, f"{int(r.nn):,}", case, fmt(r.t), "", "", "", "",
                             fmt(r.halo), fmt(r.force), r.git_rev])
                continue
            mr = m[(m.machine == r.machine) & (m.nn == r.nn) & (m.ranks == r.ranks) & (m.comm == r.comm) &
                   (m.dmode == r.dmode) & (m.rev == r.rev)].iloc[0]
            body.append([r.machine, f"{int(r.nn):,}", f"{r.ranks} GPUs {r.comm} {r.dmode}", fmt(r.t), fmt(mr.sp_dd),
                         fmt(mr.sp_best), fmt(mr.eff), fmt(mr.extra), fmt(r.halo), fmt(r.force), r.git_rev])
        out += [md_table(["machine", "N", "case", "us/step", "speed-up over gpu-dd 1 rank", "over the best 1 GPU",
                          "efficiency", "T_P - T_1/P (us)", "halo (us/step)", "force kernel (us)", "revision"], body), "",
                "us/step: median over the timed blocks (production timing). Halo and force kernel: replayed on their "
                "own after the run (--dd-halo-reps), the largest over ranks; with one rank the exchange is with itself. "
                "T_P - T_1/P: what P GPUs add over a perfect split of gpu-dd's one-rank step (the exchange, the ghost "
                f"atoms' extra list and force work, and what is not overlapped). Revisions: {revs(used)}.", ""]
        if m is not None and not m.empty:
            ps = sorted(set(m.ranks))
            cb = [[c] + [crossover(m, c, p)[0] for p in ps] for c in BACKENDS if (m.comm == c).any()]
            who = "2 GPUs start" if ps == [2] else "P GPUs start"
            out += [f"Where {who} to beat the best single GPU (each backend's best mode per N):", "",
                    md_table(["backend"] + [f"{p} GPUs pay" for p in ps], cb), ""]
            out += strong_scaling(m, ps)
    out += rebuild_phases()
    out += ["### The paper's intra-node statements beside ours", "", paper_vs_ours(df), "",
            "### The issue's targets (nvidia-h200-x2)", "", targets(df), ""]
    if txt.get("differences"):
        out += ["### Why our numbers and the paper's are not the same experiment", "", txt["differences"], ""]
    return "\n".join(out).rstrip() + "\n"


def rebuild_phases():
    """gpu-dd's rebuild by phase (--dd-profile on) from every results/<machine>/ddprof-*/ folder of
    logs (runs/device/all.sh part ddprof), read by runs/ddprof_table.py: one table per folder,
    a row per system, rank count, backend and revision (the median over its rounds)."""
    sys.path.insert(0, os.path.join(figdata.ROOT, "runs"))
    import ddprof_table
    out = []
    for d in sorted(glob.glob(os.path.join(figdata.results_dir(), "*", "ddprof-*", ""))):
        logs = sorted(glob.glob(os.path.join(d, "ddprof-*.log")))
        data = ddprof_table.collect(logs) if logs else {}
        if not data:
            continue
        machine = os.path.basename(os.path.dirname(os.path.dirname(d)))
        m = re.search(r"-x(\d+)$", machine)
        gpus = int(m.group(1)) if m else 1
        m = re.search(r"ddprof-([0-9a-f]{7,})", os.path.basename(os.path.dirname(d)))
        folder_rev = m.group(1) if m else "-"   # logs named before the revision was in the name
        phases = list(dict.fromkeys(n for by_rev in data.values() for med, _ in by_rev.values()
                                    for n in med if n not in ddprof_table.TAIL))
        # the revisions in the order the call first ran them (its summary's ddprof lines: the base
        # before the snapshot), else as found
        summary = os.path.join(d, "summary.txt")
        ran = "".join(line for line in open(summary, errors="replace") if " ddprof " in line) \
            if os.path.exists(summary) else ""
        first = lambda rev: ran.find(rev) if rev in ran else len(ran)
        body = []
        for (system, ranks, comm), by_rev in data.items():
            for rev, (med, rounds) in sorted(by_rev.items(), key=lambda kv: first(kv[0])):
                on = f"{ranks}" if ranks <= gpus else f"{ranks} on {gpus} GPU (shared)"
                body.append([system.upper(), on, comm, folder_rev if rev == "-" else rev, rounds] +
                            [fmt(med.get(n)) for n in phases] +
                            [fmt(med["sum"]), fmt(med["rebuilds"]), fmt(med["step (us)"])])
        out += [f"`{figdata.rel(os.path.dirname(d))}` ({machine}, {gpus} GPU{'s' if gpus > 1 else ''}):", "",
                md_table(["system", "ranks", "comm", "revision", "rounds"] + phases +
                         ["sum", "rebuilds", "us/step"], body), ""]
    if not out:
        return []
    return ["### gpu-dd's rebuild by phase (--dd-profile on)", "",
            "A rebuild migrates atoms, finds the ghosts and builds the lists; what of it "
            "does not halve on 2 GPUs is part of T_P - T_1/P above. us per rebuild, the largest over ranks, median "
            "over rounds; the stream synchronised at each phase boundary. Since f3093a6 the ranks also meet there "
            "and the wait is the phase skew; before it a phase holds its waits on the other ranks. Rows whose ranks "
            "share one GPU ran time-sliced: they say what a change did, not what P GPUs take. us/step: the run's "
            "median step, profile on (SP 8M and LJ 4M, 300 steps).", ""] + out


NOT = "not yet measured"


def ratio_at(m, n, a, b, col="t"):
    """col of backend a over backend b at N (2 ranks, best mode each)."""
    bb = best_per_backend(m, None, n)
    if a in bb and b in bb and bb[b][col] == bb[b][col] and bb[a][col] == bb[a][col] and bb[b][col] > 0:
        return bb[a][col] / bb[b][col], bb[a], bb[b]
    return None, None, None


def paper_vs_ours(df):
    body = []
    for sys_ in SYSTEMS:
        m = multi(df, sys_)
        ns = sorted(set(m.nn)) if m is not None and not m.empty else []
        # the NVSHMEM gain over MPI: the step time ratio
        gains = [(n,) + ratio_at(m, n, "mpi", "nvshmem") for n in ns]
        gains = [g for g in gains if g[1] is not None]
        if gains:
            n, q, a, b = max(gains, key=lambda g: g[1])
            ours = f"{fmt(q)}x at N = {int(n):,} ({int(n / 2):,} per GPU; {revs([a.git_rev, b.git_rev])})"
        else:
            ours = NOT + (" (no nvshmem rows: the backend was not built)" if ns else "")
        body.append([sys_.upper(), "step time, MPI over NVSHMEM (intra-node, NVLink)",
                     "up to 1.5x (DGX H100, 4 and 8 GPUs)", ours])
        small = [(n,) + ratio_at(m, n, "mpi", "nvshmem", "halo") for n in ns]
        small = [g for g in small if g[1] is not None]
        if small:
            n, q, a, b = small[0]
            ours = (f"halo {fmt(a.halo)} us (mpi) vs {fmt(b.halo)} us (nvshmem) at {int(n / 2):,} atoms per GPU "
                    f"({revs([a.git_rev, b.git_rev])})")
        else:
            ours = NOT
        body.append([sys_.upper(), "non-local work, smallest system (Fig. 6)",
                     "116 us (MPI) vs 64 us (NVSHMEM) at 11.25k atoms per GPU, 4 GPUs, local work ~22 us", ours])
        cx = {c: crossover(m, c) for c in ("mpi", "nvshmem", "nccl", "p2p")}
        ours = "; ".join(f"{c}: {cx[c][0]}" for c in cx if cx[c][1] is not None) or NOT
        body.append([sys_.upper(), "atoms per GPU where scaling stops paying",
                     "best scaling near ~20k atoms per GPU; below 10-25k per GPU an H100 is not saturated", ours])
    return md_table(["system", "quantity", "the paper", "ours (2 x H200, NV18)"], body)


def verdict(ok):
    return NOT if ok is None else ("met" if ok else "missed")


def targets(df):
    body = []
    for sys_ in SYSTEMS:
        m = multi(df, sys_)
        n_t, s_t = TARGET_SPEEDUP[sys_]
        s = m[(m.nn == n_t) & (m.ranks == 2)] if m is not None and not m.empty else None
        if s is not None and not s.empty:
            r = s.sort_values("t").iloc[0]
            meas = (f"{fmt(r.sp_best)}x over the best single GPU, {fmt(r.sp_dd)}x over gpu-dd 1 rank "
                    f"({r.comm} {r.dmode}, {r.git_rev})")
            missing = [c for c in BACKENDS if c not in set(s.comm)]
            if missing:
                meas += f"; not measured at this N: {', '.join(missing)}"
            ok = r.sp_best >= s_t if r.sp_best == r.sp_best else None
            ok_dd = r.sp_dd >= s_t if r.sp_dd == r.sp_dd else None
        else:
            meas, ok, ok_dd, missing = NOT, None, None, []
        v = verdict(ok)
        if ok is not None and ok_dd is not None and ok_dd != ok:
            v += f" over the best single GPU; {verdict(ok_dd)} over gpu-dd 1 rank"
        if ok is not None and not ok and missing:
            v += f" (with {', '.join(sorted(set(s.comm)))}; the other backends not measured at this N)"
        body.append([f"{sys_.upper()}, N = {n_t:,}: 2 GPUs over one", f">= {s_t}x", meas, v])
    # nvshmem at 1M atoms per GPU: T_2 - T_1/2 and the halo alone (SP, the N nearest 2M within 10%)
    m = multi(df, "sp")
    meas, ok = NOT, None
    if m is not None and not m.empty:
        s = m[(m.comm == "nvshmem") & (m.ranks == 2) & ((m.nn / 2 - 1e6).abs() <= 1e5)]
        if not s.empty:
            r = s.sort_values("t").iloc[0]
            meas = (f"halo alone {fmt(r.halo)} us/step; T_2 - T_1/2 = {fmt(r.extra)} us (the upper bound: it holds "
                    f"the ghosts' work and whatever does not halve) ({r.dmode}, N = {int(r.nn):,}, {r.git_rev})")
            ok = bool(r.halo <= 5) if r.halo == r.halo else None
    body.append(["SP, nvshmem, 1M atoms per GPU: the halo exchange per step (verdict on the exchange replayed alone)",
                 "<= 5 us/step", meas, verdict(ok)])
    # nvshmem's halo faster than mpi and nccl at every size
    worst, ok, used = None, None, []
    for sys_ in SYSTEMS:
        m = multi(df, sys_)
        for n in (sorted(set(m.nn)) if m is not None and not m.empty else []):
            for other in ("mpi", "nccl"):
                q, a, b = ratio_at(m, n, "nvshmem", other, "halo")
                if q is None:
                    continue
                used += [a.git_rev, b.git_rev]
                if worst is None or q > worst[0]:
                    worst = (q, other, n, sys_)
    if worst:
        ok = worst[0] < 1
        meas = (f"worst nvshmem/{worst[1]} halo time {fmt(worst[0])} ({worst[3].upper()}, N = {int(worst[2]):,}; "
                f"{revs(used)})")
    else:
        meas = NOT
    body.append(["nvshmem halo faster than mpi and nccl at every size", "ratio < 1 everywhere", meas, verdict(ok)])
    # the crossover: at least 4x smaller with nvshmem than with mpi
    parts, ok = [], None
    for sys_ in SYSTEMS:
        m = multi(df, sys_)
        a, b = crossover(m, "mpi"), crossover(m, "nvshmem")
        if a[1] is None or b[1] is None:
            continue
        if a[2] == "at" and b[2] == "at":
            q = a[1] / b[1]
            parts.append(f"{sys_.upper()}: {fmt(q)}x (mpi {a[0]}; nvshmem {b[0]})")
            ok = (q >= 4) if ok is None else (ok and q >= 4)
        else:
            parts.append(f"{sys_.upper()}: not determined by the measured sizes (mpi {a[0]}; nvshmem {b[0]})")
    v = verdict(ok) if ok is not None or not parts else "not determined (extend DD_NE to smaller N)"
    body.append(["size where 2 GPUs stop beating 1: mpi over nvshmem", ">= 4x", "; ".join(parts) or NOT, v])
    return md_table(["target", "bound", "measured", "verdict"], body)


if __name__ == "__main__":
    figdata.section_main("dd.py", draw, section, sys.argv[1:])
