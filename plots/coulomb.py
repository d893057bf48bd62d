"""coulomb.py - Sirny 2010's tables (the all-pairs Coulomb energy, issue 12) beside ours: the
figures (matplotlib, PNG and SVG) and the REPORT.md section.

    coulomb.py --figures OUTDIR     draw coulomb_fig10 (time and error against N) and
                                    coulomb_unroll (Tables 2 and 3) into OUTDIR
    coulomb.py --section OUT.md     print the report section (figures linked from OUT.md's
                                    folder) on stdout

Reads results/<cpu>/coulomb.csv and results/<gpu>/coulomb.csv (runs/coulomb.sh; either may be
absent: the GPU rows come from runs/device/coulomb.sh), the thesis's numbers with their pages in
reference/sirny2010.csv and the hand-written text of reference/coulomb_text.md (no number about
our runs there). Every number of ours comes from a CSV row, named with its revision. Per
configuration the newest row of a tag is used; a Table 4 row (tag t4-, ref-, cpu-) wins over
another table's row of the same configuration.
"""
import csv
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import figdata  # noqa: E402
import nbrcsv  # noqa: E402
import tables  # noqa: E402
from figdata import fig_links, fmt, md_table  # noqa: E402
from nbrcsv import num, text  # noqa: E402

THESIS = os.path.join(figdata.ROOT, "reference", "sirny2010.csv")
TEXT = os.path.join(figdata.ROOT, "reference", "coulomb_text.md")
SIZES = [43239, 140460, 239922, 339216, 447627, 541956, 630828]
MACHINES = {"cpu": tables.CPU, "gpu": tables.GPU}
FIGS = ["coulomb_fig10", "coulomb_unroll"]


def thesis():
    with open(THESIS) as f:
        return {r["id"]: r for r in csv.DictReader(f)}


def tv(refs, key):
    return float(refs[key]["value"])


def ts(refs, key):
    """The thesis's number as printed (the CSV keeps its digits)."""
    return refs[key]["value"] if key in refs else "-"


def thesis_rel_error(refs, n):
    """The thesis's float error from its two energies (its printed % column is 1e4 times this)."""
    g, c = tv(refs, f"t4_eg{n}"), tv(refs, f"t4_ec{n}")
    return (g - c) / abs(c)


def rows():
    """Every measured row of both machines' coulomb.csv (status ok, or over_tolerance: the run
    timed and its error is the result, above the mode's tolerance), with machine, n, t, err,
    over (over_tolerance), system columns."""
    import pandas as pd
    frames = []
    for m, d in MACHINES.items():
        path = os.path.join(figdata.results_dir(), d, "coulomb.csv")
        df = nbrcsv.read_optional(path, need=["tag", "impl", "precision", "n", "t_eval_s", "rel_error", "status"],
                                  numeric=["n", "t_eval_s", "rel_error"])
        if df is None or df.empty:
            continue
        df = df[text(df, "status").isin(["ok", "over_tolerance"])].copy()
        df["over"] = text(df, "status") == "over_tolerance"
        df["machine"] = m
        df["nn"] = num(df, "n")
        df["t"] = num(df, "t_eval_s")
        df["err"] = num(df, "rel_error")
        df["system"] = text(df, "input").map(lambda s: "water" if s.startswith("water-") else "bio")
        df["t4"] = text(df, "tag").str.match(r"^(t4-|ref-|cpu-)")
        frames.append(df)
    if not frames:
        return None
    return pd.concat(frames, ignore_index=True)


# our series: label, machine, filters on impl / precision / unroll / sweep
def series_defs():
    gpu, cpu = MACHINES["gpu"], MACHINES["cpu"]
    return [
        (f"CUDA float ({gpu})", "gpu", "cuda", "float"),
        (f"OpenCL float ({gpu}, NVIDIA)", "gpu", "opencl", "float"),
        (f"OpenCL float ({cpu}, PoCL)", "cpu", "opencl", "float"),
        (f"C double, OpenMP ({cpu})", "cpu", "ref", "double"),
        (f"C double, OpenMP ({gpu} host)", "gpu", "ref", "double"),
    ]


def ipt_of(df):
    """Atoms per thread (--ipt) of each row: 1 where the column is missing or "-" (rows measured
    before the knob existed ran one atom per thread)."""
    return text(df, "ipt").replace({"-": "1", "": "1"})


