"""rumd.py - RUMD's benchmark figures (Bailey et al. 2017, issue 11) from our CSVs beside the
published numbers: matplotlib figures (PNG and SVG) and Table 2 as markdown.

    rumd.py --figures OUTDIR    draw rumd_fig6 (TPS against N: raw, and the published curves
                                scaled by memory bandwidth), rumd_fig7 (each optimisation off:
                                TPS and full / disabled), rumd_rapaport (Rapaport's SP and LJ
                                through gpu-rumd) and write rumd_table2.md into OUTDIR
    rumd.py --table2            print Table 2 (markdown) on stdout
    rumd.py --section OUT.md    print the report section (figures linked from OUT.md's folder)
    rumd.py --gnuplot DATADIR OUTDIR
                                write Fig. 6 and Fig. 7's data and DATADIR/rumd/rumd.gp (printed),
                                which gnuplot draws into OUTDIR

Reads every results/<machine>/ that has them: rumd_fig6.csv, rumd_fig7.csv, rumd_rapaport.csv
(runs/rumd_figs.sh; nbrlab's schema, rows tagged r6-/r7-/r8-, the autotuner's trial rows
(autotune-*) left out) and rumd_gamdpy.csv or gamdpy.csv (runs/gamdpy_bench.py: gamdpy
measured in the same device call); and reference/rumd/ (published_tps.csv, gpu_bandwidth.csv,
paper_statements.csv; sources in its README). A file that does not exist is a figure that says
so, never an error. Per (machine, series, N) the newest ok row is used.
TPS = 1e6 / us_per_step (production timing).
"""
import csv
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import figdata  # noqa: E402
import nbrcsv  # noqa: E402
from figdata import md_table  # noqa: E402
from nbrcsv import num, text  # noqa: E402

REF = os.path.join(figdata.ROOT, "reference", "rumd")
FIG6_CODES = [("rumd-auto", "gpu-rumd autotuned"), ("rumd-default", "gpu-rumd, RUMD's defaults"),
              ("layer", "gpu-layer (device settings)"), ("old", "gpu-old"),
              ("n2", "gpu-n2: gpu-layer with RUMD's n2 W build"),
              ("onchip", "gpu-onchip (one launch per chunk, tier by N)"), ("onchip-auto", "gpu-onchip autotuned"),
              ("cluster", "gpu-cluster (cluster-pair list, 4x1 / 8x1 by N)")]
# gpu-onchip's codes: their rows name the tier that ran (block, cluster, grid: the tier column)
ONCHIP = ("onchip-auto", "onchip")
TIER_MARKS = {"block": "s", "cluster": "*", "grid": "X"}   # markers no other series uses
TIER_PT = {"block": 4, "cluster": 8, "grid": 10}           # gnuplot's point types for the same
# the other nbrlab codes of Fig. 6, the ones a tier has to beat to pay
OTHERS = ("rumd-auto", "rumd-default", "layer", "old", "n2", "cluster")
FIG7_ROLES = [("full", "full (all on)"), ("tp1", "t_p = 1 forced"), ("plain", "no read-only cache (--read plain)"),
              ("nopf", "no prefetch")]
FIGS = ["rumd_fig6", "rumd_fig7", "rumd_rapaport"]
TEXT = os.path.join(figdata.ROOT, "reference", "rumd", "report_text.md")


def machines():
    d = figdata.results_dir()
    return sorted(m for m in os.listdir(d) if os.path.isdir(os.path.join(d, m))) if os.path.isdir(d) else []


def ours(name, prefix, roles):
    """{(machine, role): DataFrame of the newest ok row per n, with tps}, from results/*/name."""
    out = {}
    for m in machines():
        df = nbrcsv.read_optional(os.path.join(figdata.results_dir(), m, name),
                                  need=["tag", "n", "us_per_step", "status"], numeric=["n", "us_per_step"])
        if df is None or df.empty:
            continue
        df = df[(text(df, "status") == "ok") & text(df, "tag").str.startswith(prefix)].copy()
        # the longest role first: r6-onchip-auto-... is onchip-auto, not onchip
        alt = "|".join(sorted(roles, key=len, reverse=True))
        df["role"] = text(df, "tag").str.extract("^" + prefix + "(" + alt + ")-", expand=False)
        df = df[df["role"].notna()]
        df["nn"] = num(df, "n")
        df["tps"] = 1e6 / num(df, "us_per_step")
        df = df.sort_values(["timestamp", "_line"]) if "timestamp" in df.columns else df
        for role, g in df.groupby("role"):
            out[(m, role)] = g.groupby("nn", as_index=False).last().sort_values("nn")
    return out


def gamdpy_rows():
    """{(machine, plan): newest ok row per n} from results/*/rumd_gamdpy.csv or gamdpy.csv."""
    out = {}
    for m in machines():
        for f in ("rumd_gamdpy.csv", "gamdpy.csv"):
            df = nbrcsv.read_optional(os.path.join(figdata.results_dir(), m, f), need=["n", "tps", "plan", "status"],
                                      numeric=["n", "tps"])
            if df is None or df.empty:
                continue
            df = df[text(df, "status") == "ok"].copy()
            df["nn"] = num(df, "n")
            df["tps"] = num(df, "tps")
            for plan, g in df.groupby("plan"):
                out[(m, plan)] = g.groupby("nn", as_index=False).last().sort_values("nn")
            break
    return out


def published():
    with open(os.path.join(REF, "published_tps.csv")) as f:
        return list(csv.DictReader(f))


def bandwidths():
    with open(os.path.join(REF, "gpu_bandwidth.csv")) as f:
        return {r["gpu"]: float(r["bandwidth_gbs"]) for r in csv.DictReader(f)}


