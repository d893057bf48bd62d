"""salt.py - RUMD's molten salt on a CPU (Bailey et al. 2017, Table 4; issue 12 item 5): MATS
against N for nbrlab's CPU variants beside LAMMPS, from results/*/salt_mats.csv (runs/salt_mats.sh).

    salt.py --figures OUTDIR    draw salt_mats (MATS against N; each series over LAMMPS on one core)
    salt.py --section OUT.md    print the report section (figure linked from OUT.md's folder)

MATS = million atom-steps per second = 1 / us_per_atom_step (production timing: nbrlab's median
of its averaging blocks, LAMMPS's Loop time over the timed steps). Per (machine, series, N) the
newest ok row of the revision measured last is used. The physics check compares the salt-check-*
runs (nbrlab cpu-pairlist double and LAMMPS, one core, N 4096, one run per seed): T from nbrlab's
blocks (logs/<tag>.blocks.csv) and LAMMPS's thermo lines (logs/<tag>.log), P from the rows, the
codes' means against their seed-to-seed spread.
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
    return figdata.machines_with(NAME)


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
    """{series: {n: (mats, rev, runs)}}: per series and N the median MATS of the ok rows of the
    revision measured last (repeats of one revision; the check rows left out)."""
    out = {}
    d = df[~df["check"]].sort_values("_line")
    for (s, n), g in d.groupby(["series", "nn"]):
        rev = str(g["git_rev"].iloc[-1])
        g = g[text(g, "git_rev") == rev]
        out.setdefault(s, {})[int(n)] = (float(g["mats"].median()), rev, len(g))
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


def run_values(m, r):
    """(T, P) of one check run: T the mean of nbrlab's timed blocks (logs/<tag>.blocks.csv) or of
    LAMMPS's timed thermo lines (logs/<tag>.log); P the row's production mean. None: no log."""
    logs = os.path.join(figdata.results_dir(), m, "logs")
    if str(r["variant"]).startswith("lammps"):
        path = os.path.join(logs, r["tag"] + ".log")
        if not os.path.exists(path):
            return None
        th = lammps_thermo(path)
        t = sum(x["Temp"] for x in th) / len(th) if th else float("nan")
    else:
        path = os.path.join(logs, r["tag"] + ".blocks.csv")
        if not os.path.exists(path):
            return None
        bl = nbrcsv.read(path, need=["timed_steps", "temp_mean", "steps_in_block"],
                         numeric=["timed_steps", "temp_mean", "steps_in_block"])
        tb = [(float(x), float(w)) for x, w, ts in zip(num(bl, "temp_mean"), num(bl, "steps_in_block"),
                                                       num(bl, "timed_steps")) if ts > 0]
        t = sum(x * w for x, w in tb) / sum(w for _, w in tb) if tb else float("nan")
    return t, float(r["pressure"])


def check(m, df):
    """Markdown lines: T, P and neighbours of the salt-check runs (one per seed and code), the codes'
    means compared within 3 standard errors of their difference, from the seed-to-seed spread."""
    d = df[df["check"]].sort_values("_line")
    if d.empty:
        return ["*No physics check rows (salt-check-*) yet: runs/salt_mats.sh with CHECK=1.*", ""]
    # the equilibration rule: tags salt-check-r<R>-* rescale every R steps (runs/salt_mats.sh
    # CHECK_RESCALE), the first untagged pair every 20; the group measured last is judged
    d = d.copy()
    d["grp"] = text(d, "tag").str.extract(r"^salt-check-r(\d+)-", expand=False).fillna("20")
    grp = str(d["grp"].iloc[-1])
    other = d[d["grp"] != grp]
    rev = str(d["git_rev"].iloc[-1])
    d = d[(text(d, "git_rev") == rev) & (d["grp"] == grp)]
    per = {"nbrlab": [], "LAMMPS": []}
    body, first = [], {}
    for r in d.to_dict("records"):
        code = "LAMMPS" if str(r["variant"]).startswith("lammps") else "nbrlab"
        v = run_values(m, r)
        if v is None:
            continue
        per[code].append(v)
        first.setdefault(code, r)
        body.append([code, r["tag"], r.get("seed", "-"), f"{v[0]:.4f}", f"{v[1]:.4f}", f"{float(r['nbr_per_atom']):.2f}",
                     f"{float(r['drift']):.2g}"])
    if len(per["nbrlab"]) < 2 or len(per["LAMMPS"]) < 2:
        return ["*The physics check needs at least two runs (seeds) of each code with their logs "
                "(runs/salt_mats.sh, CHECK_SEEDS).*", ""]
    a = first["nbrlab"]
    out = [f"Physics check, N = {int(a['nn'])}, revision {rev}: nbrlab {a['variant']} {a['precision']} and LAMMPS on one "
           f"core, {int(float(a['steps'])) - int(float(a['equil']))} NVE steps after {int(float(a['equil']))} steps rescaled "
           f"every {grp} (nbrlab --rescale-every {grp}, LAMMPS fix temp/rescale {grp}), "
           "one run per seed (each code draws its own velocities). T: the mean over the NVE steps; P: the row's production "
           "mean; neighbours per atom within r_c + skin (nbrlab: production mean of its full list; LAMMPS: 2 x its half "
           "list at the end); drift: relative change of E/N over the NVE steps. Where the rescaling stops leaves each run its "
           "own total energy and so its own mean T, so the codes are compared against the seed-to-seed spread: "
           "agree = difference of the means within 3 standard errors of that difference.", "",
           md_table(["code", "tag", "seed", "T", "P", "neighbours/atom", "drift"], body), ""]
    sm = []
    for k, name in ((0, "T"), (1, "P")):
        mn, sn = _mse([v[k] for v in per["nbrlab"]])
        ml, sl = _mse([v[k] for v in per["LAMMPS"]])
        se = math.hypot(sn, sl)
        z = (mn - ml) / se if se > 0 else float("nan")
        sm.append([name, f"{mn:.4f} +- {sn:.2g} ({len(per['nbrlab'])} runs)", f"{ml:.4f} +- {sl:.2g} ({len(per['LAMMPS'])} runs)",
                   f"{z:.2f}", "agree" if abs(z) <= 3 else "DIFFER"])
    out += [md_table(["quantity", "nbrlab mean +- se", "LAMMPS mean +- se", "difference / se", "verdict"], sm), ""]
    if not other.empty:
        ot = []
        for r in other.to_dict("records"):
            v = run_values(m, r)
            if v:
                ot.append(f"{'LAMMPS' if str(r['variant']).startswith('lammps') else 'nbrlab'} T {v[0]:.4f} P {v[1]:.4f} "
                          f"({r['tag']})")
        if ot:
            out += [f"Rescaled every {', '.join(sorted(set(other['grp'])))} steps instead, the codes do not start their NVE "
                    "runs from the same state: nbrlab scales the velocities by the kinetic energy averaged since its last "
                    "rescale (Rapaport's rule), LAMMPS's fix temp/rescale sets the instantaneous T, so the total energy "
                    "at the switch to NVE, and the NVE mean T with it, differ: " + "; ".join(ot) + ". "
                    "Rescaling every step makes the two rules the same, which is what the table above uses.", ""]
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
        revs = sorted({v[1] for s in ser for v in t[s].values()})
        runs = sorted({v[2] for s in ser for v in t[s].values()})
        dev = str(df["device"].iloc[-1]) if "device" in df.columns else m
        out += [f"{m} ({dev}; revision {figdata.revs_text(set(revs))}): MATS (million atom-steps per second; one "
                "core unless stated; nbrlab's CPU programs have one thread, the Debian LAMMPS has no OPENMP package, "
                "so its 2-core rows are MPI domains). LJ + shifted-force Coulomb, charges +-1, rho 0.3677, T 2, "
                "r_c 6, skin 0.5, dt 0.004, from the rock-salt lattice after 20 rescaled steps; about 1.5 million "
                "timed atom-steps per point (at least 24 steps), each run's figure the median of its 4 averaging blocks; "
                f"runs per point: {', '.join(map(str, runs))} (the median of them shown).", ""]
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
