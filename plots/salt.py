"""salt.py - RUMD's molten salt on a CPU (Bailey et al. 2017, Table 4; issue 12 item 5): MATS
against N for nbrlab's CPU variants beside LAMMPS, from results/*/salt_mats.csv (runs/salt_mats.sh).

    salt.py --figures OUTDIR    draw salt_mats (MATS against N; each series over LAMMPS on one core)
    salt.py --section OUT.md    print the report section (figure linked from OUT.md's folder)

MATS = million atom-steps per second = 1 / us_per_atom_step (production timing: nbrlab's median
of its averaging blocks, LAMMPS's Loop time over the timed steps). Per (machine, series, N) the
newest ok row of the revision measured last is used. The physics check compares the salt-check-*
pair (nbrlab cpu-pairlist double and LAMMPS, one core, N 4096): T from nbrlab's blocks
(logs/<tag>.blocks.csv) and LAMMPS's thermo lines cut into as many blocks, P from the rows
(production means; its spread from LAMMPS's blocks), neighbours per atom from the rows.
A file that does not exist is a figure and a section that say so, never an error.
"""
import math
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import figdata  # noqa: E402
import nbrcsv  # noqa: E402
from figdata import md_table  # noqa: E402
from nbrcsv import num, text  # noqa: E402

NAME = "salt_mats.csv"
FIGS = ["salt_mats"]
VARIANTS = ["cpu-pairlist", "cpu-grouped", "cpu-full", "cpu-layer", "cpu-cells"]


def machines():
    d = figdata.results_dir()
    return sorted(m for m in os.listdir(d) if os.path.isfile(os.path.join(d, m, NAME))) if os.path.isdir(d) else []


def rows(m):
    """The ok rows of results/m/salt_mats.csv, with series (variant precision, or LAMMPS's) and mats."""
    df = nbrcsv.read_optional(os.path.join(figdata.results_dir(), m, NAME),
                              need=["tag", "variant", "precision", "n", "us_per_atom_step", "status", "git_rev"],
                              numeric=["n", "us_per_atom_step"])
    if df is None or df.empty:
        return None
    df = df[text(df, "status") == "ok"].copy()
    df["nn"] = num(df, "n")
    df["mats"] = 1.0 / num(df, "us_per_atom_step")
    v, p = text(df, "variant"), text(df, "precision")
    df["series"] = v.where(v.str.startswith("lammps"), v + " " + p)
    df["check"] = text(df, "tag").str.startswith("salt-check-")
    return df


def series_label(s):
    if s == "lammps":
        return "LAMMPS, 1 core"
    m = re.match(r"lammps-mpi(\d+)$", s)
    return f"LAMMPS, {m.group(1)} MPI processes" if m else s


def mats_table(df):
    """{series: {n: (mats, rev)}}: the newest ok row per series and N (the check rows left out)."""
    out = {}
    d = df[~df["check"]].sort_values("_line")
    for (s, n), g in d.groupby(["series", "nn"]):
        r = g.iloc[-1]
        out.setdefault(s, {})[int(n)] = (float(r["mats"]), str(r["git_rev"]))
    return out


def order(series):
    def key(s):
        if s.startswith("lammps"):
            return (2, s)
        v, _, p = s.partition(" ")
        return (0 if p == "double" else 1, VARIANTS.index(v) if v in VARIANTS else 99, s)
    return sorted(series, key=key)


def draw(outdir):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    os.makedirs(outdir, exist_ok=True)
    ms = machines()
    fig, axes = plt.subplots(1, 2, figsize=(13, 5.2))
    if not ms:
        for ax in axes:
            ax.text(0.5, 0.5, "no rows yet: runs/salt_mats.sh", ha="center", va="center", transform=ax.transAxes)
        figdata.save_figure(fig, outdir, "salt_mats")
        return
    m = ms[0]
    t = mats_table(rows(m))
    pal = {v: c for v, c in zip(VARIANTS, figdata.PALETTE)}
    base = t.get("lammps", {})
    for s in order(t):
        ns = sorted(t[s])
        y = [t[s][n][0] for n in ns]
        if s.startswith("lammps"):
            st = dict(color="black", ls="-" if s == "lammps" else "--", marker="s", lw=2)
        else:
            v, _, p = s.partition(" ")
            st = dict(color=pal.get(v, "#7f7f7f"), ls="-" if p == "double" else ":", marker="o" if p == "double" else "^")
        axes[0].plot(ns, y, label=series_label(s), **st)
        r = [(n, t[s][n][0] / base[n][0]) for n in ns if n in base]
        if r:
            axes[1].plot([a for a, _ in r], [b for _, b in r], label=series_label(s), **st)
    axes[0].set_ylabel("MATS (million atom-steps / s)")
    axes[0].set_ylim(bottom=0)
    axes[0].set_title(f"Molten salt (r_c 6, ~420 neighbours), {m}, one core unless stated")
    axes[1].axhline(1.0, color="grey", lw=0.8)
    axes[1].set_ylabel("MATS / LAMMPS on one core")
    axes[1].set_title("over LAMMPS (lj/cut/coul/dsf, 1 core)")
    for ax in axes:
        ax.set_xscale("log")
        ax.set_xlabel("N")
        ax.grid(True, which="both", alpha=0.3)
    axes[0].legend(fontsize=7, ncol=2)
    figdata.save_figure(fig, outdir, "salt_mats")