def statements():
    with open(os.path.join(REF, "paper_statements.csv")) as f:
        return {r["id"]: r for r in csv.DictReader(f)}


def machine_bw(m, bws, series):
    """The bandwidth of the GPU a machine's rows name (device column), by the datasheet table."""
    dev = ""
    for (mm, _), df in series.items():
        if mm == m and "device" in df.columns and len(df):
            dev = str(df["device"].iloc[-1])
            break
    for g, bw in sorted(bws.items(), key=lambda kv: -len(kv[0])):
        if g.lower().replace(" ", "") in (dev + " " + m).lower().replace(" ", ""):
            return g, bw
    return None, None


def _save(fig, outdir, name):
    import warnings
    with warnings.catch_warnings():   # an empty panel: tight_layout says it cannot fit; harmless
        warnings.simplefilter("ignore", UserWarning)
        fig.tight_layout(rect=(0, 0.02, 1, 1))
    import matplotlib
    matplotlib.rcParams["svg.hashsalt"] = "nbrlab"  # a redraw of the same data is the same file
    for ext in ("png", "svg"):
        fig.savefig(os.path.join(outdir, f"{name}.{ext}"), dpi=110, metadata={"Date": None} if ext == "svg" else None)


def draw(outdir):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    os.makedirs(outdir, exist_ok=True)
    bws, pub, st = bandwidths(), published(), statements()
    s6 = ours("rumd_fig6.csv", "r6-", [c for c, _ in FIG6_CODES])
    gd = gamdpy_rows()
    pal = iter(figdata.PALETTE * 3)

    # ---- Fig. 6: raw, and the published curves scaled by bandwidth to this machine's GPU
    fig, axes = plt.subplots(1, 2, figsize=(15, 5.6), sharey=True)
    ref_gpu, ref_bw = None, None
    for m in machines():
        g, bw = machine_bw(m, bws, {**s6, **gd})
        if bw:
            ref_gpu, ref_bw = g, bw
            break
    if ref_bw is None:
        ref_gpu, ref_bw = "H200", bws.get("H200", 4800.0)
    colors = {}
    for (m, code), df in sorted(s6.items()):
        label = dict(FIG6_CODES)[code] + f" ({m})"
        colors[label] = next(pal)
        for ax in axes:
            if code not in ONCHIP:
                ax.plot(df["nn"], df["tps"], "-o", ms=4, color=colors[label], label=label)
                continue
            # gpu-onchip: a marker per point for the tier that ran
            ax.plot(df["nn"], df["tps"], "-", color=colors[label], label=label + ": marker = tier")
            tiers = text(df, "tier")
            for t, mk in TIER_MARKS.items():
                d = df[tiers == t]
                ax.plot(d["nn"], d["tps"], mk, ms=8, color=colors[label], mfc="white" if code == "onchip" else None)
            d = df[~tiers.isin(list(TIER_MARKS))]
            ax.plot(d["nn"], d["tps"], "o", ms=4, color=colors[label])
    for t, mk in TIER_MARKS.items():   # the tiers' legend, once
        if any((text(df, "tier") == t).any() for (_, c), df in s6.items() if c in ONCHIP):
            axes[0].plot([], [], mk, color="black", mfc="white", label=f"gpu-onchip tier: {t}")
    for m in sorted({m for m, c in s6 if c in ONCHIP}):
        for t, last in tier_pays(s6, m).items():
            for ax in axes:   # the largest N at which the tier beat every other nbrlab code
                ax.axvline(last, color="black", lw=0.6, ls=":")
            axes[0].text(last, 0.98, f"{t} pays to N = {last}", rotation=90, fontsize=6.5, va="top", ha="right",
                         transform=axes[0].get_xaxis_transform())
    for (m, plan), df in sorted(gd.items()):
        c = next(pal)
        for ax in axes:
            ax.plot(df["nn"], df["tps"], "--s", ms=4, color=c, label=f"gamdpy 0.8.3, {plan} plan ({m})")
    pubser = {}
    for r in pub:
        key = (r["code"], r["gpu"], r["plan"], r["source"])
        pubser.setdefault(key, []).append((float(r["N"]), float(r["tps"])))
    marks = {"gamdpy-readme": "^", "gamdpy-csv": "v", "issue11-quote": "D"}
    for key, pts in sorted(pubser.items()):
        code, gpu, plan, src = key
        pts.sort()
        xs, ys = [p[0] for p in pts], [p[1] for p in pts]
        bw = bws.get(gpu)
        lab = f"published: {code} {plan}, {gpu} [{src}]"
        ls = "" if src == "issue11-quote" else ":"   # two separate points, not a curve
        axes[0].plot(xs, ys, ls + marks.get(src, "x"), color="grey" if code == "gamdpy" else "black", ms=5, mfc="none",
                     label=lab)
        if bw:
            f = ref_bw / bw
            axes[1].plot(xs, [y * f for y in ys], ls + marks.get(src, "x"), color="grey" if code == "gamdpy" else "black",
                         ms=5, mfc="none", label=f"{lab} x {ref_bw:.0f}/{bw:.0f} GB/s")
    for ax in axes:
        ax.set(xscale="log", yscale="log", xlabel="N (atoms)")
        ax.grid(True, which="both", alpha=0.3)
        ax.axvline(8000, color="grey", lw=0.6, ls="--")
        # at the top, upright as the tiers' lines: the legend fills the lower left
        ax.text(8000, 0.98, "n2 | sort (RUMD's switch)", rotation=90, fontsize=6.5, color="grey", va="top",
                ha="right", transform=ax.get_xaxis_transform())
        ax.legend(fontsize=6.5, loc="lower left")
    axes[0].set(ylabel="time steps per second (TPS)",
                title="Fig. 6: LAMMPS LJ benchmark (rho 0.8442, r_c 2.5, NVE), float - measured and published, raw")
    axes[1].set_title(f"the same; published TPS scaled by memory bandwidth to the {ref_gpu} ({ref_bw:.0f} GB/s):\n"
                      "what each code would reach if purely bandwidth-bound (an assumption, not a measurement)",
                      fontsize=9)
    note = ("RUMD paper's own Fig. 6 (GTX 780 Ti; LAMMPS on K20x) gives no TPS values in its text: not drawn "
            "(reference/rumd/README.md)")
    if not s6 and not gd:
        note = "no rumd_fig6.csv / gamdpy rows yet: run runs/rumd_figs.sh and runs/device/gamdpy.sh on the GPU. " + note
    fig.text(0.5, 0.005, note, ha="center", fontsize=7.5, color="grey")
    _save(fig, outdir, "rumd_fig6")
    plt.close(fig)

    # ---- Fig. 7: TPS, and full / disabled
    s7 = ours("rumd_fig7.csv", "r7-", [r for r, _ in FIG7_ROLES])
    fig, (a1, a2) = plt.subplots(2, 1, figsize=(8.5, 8), sharex=True)
    pal = iter(figdata.PALETTE * 3)
    for m in machines():
        full = s7.get((m, "full"))
        for role, lab in FIG7_ROLES:
            df = s7.get((m, role))
            if df is None:
                continue
            c = next(pal)
            a1.plot(df["nn"], df["tps"], "-o", ms=4, color=c, label=f"{lab} ({m})")
            if role != "full" and full is not None:
                j = full.merge(df, on="nn", suffixes=("_f", "_d"))
                a2.plot(j["nn"], j["tps_f"] / j["tps_d"], "-o", ms=4, color=c, label=f"full / {lab} ({m})")
    for sid, lab in (("fig7_ldg", "paper: read-only cache ~40%"), ("fig7_prefetch", "paper: prefetch ~10% at large N")):
        v = float(st[sid]["value"])
        a2.axhline(v, color="grey", lw=0.8, ls="--")
        if a2.has_data():
            a2.text(a2.get_xlim()[0], v, " " + lab, fontsize=7, color="grey", va="bottom")
    a2.axhline(1.0, color="black", lw=0.6)
    a1.set(xscale="log", yscale="log", ylabel="TPS",
           title="Fig. 7: gpu-rumd with one optimisation disabled (lammps-lj, float)")
    a2.set(xscale="log", xlabel="N (atoms)", ylabel="TPS full / TPS disabled")
    for a in (a1, a2):
        a.grid(True, which="both", alpha=0.3)
        if a.get_legend_handles_labels()[0]:
            a.legend(fontsize=7)
    if not s7:
        fig.text(0.5, 0.5, "no rumd_fig7.csv rows yet (runs/rumd_figs.sh fig7 on the GPU)", ha="center", color="grey")
    _save(fig, outdir, "rumd_fig7")
    plt.close(fig)

    # ---- Rapaport's SP and LJ through gpu-rumd, beside gpu-layer
    sr = ours("rumd_rapaport.csv", "r8-", ["rumd-auto", "rumd-default", "layer"])
    fig, axes = plt.subplots(1, 2, figsize=(13, 4.8))
    pal = iter(figdata.PALETTE * 3)
    names = {"rumd-auto": "gpu-rumd autotuned", "rumd-default": "gpu-rumd defaults", "layer": "gpu-layer"}
    for (m, role), df in sorted(sr.items()):
        c = next(pal)
        for ax, sysname in zip(axes, ("sp", "lj")):
            d = df[text(df, "system") == sysname]
            if len(d):
                ax.plot(d["nn"], d["tps"], "-o", ms=4, color=c, label=f"{names[role]} ({m})")
    for ax, sysname in zip(axes, ("SP (rho 0.8, r_c 2^(1/6))", "LJ (rho 0.38, r_c 3)")):
        ax.set(xscale="log", yscale="log", xlabel="N (atoms)", ylabel="TPS", title=f"Rapaport's {sysname}, float")
        ax.grid(True, which="both", alpha=0.3)
        if ax.has_data():
            ax.legend(fontsize=7)
        else:
            ax.text(0.5, 0.5, "no rumd_rapaport.csv rows yet", transform=ax.transAxes, ha="center", color="grey")
    _save(fig, outdir, "rumd_rapaport")
    plt.close(fig)

    with open(os.path.join(outdir, "rumd_table2.md"), "w") as f:
        f.write(table2(s6))
    print(f"  rumd: {', '.join(FIGS)}, rumd_table2.md -> {outdir}/")