def pick(df, machine, impl, prec, system="water", n=None, unroll="4", tag_re=None, ipt="1"):
    """The row of one configuration: Table 4's own first, then the newest."""
    if df is None:
        return None
    sel = (df.machine == machine) & (text(df, "impl") == impl) & (text(df, "precision") == prec) & (df.system == system)
    if impl != "ref":
        # the half sweep, one row tile per group (half) or two (folded, the default since d74fd5f)
        sel &= (text(df, "unroll") == str(unroll)) & text(df, "sweep").isin(["half", "folded"])
        sel &= ipt_of(df) == str(ipt)
    if n is not None:
        sel &= df.nn == n
    if tag_re:
        sel &= text(df, "tag").str.match(tag_re)
    d = df[sel]
    if d.empty:
        return None
    d = d.sort_values(["t4", "_line"])
    return d.iloc[-1]


def by_n(df, machine, impl, prec, col="t"):
    if df is None:
        return [], []
    ns = sorted(set(df[(df.machine == machine) & (df.system == "water")].nn))
    xs, ys = [], []
    for n in ns:
        r = pick(df, machine, impl, prec, n=n)
        if r is not None and r[col] == r[col]:
            xs.append(n)
            ys.append(r[col])
    return xs, ys


def draw(outdir):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    refs, df = thesis(), rows()
    os.makedirs(outdir, exist_ok=True)

    # Fig. 10 and Table 4: time (the thesis's sqrt(t) ~ N is slope 1/2... drawn as t, log-log:
    # slope 2 = the O(N^2) the thesis checks) and relative error against N
    fig, (a1, a2, a3) = plt.subplots(1, 3, figsize=(19, 5.2))
    a1.plot(SIZES, [tv(refs, f"t4_g{n}") ** 0.5 for n in SIZES], "k--o", label="thesis: OpenCL float, 9600 GT")
    a1.plot(SIZES, [tv(refs, f"t4_c{n}") ** 0.5 for n in SIZES], "k:s", label="thesis: C double, E8400 (1 core)")
    # CUDA dashed with hollow, larger marks: its times equal NVIDIA OpenCL's within a few per cent,
    # so a plain line lay hidden under OpenCL's
    def style(impl):
        return dict(ls="--", marker="o", ms=7, mfc="none") if impl == "cuda" else dict(ls="-", marker="o", ms=4)

    for label, m, impl, prec in series_defs():
        xs, ys = by_n(df, m, impl, prec)
        if xs:
            a1.plot(xs, [y ** 0.5 for y in ys], label=label, **style(impl))
    a1.set(xscale="log", yscale="log", xlabel="atoms N (water boxes)", ylabel="sqrt(t) (sqrt(s))",
           title="Fig. 10: sqrt(time) against N (log-log: slope 1 = t ~ N^2)")
    # throughput: pair interactions per second, the figure that makes machines comparable
    for label, m, impl, prec in series_defs():
        xs, ys = by_n(df, m, impl, prec)
        if xs:
            a2.plot(xs, [0.5 * n * (n - 1) / y for n, y in zip(xs, ys)], label=label, **style(impl))
    a2.plot(SIZES, [0.5 * n * (n - 1) / tv(refs, f"t4_g{n}") for n in SIZES], "k--o", label="thesis GPU")
    a2.plot(SIZES, [0.5 * n * (n - 1) / tv(refs, f"t4_c{n}") for n in SIZES], "k:s", label="thesis CPU")
    a2.set(xscale="log", yscale="log", xlabel="atoms N", ylabel="pair interactions per second",
           title="Table 4: throughput N(N-1)/2 / t")
    a3.plot(SIZES, [abs(thesis_rel_error(refs, n)) for n in SIZES], "k--o", label="thesis float (from its energies)")
    for impl, m, name in (("cuda", "gpu", "CUDA"), ("opencl", "gpu", "OpenCL NVIDIA"), ("opencl", "cpu", "OpenCL PoCL"),
                          ("ref", "cpu", "C OpenMP")):
        for prec, mk in (("float", "o"), ("kahan", "^"), ("pairwise", "v")):
            xs, ys = by_n(df, m, impl, prec, col="err")
            if xs:   # CUDA hollow and larger: its errors equal NVIDIA OpenCL's (the same arithmetic)
                kw = dict(ms=8, mfc="none") if impl == "cuda" else dict(ms=4)
                a3.plot(xs, [max(abs(y), 1e-12) for y in ys], "-" + mk, label=f"{name} {prec}", **kw)
    a3.axhline(1e-6, color="grey", lw=0.8, ls="--")
    a3.set(xscale="log", yscale="log", xlabel="atoms N", ylabel="|relative error| against the exact energy",
           title="Table 4: energy error (grey: the 1e-6 target of kahan)")
    for a in (a1, a2, a3):
        a.grid(True, which="both", alpha=0.3)
        a.legend(fontsize=7)
    a3.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0))   # outside: the points fill the panel
    if df is None or not (df.machine == "gpu").any():
        fig.text(0.5, 0.01, f"no {MACHINES['gpu']} rows yet: run runs/device/coulomb.sh on the GPU machine",
                 ha="center", color="grey")
    figdata.save_figure(fig, outdir, "coulomb_fig10")

    # Tables 2 and 3: time against the unroll factor, relative to unroll 4
    fig, axes = plt.subplots(1, 2, figsize=(12, 4.6))
    us = [1, 2, 4, 8]
    for ax, t, key, n3 in ((axes[0], "2", "t2_u", None), (axes[1], "3", "t3_u", 541956)):
        base = tv(refs, f"{key}4")
        ax.plot(us, [tv(refs, f"{key}{u}") / base for u in us], "k--o",
                label=f"thesis, 9600 GT ({'enzyme 117 555' if t == '2' else '541 956'} atoms)")
        cands = []
        for m in ("gpu", "cpu"):
            for impl in ("cuda", "opencl"):
                for system in ("water", "bio"):
                    cands.append((m, impl, system))
        for m, impl, system in cands:
            ts = []
            for u in us:
                r = pick(df, m, impl, "float", system=system, unroll=u, tag_re=rf"^t{t}-")
                ts.append(r if r is not None else None)
            if any(r is None for r in ts):
                continue
            where = "PoCL" if m == "cpu" else "NVIDIA" if impl == "opencl" else ""
            what = f"water {int(ts[0].nn)}" if system == "water" else f"protein {int(ts[0].nn)}"
            ax.plot(us, [r.t / ts[2].t for r in ts], "-o", ms=4,
                    label=f"{'CUDA' if impl == 'cuda' else 'OpenCL'} {where} ({MACHINES[m]}), {what}")
        ax.set(xscale="log", xlabel="unroll factor", ylabel="time / time at unroll 4",
               title=f"Table {t}: the unroll factor" + (" at 541 956 atoms" if n3 else " (thesis: 117 555-atom enzyme)"))
        ax.minorticks_off()
        ax.set_xticks(us)
        ax.set_xticklabels([str(u) for u in us])
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize=7)
    figdata.save_figure(fig, outdir, "coulomb_unroll")
    print(f"  coulomb: {', '.join(FIGS)} -> {outdir}/")