def _blocks(vals, k):
    """Means of k equal consecutive blocks of vals."""
    n = len(vals) // k
    return [sum(vals[i * n:(i + 1) * n]) / n for i in range(k)] if n else []


def _mse(xs):
    m = sum(xs) / len(xs)
    se = math.sqrt(sum((x - m) ** 2 for x in xs) / (len(xs) - 1) / len(xs)) if len(xs) > 1 else float("nan")
    return m, se


def lammps_thermo(log):
    """The timed run's thermo lines of a LAMMPS log: [(step, {column: value})]."""
    with open(log) as f:
        lines = f.read().split("\n")
    loops = [k for k, l in enumerate(lines) if l.startswith("Loop time of ")]
    if len(loops) < 2:
        return []
    head = max(k for k in range(loops[-2], loops[-1]) if lines[k].split()[:1] == ["Step"])
    names = lines[head].split()
    out = []
    for l in lines[head + 1:loops[-1]]:
        f = l.split()
        if len(f) == len(names):
            try:
                vals = dict(zip(names, map(float, f)))
            except ValueError:
                continue
            if vals["Step"] > 0:
                out.append(vals)
    return out


def check(m, df):
    """Markdown lines: T, P and neighbours of the salt-check pair, agreement within 3 standard
    errors of the difference."""
    d = df[df["check"]].sort_values("_line")
    nb = d[~text(d, "variant").str.startswith("lammps")]
    lm = d[text(d, "variant") == "lammps"]
    if nb.empty or lm.empty:
        return ["*No physics check rows (salt-check-*) yet: runs/salt_mats.sh with CHECK=1.*", ""]
    a, b = nb.iloc[-1], lm.iloc[-1]
    logs = os.path.join(figdata.results_dir(), m, "logs")
    bpath, lpath = os.path.join(logs, a["tag"] + ".blocks.csv"), os.path.join(logs, b["tag"] + ".log")
    if not (os.path.exists(bpath) and os.path.exists(lpath)):
        return [f"*The check's logs ({os.path.basename(bpath)}, {os.path.basename(lpath)}) are missing.*", ""]
    bl = nbrcsv.read(bpath, need=["timed_steps", "temp_mean"], numeric=["timed_steps", "temp_mean"])
    tn = [float(x) for x, ts in zip(num(bl, "temp_mean"), num(bl, "timed_steps")) if ts > 0]
    th = lammps_thermo(lpath)
    k = max(len(tn), 2)
    tl = _blocks([r["Temp"] for r in th], k)
    pl = _blocks([r["Press"] for r in th], k)
    out = [f"Physics check, N = {int(a['nn'])} (nbrlab {a['variant']} {a['precision']}, tag {a['tag']}, "
           f"{int(float(a['steps'])) - int(float(a['equil']))} NVE steps after {int(float(a['equil']))} rescaled ones; "
           f"LAMMPS the same lengths, its own velocities). Means over {k} blocks, +- their standard error; "
           "agree = difference within 3 standard errors of the difference:", ""]
    body = []

    def verdict(x, y, se):
        z = (x - y) / se if se and se == se and se > 0 else float("nan")
        return f"{z:.2f}", ("agree" if abs(z) <= 3 else "DIFFER") if z == z else "-"
    if len(tn) >= 2 and len(tl) >= 2:
        mn, sn = _mse(tn)
        ml, sl = _mse(tl)
        body.append(["T (block means)", f"{mn:.4f} +- {sn:.2g}", f"{ml:.4f} +- {sl:.2g}",
                     *verdict(mn, ml, math.hypot(sn, sl))])
    if len(pl) >= 2:
        ml, sl = _mse(pl)
        pn, pr = float(a["pressure"]), float(b["pressure"])
        body.append(["P (production mean; se: LAMMPS's blocks, taken for both)", f"{pn:.4f}",
                     f"{pr:.4f} (blocks {ml:.4f} +- {sl:.2g})", *verdict(pn, pr, math.sqrt(2) * sl)])
    body.append(["neighbours per atom within r_c + skin (full list)", f"{float(a['nbr_per_atom']):.2f} (mean)",
                 f"{float(b['nbr_per_atom']):.2f} (2 x half list, end of run)", "-", "same count"])
    body.append(["relative energy drift over the timed steps", f"{float(a['drift']):.2g}", f"{float(b['drift']):.2g}",
                 "-", "both conserve" if max(abs(float(a['drift'])), abs(float(b['drift']))) < 1e-3 else "check"])
    out += [md_table(["quantity", "nbrlab", "LAMMPS", "difference / se", "verdict"], body), ""]
    out += ["Energies themselves are not compared: LAMMPS's `coul/dsf` pair energy is q_i q_j (1/r - 1/r_c + r/r_c^2), "
            "shifted-force Coulomb's is q_i q_j (1/r - 1/r_c + (r - r_c)/r_c^2), and LAMMPS adds a self energy "
            "-q_i^2/(2 r_c) per atom; the forces are the same definition (results/cpu-amd-epyc/salt_lammps.md). "
            "nbrlab's U and forces are checked against its O(N^2) reference in the tests.", ""]
    return out