def table2(s6=None):
    """Table 2 (markdown): the autotuned parameters of Fig. 6's autotuned rows against N."""
    if s6 is None:
        s6 = ours("rumd_fig6.csv", "r6-", [c for c, _ in FIG6_CODES])
    st = statements()
    out = ["Table 2: gpu-rumd's autotuned parameters on lammps-lj (float), against N "
           "(rows of rumd_fig6.csv tagged r6-rumd-auto-)", "",
           "| machine | N | list | skin | p_b | t_p | N x t_p | >= 16 000 threads | TPS | search | revision |",
           "|---|---|---|---|---|---|---|---|---|---|---|"]
    any_row = False
    for (m, code), df in sorted(s6.items()):
        if code != "rumd-auto":
            continue
        for _, r in df.iterrows():
            any_row = True
            tp = text(df.loc[[_]], "tp").iloc[0]
            n = int(r["nn"])
            nt = n * int(tp) if tp.isdigit() else None
            out.append(f"| {m} | {n} | {text(df.loc[[_]], 'list_method').iloc[0]} | {text(df.loc[[_]], 'delta').iloc[0]} | "
                       f"{text(df.loc[[_]], 'pb').iloc[0]} | {tp} | {nt if nt is not None else '-'} | "
                       f"{'-' if nt is None else ('yes' if nt >= 16000 else 'no')} | {r['tps']:.0f} | "
                       f"{_search_note(m, text(df.loc[[_]], 'tag').iloc[0])} | {text(df.loc[[_]], 'git_rev').iloc[0]} |")
    if not any_row:
        out.append("| (no autotuned rows yet: runs/rumd_figs.sh fig6 on the GPU) | | | | | | | | | | |")
    else:
        out += ["", "search: how the autotuner ended, from the run's log in results/<machine>/rumd-logs/ "
                "(\"cut by its budget\": --autotune-budget ran out and the best trial so far was taken, "
                "so a fuller search may choose otherwise)."]
    out += ["", "The paper (its Table 2 is an image; its text states):", ""]
    for sid in ("t2_threads", "t2_switch", "t2_skin", "defaults"):
        out.append(f"- {st[sid]['sentence']}")
    if any_row and os.path.exists(TEXT):
        # the hand-written reading of the measured tables (its first line names the file)
        out += ["", open(TEXT).read().split("\n", 1)[1].strip()]
    return "\n".join(out) + "\n"