# ------------------------------------------------------------------------------- report

def t_of(r):
    return r.t if r is not None else float("nan")


def ratio(a, b):
    return fmt(a / b) if a == a and b == b and b > 0 else "-"


def revs(rs):
    s = sorted({str(r["git_rev"]) for r in rs if r is not None})
    return ", ".join(s) if s else "-"


def section(outmd):
    refs, df, txt = thesis(), rows(), figdata.md_sections(TEXT, optional=True)
    gpu, cpu = MACHINES["gpu"], MACHINES["cpu"]
    out = ["## Sirný 2010: the all-pairs Coulomb energy in CUDA and OpenCL (issue 12)", "",
           "*This section: `plots/coulomb.py` from `results/*/coulomb.csv` (runs/coulomb.sh, "
           "runs/device/coulomb.sh), the thesis's numbers with their pages in `reference/sirny2010.csv` "
           "and the text of `reference/coulomb_text.md`.*", "", txt.get("intro", ""), ""]
    out += fig_links(outmd, FIGS)
    has_gpu = df is not None and (df.machine == "gpu").any()
    if not has_gpu:
        out += [f"**No {gpu} rows yet**: `runs/device/coulomb.sh` on the GPU machine writes them "
                f"(results/{gpu}/coulomb.csv); then `make plots && make report`.", ""]

    # Table 2
    used = []
    head = ["unroll", "thesis 9600 GT (s)", "thesis CPU/GPU"]
    cols = []
    for m, impl, system, n in (("gpu", "cuda", "water", 117555), ("gpu", "opencl", "water", 117555),
                               ("gpu", "cuda", "bio", None), ("gpu", "opencl", "bio", None),
                               ("cpu", "opencl", "water", 43239), ("cpu", "opencl", "bio", None)):
        rs = [pick(df, m, impl, "float", system=system, n=n, unroll=u, tag_re=r"^t2-") for u in (1, 2, 4, 8)]
        if all(r is None for r in rs):
            continue
        cpu_row = pick(df, m, "ref", "double", system=system, n=n)
        name = f"{'CUDA' if impl == 'cuda' else 'OpenCL'} {MACHINES[m]}, {'water ' + str(n) if n else 'protein'}"
        cols.append((name, rs, cpu_row))
        used += rs + [cpu_row]
    for name, _, _ in cols:
        head += [f"{name} (s)", "CPU/GPU"]
    body = []
    for k, u in enumerate((1, 2, 4, 8)):
        row = [u, ts(refs, f"t2_u{u}"), ts(refs, f"t2_r{u}")]
        for _, rs, cr in cols:
            row += [fmt(t_of(rs[k])), ratio(t_of(cr), t_of(rs[k]))]
        body.append(row)
    out += ["### Table 2: the unroll factor (thesis p. 25: BsoBI enzyme, 117 555 atoms)", "",
            md_table(head, body), "",
            "CPU/GPU: the C double loop (OpenMP over the machine's cores; the thesis: one core) on the same "
            "system and machine, over the GPU time; '-' where that CPU row was not run. "
            f"Thesis energies: GPU {ts(refs, 't2_e_gpu')}, CPU {ts(refs, 't2_e_cpu')} kcal/mol; CPU time "
            f"{ts(refs, 't2_cpu')} s. "
            f"Revisions: {revs(used)}.", ""]

    # Table 3
    head, body, used = ["unroll", "thesis 9600 GT (s)"], [], []
    cols = []
    for m, impl in (("gpu", "cuda"), ("gpu", "opencl")):
        rs = [pick(df, m, impl, "float", n=541956, unroll=u, tag_re=r"^t3-") for u in (1, 2, 4, 8)]
        if any(r is not None for r in rs):
            cols.append((f"{'CUDA' if impl == 'cuda' else 'OpenCL'} {MACHINES[m]} (s)", rs))
            used += rs
    head += [c[0] for c in cols]
    for k, u in enumerate((1, 2, 4, 8)):
        body.append([u, ts(refs, f"t3_u{u}")] + [fmt(t_of(rs[k])) for _, rs in cols])
    out += ["### Table 3: the unroll factor at 541 956 atoms (thesis p. 27)", "", md_table(head, body), "",
            f"Revisions: {revs(used)}.", ""]

    # Table 4: times
    defs = series_defs()
    head = ["N", "thesis GPU (s)", "thesis CPU (s)", "thesis CPU/GPU"] + [d[0] + " (s)" for d in defs] + \
           [f"OpenCL/CUDA ({gpu})", f"CPU/GPU ({gpu} host C double / CUDA float)"]
    ns = sorted(set(SIZES) | (set(df[df.system == "water"].nn.astype(int)) if df is not None else set()))
    body, used = [], []
    for n in ns:
        rs = [pick(df, m, impl, prec, n=n) for _, m, impl, prec in defs]
        used += rs
        th = [ts(refs, f"t4_{k}{n}") for k in ("g", "c", "r")]
        body.append([n] + th + [fmt(t_of(r)) for r in rs] + [ratio(t_of(rs[1]), t_of(rs[0])), ratio(t_of(rs[4]), t_of(rs[0]))])
    out += ["### Table 4 and Fig. 10: time against N (thesis p. 28-29: water boxes)", "", md_table(head, body), "",
            f"Revisions: {revs(used)}.", ""]

    # Table 4: errors
    precs = ["float", "kahan", "pairwise", "double", "exact"]
    impls = [("cuda", "gpu", f"CUDA {gpu}"), ("opencl", "gpu", f"OpenCL {gpu}"), ("opencl", "cpu", f"OpenCL {cpu}"),
             ("ref", "cpu", f"C {cpu}")]
    head = ["N", "thesis float (from its energies)"]
    cols = []
    for impl, m, name in impls:
        for prec in precs:
            rs = {n: pick(df, m, impl, prec, n=n) for n in ns}
            if any(r is not None for r in rs.values()):
                cols.append((f"{name} {prec}", rs))
    head += [c[0] for c in cols]
    body, used = [], []
    for n in ns:
        th = fmt(thesis_rel_error(refs, n)) if f"t4_eg{n}" in refs else "-"
        body.append([n, th] + [(fmt(rs[n].err) + (" (over)" if rs[n].over else "")) if rs[n] is not None else "-"
                               for _, rs in cols])
        used += [rs[n] for _, rs in cols]
    out += ["### Table 4: relative energy error against the exact energy", "", md_table(head, body), "",
            "(over): the row's status is over_tolerance, its error above the tolerance the program states "
            "for the mode and size (the CSV's tolerance column); the run was timed all the same.", "",
            txt.get("errors", ""), "", f"Revisions: {revs(used)}.", ""]

    # the protein
    body, used = [], []
    if df is not None:
        for impl, m, name in impls:
            for prec in precs:
                r = pick(df, m, impl, prec, system="bio")
                if r is not None:
                    body.append([name, prec, fmt(r.t), fmt(0.5 * r.nn * (r.nn - 1) / r.t), fmt(r.err), r["git_rev"]])
    out += ["### The real input: solvated adenylate kinase (reference/adk_oplsaa, 47 681 atoms)", ""]
    out += [md_table(["implementation", "precision", "t (s)", "pairs/s", "relative error", "revision"], body)
            if body else "Not measured yet (runs/coulomb.sh).", ""]

    # the targets
    body = []
    r630 = pick(df, "gpu", "cuda", "float", n=630828)
    body.append(["CUDA float, 630 828 atoms", "<= 60 ms", fmt(t_of(r630) * 1e3) + " ms" if r630 is not None else "-",
                 ("met" if t_of(r630) <= 0.060 else "missed") if r630 is not None else "not measured",
                 "630828" if r630 is not None else "-", revs([r630])])
    worst, used = None, []
    for n in ns:
        a, b = pick(df, "gpu", "opencl", "float", n=n), pick(df, "gpu", "cuda", "float", n=n)
        if a is not None and b is not None and n >= 140460:
            q = a.t / b.t
            worst = (q, n) if worst is None or q > worst[0] else worst
            used += [a, b]
    body.append(["OpenCL / CUDA time on the H200 (N >= 140 460, float)", "<= 1.2",
                 fmt(worst[0]) if worst else "-", ("met" if worst[0] <= 1.2 else "missed") if worst else "not measured",
                 worst[1] if worst else "-", revs(used)])
    kerr, kt, used, kused = None, None, [], []
    for n in ns:
        k, f = pick(df, "gpu", "cuda", "kahan", n=n), pick(df, "gpu", "cuda", "float", n=n)
        if k is not None:
            kerr = (abs(k.err), n) if kerr is None or abs(k.err) > kerr[0] else kerr
            kused.append(k)
            if f is not None and n >= 140460:
                kt = (k.t / f.t, n) if kt is None or k.t / f.t > kt[0] else kt
                used += [k, f]
    body.append(["CUDA kahan: abs(relative error), every water box", "<= 1e-6",
                 fmt(kerr[0]) if kerr is not None else "-",
                 ("met" if kerr[0] <= 1e-6 else "missed") if kerr is not None else "not measured",
                 kerr[1] if kerr is not None else "-", revs(kused)])
    body.append(["CUDA kahan time / float time (N >= 140 460)", "<= 1.1", fmt(kt[0]) if kt else "-",
                 ("met" if kt[0] <= 1.1 else "missed") if kt else "not measured", kt[1] if kt else "-", revs(used)])
    out += ["### The issue's targets", "",
            md_table(["target", "bound", "measured (worst)", "verdict", "at N (the worst)", "revision"], body), ""]
    # every CUDA float row of the two largest boxes: one run each, so the spread between rows shows
    big = df[(df.machine == "gpu") & (text(df, "impl") == "cuda") & (text(df, "precision") == "float") &
             (df.system == "water") & (df.nn >= 500000)] if df is not None else None
    if big is not None and not big.empty:
        big = big.sort_values(["nn", "_line"])
        out += ["Every CUDA float row of the boxes of 500 000 atoms and more (one run each; the targets above use the "
                "Table 4 row, t4-, where there is one):", "",
                md_table(["N", "tag", "unroll", "ipt", "sweep", "t (ms)", "pairs/s", "revision"],
                         [[int(r.nn), r.tag, r.unroll, ipt, r.sweep, fmt(r.t * 1e3),
                           fmt(0.5 * r.nn * (r.nn - 1) / r.t), r.git_rev]
                          for r, ipt in zip(big.itertuples(), ipt_of(big))]), ""]
    out += [txt.get("bound", ""), ""]
    if txt.get("verdict"):
        out += [txt["verdict"], ""]
    return "\n".join(out).rstrip() + "\n"


if __name__ == "__main__":
    figdata.section_main("coulomb.py", draw, section, sys.argv[1:])