def section(outmd):
    out = ["## RUMD's molten salt on the CPU: MATS against N beside LAMMPS (issue 12, item 5)", "",
           "*This section: `plots/salt.py` from `results/*/salt_mats.csv` (runs/salt_mats.sh; LAMMPS rows "
           "through runs/lmp_variant.sh and runs/lammps_row.py, input reference/lammps/in.salt).*", ""]
    out += figdata.fig_links(outmd, FIGS)
    ms = machines()
    if not ms:
        return "\n".join(out + ["**No rows yet**: runs/salt_mats.sh writes them.", ""])
    st = {}
    try:
        import rumd
        st = rumd.statements()
    except (ImportError, OSError):
        pass
    for m in ms:
        df = rows(m)
        if df is None or df.empty:
            continue
        t = mats_table(df)
        ser = order(t)
        ns = sorted({n for s in ser for n in t[s]})
        revs = sorted({r for s in ser for _, r in t[s].values()})
        dev = str(df["device"].iloc[-1]) if "device" in df.columns else m
        out += [f"{m} ({dev}; revision {figdata.revs_text(set(revs))}): MATS (million atom-steps per second; one "
                "core unless stated; nbrlab's CPU programs have one thread, the Debian LAMMPS has no OPENMP package, "
                "so its 2-core rows are MPI domains). LJ + shifted-force Coulomb, charges +-1, rho 0.3677, T 2, "
                "r_c 6, skin 0.5, dt 0.004, from the rock-salt lattice after 20 rescaled steps; about 1.5 million "
                "timed atom-steps per point (at least 24 steps).", ""]
        body = [[series_label(s)] + [f"{t[s][n][0]:.3f}" if n in t[s] else "-" for n in ns] for s in ser]
        out += [md_table(["series"] + [f"N = {n}" for n in ns], body), ""]
        nb = [s for s in ser if not s.startswith("lammps")]
        best = {n: max(((t[s][n][0], s) for s in nb if n in t[s]), default=None) for n in ns}
        l1, l2 = t.get("lammps", {}), {}
        mp = [s for s in ser if s.startswith("lammps-mpi")]
        if mp:
            l2 = t[mp[0]]
        rbody = []
        for n in ns:
            b = best[n]
            if not b:
                continue
            rbody.append([n, f"{b[1]} {b[0]:.3f}",
                          f"{b[0] / l1[n][0]:.2f}" if n in l1 else "-",
                          f"{b[0] / l2[n][0]:.2f}" if n in l2 else "-",
                          f"{l2[n][0] / l1[n][0]:.2f}" if n in l1 and n in l2 else "-"])
        out += ["The fastest nbrlab series at each N over LAMMPS:", "",
                md_table(["N", "fastest nbrlab (MATS)", "over LAMMPS 1 core", f"over {series_label(mp[0]) if mp else 'LAMMPS MPI'}",
                          "LAMMPS MPI / 1 core"], rbody), ""]
        # plain verdicts
        q = st.get("t4_salt", {}).get("sentence", "The smallest speed-up of RUMD over LAMMPS is here a factor of two.")
        r1 = [float(r[2]) for r in rbody if r[2] != "-"]
        r2 = [float(r[3]) for r in rbody if r[3] != "-"]
        v = [f"RUMD's paper (Table 4, RUMD on a GTX 780 Ti against CPU LAMMPS on a 36-core Xeon server): \"{q}\" "
             "That is a GPU against a CPU server and says nothing about two CPU codes; what this CPU can answer is "
             "how nbrlab's CPU programs stand against LAMMPS on the same cores and system."]
        if r1:
            v.append(f"nbrlab's fastest CPU program against LAMMPS on one core: {min(r1):.2f}-{max(r1):.2f}x over "
                     f"N = {ns[0]}..{ns[-1]} ({'faster at every N' if min(r1) > 1 else 'not faster at every N'}; "
                     f"{'at least 2x at every N' if min(r1) >= 2 else 'not 2x at every N'}).")
        if r2:
            v.append(f"Against LAMMPS on both cores (MPI), nbrlab on one core: {min(r2):.2f}-{max(r2):.2f}x "
                     f"({'still faster' if min(r2) > 1 else 'LAMMPS ahead at some N' if max(r2) > 1 else 'LAMMPS ahead'}).")
        out += ["**Verdicts.** " + " ".join(v), ""]
        out += check(m, df)
    return "\n".join(out)


if __name__ == "__main__":
    figdata.section_main("salt.py", draw, section, sys.argv[1:])