def _search_note(machine, tag):
    """How the autotuned run's search ended, from its log (runs/rumd_figs.sh LOGDIR, committed as
    results/<machine>/rumd-logs/<tag>.log): complete, cut by its budget, or taken from the cache."""
    path = os.path.join(figdata.results_dir(), machine, "rumd-logs", f"{tag}.log")
    try:
        log = open(path, errors="replace").read()
    except OSError:
        return "no log"
    m = re.search(r"^# autotune: (\d+) trials in ([\d.]+) s( \(budget used up)?", log, re.M)
    if m:
        return f"{'cut by its budget' if m.group(3) else 'complete'}: {m.group(1)} trials, {m.group(2)} s"
    return "from the cache" if re.search(r"^# autotune: from ", log, re.M) else "no search line"


def onchip_points(s6, m):
    """gpu-onchip against the other nbrlab codes of Fig. 6 on machine m, per N: a DataFrame of
    nn, code (onchip or onchip-auto, the faster), tier, tps, other (the fastest other code),
    other_tps and gain (tps / other_tps, NaN where no other code ran at that N)."""
    import pandas as pd
    on = [df.assign(code=c, tier=text(df, "tier")) for (mm, c), df in s6.items() if mm == m and c in ONCHIP]
    if not on:
        return pd.DataFrame(columns=["nn", "code", "tier", "tps", "other", "other_tps", "gain"])
    best = (pd.concat(on)[["nn", "code", "tier", "tps"]].sort_values(["nn", "tps"])
            .groupby("nn", as_index=False).last())
    ot = [df[["nn", "tps"]].assign(other=c) for (mm, c), df in s6.items() if mm == m and c in OTHERS]
    if ot:
        o = (pd.concat(ot).sort_values(["nn", "tps"]).groupby("nn", as_index=False).last()
             .rename(columns={"tps": "other_tps"}))
        best = best.merge(o, on="nn", how="left")
    else:
        best = best.assign(other=None, other_tps=float("nan"))
    best["gain"] = best["tps"] / best["other_tps"]
    return best.sort_values("nn")


def tier_pays(s6, m):
    """{tier: the largest N at which gpu-onchip in that tier beat every other nbrlab code}, for
    the tiers that won somewhere: past it the tier stops paying."""
    p = onchip_points(s6, m)
    won = p[(p["gain"] > 1) & ~p["tier"].isin(["", "-"])]
    return {t: int(g["nn"].max()) for t, g in won.groupby("tier")}


def _tier_at(series, key, n):
    df = series.get(key)
    if df is None:
        return None
    d = df[df["nn"] == n]
    t = text(d, "tier")
    return t.iloc[-1] if len(d) and t.iloc[-1] not in ("", "-") else None


def _cell(series, key, n):
    """TPS at N, with the tier that ran where the row names one: "412000 (cluster)"."""
    v, t = _tps_at(series, key, n), _tier_at(series, key, n)
    return _f(v) + (f" ({t})" if v and t else "")


def _tps_at(series, key, n):
    df = series.get(key)
    if df is None:
        return None
    d = df[df["nn"] == n]
    return float(d["tps"].iloc[-1]) if len(d) else None


def _best(series, machine, roles, n):
    """(TPS, revision) of the fastest of the roles' rows at N; (0, None) if none."""
    got = [(_tps_at(series, (machine, r), n), _rev_at(series, (machine, r), n)) for r in roles]
    return max([g for g in got if g[0]] or [(0, None)])


def _ratio(series, roles, peer, plans, machine, n):
    """ours / gamdpy, the best of each at N, only when both rows come from one revision (one
    device call); else None."""
    (bo, ro), (bg, rg) = _best(series, machine, roles, n), _best(peer, machine, plans, n)
    return bo / bg if bo and bg and ro == rg else None


def _f(v, digits=0):
    return "-" if v is None or v != v else f"{v:.{digits}f}"


def _rev_at(series, key, n):
    df = series.get(key)
    if df is None or "git_rev" not in df.columns:
        return None
    d = df[df["nn"] == n]
    return str(d["git_rev"].iloc[-1]) if len(d) else None


def plain_rows(name):
    """Every ok row of results/*/NAME (nbrlab's schema: salt.csv, rumd_first.csv), with machine,
    file, nn, us (us/step), ns (ns per atom-step); None when there is none."""
    import pandas as pd
    frames = []
    for m in machines():
        df = nbrcsv.read_optional(os.path.join(figdata.results_dir(), m, name),
                                  need=["tag", "variant", "n", "us_per_step", "us_per_atom_step", "status"],
                                  numeric=["n", "us_per_step", "us_per_atom_step"])
        if df is None or df.empty:
            continue
        df = df[text(df, "status") == "ok"].copy()
        df["machine"], df["file"] = m, name
        df["nn"], df["us"], df["ns"] = num(df, "n"), num(df, "us_per_step"), 1e3 * num(df, "us_per_atom_step")
        frames.append(df)
    return pd.concat(frames, ignore_index=True) if frames else None


def best_rumd(s6, first, m, n):
    """The fastest gpu-rumd row at N on machine m, of Fig. 6's (r6-rumd-auto/-default) and the
    first sweep's (rumd_first.csv): (us/step, where, revision) or None."""
    cands = []
    for c in ("rumd-auto", "rumd-default"):
        v = _tps_at(s6, (m, c), n)
        if v:
            cands.append((1e6 / v, f"rumd_fig6.csv r6-{c}", _rev_at(s6, (m, c), n)))
    if first is not None:
        d = first[(first.machine == m) & (first.nn == n) & (text(first, "variant") == "gpu-rumd")]
        for r in d.itertuples():
            cands.append((r.us, f"rumd_first.csv {r.tag}", r.git_rev))
    return min(cands, key=lambda c: c[0]) if cands else None


def section(outmd):
    """The REPORT.md section (markdown): figures, Fig. 6 as a table beside gamdpy and the published
    numbers, the issue's targets, Fig. 7's ratios and Table 2. Every number from a CSV row."""
    s6 = ours("rumd_fig6.csv", "r6-", [c for c, _ in FIG6_CODES])
    s7 = ours("rumd_fig7.csv", "r7-", [r for r, _ in FIG7_ROLES])
    gd = gamdpy_rows()
    pub = {}
    for r in published():
        pub.setdefault((r["code"], r["plan"], r["source"]), {})[int(r["N"])] = float(r["tps"])
    out = ["## Bailey et al. 2017 (RUMD): TPS against N, its optimisations and autotuner, gamdpy beside (issue 11)", "",
           "*This section: `plots/rumd.py` from `results/*/rumd_fig6|fig7|rapaport.csv` (runs/rumd_figs.sh), "
           "`results/*/rumd_gamdpy.csv` (runs/gamdpy_bench.py, in the same device call: runs/device/gamdpy.sh) and "
           "`reference/rumd/` (published numbers with their sources; the RUMD paper's text gives no TPS values).*", ""]
    out += figdata.fig_links(outmd, FIGS)
    first, salt = plain_rows("rumd_first.csv"), plain_rows("salt.csv")
    ms = sorted({m for m, _ in list(s6) + list(gd)})
    if not ms:
        out += ["**No rows yet**: `runs/device/gamdpy.sh` and `runs/rumd_figs.sh` on the GPU machine write them.", ""]
    for m in ms:
        ns = sorted({int(n) for (mm, _), df in list(s6.items()) + list(gd.items()) if mm == m for n in df["nn"]})
        out += [f"Fig. 6 on {m} (lammps-lj, float; TPS, time steps per second), beside published RTX 4090 numbers:", "",
                "| N | gpu-rumd autotuned | gpu-rumd defaults | gpu-layer | gpu-old | gpu-onchip (tier) "
                "| gpu-onchip autotuned (tier) | gamdpy default | gamdpy autotuned "
                "| ours / gamdpy (best of each) | gamdpy autotuned, RTX 4090 (published) | RUMD 3.6, RTX 4090 (issue 11) |",
                "|---|---|---|---|---|---|---|---|---|---|---|---|"]
        rev_o, rev_g = set(), set()
        codes = ("rumd-auto", "rumd-default", "layer", "old", "onchip", "onchip-auto")
        for n in ns:
            o = [_tps_at(s6, (m, c), n) for c in codes]
            g = [_tps_at(gd, (m, p), n) for p in ("default", "autotuned")]
            q = _ratio(s6, codes, gd, ("default", "autotuned"), m, n)
            ratio = f"{q:.2f}" if q else ("other call" if any(o) and any(g) else "-")
            out.append(f"| {n} | " + " | ".join(_cell(s6, (m, c), n) for c in codes) + " | " +
                       " | ".join(_f(v) for v in g) +
                       f" | {ratio} | "
                       f"{_f(pub.get(('gamdpy', 'autotuned', 'gamdpy-readme'), {}).get(n))} | "
                       f"{_f(pub.get(('rumd-3.6', 'autotuned', 'issue11-quote'), {}).get(n))} |")
            rev_o |= {r for c in codes for r in [_rev_at(s6, (m, c), n)] if r}
            rev_g |= {r for p in ("default", "autotuned") for r in [_rev_at(gd, (m, p), n)] if r}
        out += ["", f"Revisions: ours {figdata.revs_text(rev_o)}; gamdpy's rows {figdata.revs_text(rev_g)}. "
                "\"other call\": gamdpy's row and ours come from different device calls, so no ratio is taken; "
                "gamdpy's own call, with our rows of that call, is the table below.", ""]
        out += onchip_section(s6, m)
        unknown = [df for (mm, _), df in gd.items() if mm == m and (text(df, "git_rev") == "unknown").any()]
        if unknown:
            ts = sorted(str(t) for df in unknown for t in df["timestamp"])
            out += [f"gamdpy's rows on {m} name revision \"unknown\" (timestamps {ts[0]} .. {ts[-1]}): "
                    "runs/gamdpy_bench.py asked git, and the tree had travelled to the GPU machine without .git "
                    "(it now reads the .git-rev that runs/stamp_rev.sh writes, as the Makefile does). They were "
                    "measured in the same device call as the rows beside them (runs/device/gamdpy.sh: runs/rumd_figs.sh, "
                    "then gamdpy).", ""]
        # gamdpy beside our rows of its own device call (runs/device/gamdpy.sh: rumd_gamdpy_ours.csv)
        sc = {k: v for k, v in ours("rumd_gamdpy_ours.csv", "r6-", [c for c, _ in FIG6_CODES]).items() if k[0] == m}
        same = []
        for n in sorted({int(n) for (mm, _), df in gd.items() if mm == m for n in df["nn"]}):
            oc = ("rumd-auto", "rumd-default", "layer", "onchip", "onchip-auto")
            o = [_cell(sc, (m, c), n) for c in oc]
            g = [_tps_at(gd, (m, p), n) for p in ("default", "autotuned")]
            revs = {r for c in oc for r in [_rev_at(sc, (m, c), n)] if r}
            grev = {r for p in ("default", "autotuned") for r in [_rev_at(gd, (m, p), n)] if r}
            q = _ratio(sc, oc, gd, ("default", "autotuned"), m, n)
            same.append((n, o, g, q, ", ".join(sorted(revs | grev))))
        if any(r[3] for r in same):
            out += [f"gamdpy 0.8.3 beside nbrlab in one device call on {m} (runs/device/gamdpy.sh; lammps-lj, float, "
                    "the same lattice start; TPS; ours / gamdpy is the best of each; gamdpy's autotuner, which "
                    "recompiles for every trial, was not run):", "",
                    md_table(["N", "gpu-rumd autotuned", "gpu-rumd defaults", "gpu-layer", "gpu-onchip (tier)",
                              "gpu-onchip autotuned (tier)", "gamdpy default", "gamdpy autotuned", "ours / gamdpy",
                              "revision"],
                             [[n] + o + [_f(v) for v in g] + [f"{q:.2f}" if q else "-", rv]
                              for n, o, g, q, rv in same]), ""]
        # the targets, from the best gpu-rumd row at the size
        tg = []
        for n, what, bound in ((1048576, "ns/atom-step", 0.30), (4096, "us/step", 8.0), (512, "us/step", 6.0)):
            b = best_rumd(s6, first, m, n)
            if not b:
                tg.append(f"| lammps-lj, N = {n} | <= {bound} {what} | - | not measured | | |")
                continue
            x = 1e3 * b[0] / n if what == "ns/atom-step" else b[0]
            tg.append(f"| lammps-lj, N = {n} | <= {bound} {what} | {x:.3g} | {'met' if x <= bound else 'missed'} | "
                      f"{b[1]} | {b[2]} |")
        sr = salt[(salt.machine == m) & (text(salt, "variant") == "gpu-rumd")] if salt is not None else None
        if sr is not None and not sr.empty:
            r = sr.sort_values("ns").iloc[0]
            tg.append(f"| salt, N = {int(r.nn)} | <= 1.0 ns/atom-step | {r.ns:.3g} ({r.us:.0f} us/step) | "
                      f"{'met' if r.ns <= 1.0 else 'missed'} | salt.csv {r.tag} | {r.git_rev} |")
        else:
            tg.append("| salt, N = 1000000 | <= 1.0 ns/atom-step | - | not measured | | |")
        qs = [(n, q) for n, _, _, q, _ in same if q]
        if qs:
            worst = min(qs, key=lambda t: t[1])
            tg.append(f"| lammps-lj, every N with a gamdpy row ({', '.join(str(n) for n, _ in qs)}) | faster than "
                      f"gamdpy, same call | ours / gamdpy {worst[1]:.2f} at N = {worst[0]} (the least) | "
                      f"{'met' if worst[1] > 1 else 'missed'} (gamdpy's default plan only; 512 ... 4M asked) | "
                      f"rumd_gamdpy.csv, rumd_gamdpy_ours.csv | {same[0][4]} |")
        out += ["Issue 11's targets (gpu-rumd, the fastest of its rows at the size: Fig. 6's autotuned and defaults, "
                "and the first sweep's list / t_p variations):", "",
                "| system, size | target | measured | | row | revision |", "|---|---|---|---|---|---|"] + tg + [""]
        if salt is not None and (salt.machine == m).any():
            out += [f"The molten salt on {m} (RUMD's Table 4 system; runs/device/all.sh, float, graphs on, the decisions "
                    "on the device):", "", md_table(["program", "N", "us/step", "ns/atom-step", "tag", "revision"],
                    [[r.variant, int(r.nn), f"{r.us:.0f}", f"{r.ns:.3g}", r.tag, r.git_rev]
                     for r in salt[salt.machine == m].sort_values("_line").itertuples()]), ""]
        if first is not None and (first.machine == m).any():
            f1 = first[first.machine == m]
            body = []
            for (n, v), g in f1.groupby(["nn", "variant"], sort=True):
                r = g.sort_values("us").iloc[0]
                body.append([int(n), v, r.tag, f"{r.us:.1f}", f"{1e6 / r.us:.0f}", r.git_rev])
            out += [f"gpu-rumd's first sweep on {m} (rumd_first.csv, lammps-lj, float; the fastest row of each program "
                    "and N, of the list method / t_p variations and the autotuner; rumd-first/ holds the logs):", "",
                    md_table(["N", "program", "fastest tag", "us/step", "TPS", "revision"], body), ""]
    if s7:
        out += ["Fig. 7: full / disabled (paper: read-only cache ~1.4, prefetch ~1.1 at large N, t_p = 1 hurts below 10^4):",
                "", "| machine | N | full TPS | full / t_p 1 | full / no read-only cache | full / no prefetch |",
                "|---|---|---|---|---|---|"]
        for m in sorted({m for m, _ in s7}):
            full = s7.get((m, "full"))
            if full is None:
                continue
            for n in full["nn"]:
                f = _tps_at(s7, (m, "full"), n)
                r = [_tps_at(s7, (m, k), n) for k in ("tp1", "plain", "nopf")]
                out.append(f"| {m} | {int(n)} | {_f(f)} | " + " | ".join(f"{f / x:.2f}" if x else "-" for x in r) + " |")
        out.append("")
    out += rapaport_states()
    out += [table2(s6)]
    return "\n".join(out)


def onchip_section(s6, m):
    """Where each gpu-onchip tier stops paying on machine m: per N the faster gpu-onchip row, the
    tier it ran, the fastest other nbrlab code and the ratio; then per tier the largest N it won."""
    p = onchip_points(s6, m)
    if p.empty:
        return []
    rows = [[int(r.nn), r.code, r.tier or "-", _f(r.tps), r.other if isinstance(r.other, str) else "-",
             _f(r.other_tps), _f(r.gain, 2)] for r in p.itertuples()]
    pays = tier_pays(s6, m)
    ran = {t: (int(g["nn"].min()), int(g["nn"].max())) for t, g in p.groupby("tier") if t not in ("", "-")}
    note = "; ".join(f"{t}: ran at N = {lo} ... {hi}, " + (f"fastest up to N = {pays[t]}" if t in pays else "never the fastest")
                     for t, (lo, hi) in sorted(ran.items()))
    return [f"gpu-onchip's tiers on {m} (Fig. 6's rows: the faster of gpu-onchip and gpu-onchip autotuned at each N, "
            "the tier that ran from the row's tier column, against the fastest other nbrlab code at that N; "
            "gain < 1: the tier no longer pays):", "",
            md_table(["N", "gpu-onchip row", "tier", "TPS", "fastest other", "its TPS", "gain"], rows), "",
            f"Per tier: {note or 'no tier named in the rows'}.", ""]


def rapaport_states():
    """Rapaport's SP and LJ through gpu-rumd and gpu-layer: the state each protocol reached (measured T,
    E/N, P, steps per rebuild of the newest row per role and N), the rescaled equilibration (tags -eqK-)
    beside the rows that melted the lattice unrescaled (no -eq), which were not Rapaport's state points."""
    out = []
    for m in machines():
        df = nbrcsv.read_optional(os.path.join(figdata.results_dir(), m, "rumd_rapaport.csv"),
                                  need=["tag", "n", "system", "status"], numeric=["n"])
        if df is None or df.empty:
            continue
        df = df[(text(df, "status") == "ok") & text(df, "tag").str.startswith("r8-")].copy()
        df["role"] = text(df, "tag").str.extract(r"^r8-(rumd-auto|rumd-default|layer)-", expand=False)
        df["protocol"] = text(df, "tag").str.extract(r"-(eq\d+)-", expand=False).fillna("none")
        df = df[df["role"].notna()]
        for c in ("n", "temp", "temp_measured", "e_end", "pressure", "steps_per_rebuild", "us_per_step"):
            df[c] = num(df, c)
        rows = []
        for (sysname, proto, n, role), g in df.groupby(["system", "protocol", "n", "role"], sort=True):
            r = g.iloc[-1]
            rows.append([sysname, proto, int(n), role, _f(r.temp, 1), _f(r.temp_measured, 3), _f(r.e_end, 3),
                         _f(r.pressure, 3), _f(r.steps_per_rebuild, 1), _f(1e6 / r.us_per_step), r.git_rev])
        if rows:
            out += [f"Rapaport's systems on {m} (rumd_rapaport.csv; sc lattice start; equilibration `eqK`: K steps "
                    "rescaled every 20 towards `temp`, `none`: the older rows that melted the lattice unrescaled, "
                    "which reached another state; T measured over the timed part):", "",
                    md_table(["system", "equilibration", "N", "program", "temp", "T measured", "E/N", "P",
                              "steps/rebuild", "TPS", "revision"], rows), ""]
            for sysname, g in df.groupby("system"):
                span = {p: f"E/N {g[g.protocol == p].e_end.min():.3f} .. {g[g.protocol == p].e_end.max():.3f}, "
                           f"P {g[g.protocol == p].pressure.min():.3f} .. {g[g.protocol == p].pressure.max():.3f}"
                        for p in sorted(set(g.protocol))}
                out.append(f"- {sysname}: " + "; ".join(f"{p}: {v}" for p, v in span.items()) + ".")
            out.append("")
    return out


def gnuplot(datadir, outdir):
    """The same Fig. 6 (raw and bandwidth-scaled) and Fig. 7 ratios for gnuplot: one data file per
    series under DATADIR/rumd/ and DATADIR/rumd/rumd.gp, which draws OUTDIR/rumd_fig6.png|svg and
    OUTDIR/rumd_fig7.png|svg (plots/all.sh runs it where gnuplot is installed)."""
    d = os.path.join(datadir, "rumd")
    os.makedirs(d, exist_ok=True)
    os.makedirs(outdir, exist_ok=True)
    bws = bandwidths()
    s6 = ours("rumd_fig6.csv", "r6-", [c for c, _ in FIG6_CODES])
    s7 = ours("rumd_fig7.csv", "r7-", [r for r, _ in FIG7_ROLES])
    gd = gamdpy_rows()
    ref_gpu, ref_bw = "H200", bws.get("H200", 4800.0)
    raw, scaled, ratio = [], [], []

    def dump(name, pts):
        path = os.path.join(d, name + ".dat")
        with open(path, "w") as f:
            f.writelines(f"{x:g} {y:g}\n" for x, y in pts)
        return path

    k = 0
    for (m, code), df in sorted(s6.items()):
        k += 1
        p = dump(f"s6_{k}", zip(df["nn"], df["tps"]))
        for lst in (raw, scaled):
            lst.append(f"'{p}' w lp pt 7 ps 0.6 lw 2 t \"{dict(FIG6_CODES)[code]} ({m})\"")
        if code in ONCHIP:   # a point per tier that ran over gpu-onchip's line
            for t, pt in TIER_PT.items():
                dt = df[text(df, "tier") == t]   # (d is the data folder)
                if len(dt):
                    k += 1
                    p = dump(f"s6_{k}", zip(dt["nn"], dt["tps"]))
                    for lst in (raw, scaled):
                        lst.append(f"'{p}' w p pt {pt} ps 1.3 lc rgb 'black' t \"{code}: tier {t} ({m})\"")
    for (m, plan), df in sorted(gd.items()):
        k += 1
        p = dump(f"g_{k}", zip(df["nn"], df["tps"]))
        for lst in (raw, scaled):
            lst.append(f"'{p}' w lp pt 5 ps 0.6 dt 2 lw 2 t \"gamdpy 0.8.3 {plan} ({m})\"")
    ser = {}
    for r in published():
        ser.setdefault((r["code"], r["gpu"], r["plan"], r["source"]), []).append((float(r["N"]), float(r["tps"])))
    for (code, gpu, plan, src), pts in sorted(ser.items()):
        k += 1
        pts.sort()
        style = "w p pt 12 ps 1.2" if src == "issue11-quote" else "w lp pt 6 ps 0.6 dt 3 lc rgb 'grey40'"
        p = dump(f"p_{k}", pts)
        raw.append(f"'{p}' {style} t \"published: {code} {plan}, {gpu} [{src}]\"")
        if gpu in bws:
            ps = dump(f"ps_{k}", [(x, y * ref_bw / bws[gpu]) for x, y in pts])
            scaled.append(f"'{ps}' {style} t \"published {code} {plan}, {gpu} x {ref_bw:.0f}/{bws[gpu]:.0f} GB/s\"")
    for m in sorted({m for m, _ in s7}):
        full = s7.get((m, "full"))
        for role, lab in FIG7_ROLES[1:]:
            df = s7.get((m, role))
            if full is None or df is None:
                continue
            j = full.merge(df, on="nn", suffixes=("_f", "_d"))
            k += 1
            p = dump(f"r7_{k}", zip(j["nn"], j["tps_f"] / j["tps_d"]))
            ratio.append(f"'{p}' w lp pt 7 ps 0.6 lw 2 t \"full / {lab} ({m})\"")
    none = "1/0 notitle"
    gp = [f"set datafile separator whitespace", "set logscale x", "set grid", "set key bottom left font ',8'"]
    for ext, term in (("png", "pngcairo size 1500,560"), ("svg", "svg size 1500,560")):
        gp += [f"set terminal {term}", f"set output '{os.path.join(outdir, 'rumd_fig6.' + ext)}'",
               "set multiplot layout 1,2", "set logscale y", "set xlabel 'N (atoms)'", "set ylabel 'TPS'",
               "set title 'Fig. 6: lammps-lj, float - measured and published, raw' font ',10'",
               "plot " + (", ".join(raw) or none),
               f"set title 'published TPS scaled by memory bandwidth to the {ref_gpu} ({ref_bw:.0f} GB/s): "
               "assumes bandwidth-bound' font ',10'",
               "plot " + (", ".join(scaled) or none), "unset multiplot",
               f"set terminal {term.replace('1500,560', '900,500')}",
               f"set output '{os.path.join(outdir, 'rumd_fig7.' + ext)}'", "unset logscale y",
               "set ylabel 'TPS full / TPS disabled'",
               "set title 'Fig. 7: gpu-rumd, one optimisation disabled (paper: cache ~1.4, prefetch ~1.1)' font ',10'",
               "plot " + (", ".join(ratio + ["1.4 w l dt 2 lc rgb 'grey' t \"paper: read-only cache ~40%\"",
                                             "1.1 w l dt 3 lc rgb 'grey' t \"paper: prefetch ~10% at large N\""]))]
    with open(os.path.join(d, "rumd.gp"), "w") as f:
        f.write("\n".join(gp) + "\n")
    return os.path.join(d, "rumd.gp")


def main(argv):
    if len(argv) == 2 and argv[0] == "--figures":
        draw(argv[1])
    elif len(argv) == 3 and argv[0] == "--gnuplot":
        print(gnuplot(argv[1], argv[2]))
    elif len(argv) == 2 and argv[0] == "--section":
        print(section(argv[1]))
    elif argv == ["--table2"]:
        sys.stdout.write(table2())
    else:
        sys.stderr.write(__doc__)
        return 2
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv[1:]))
    except nbrcsv.CsvError as e:
        sys.exit(f"rumd.py: {e}")
