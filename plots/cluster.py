"""cluster.py - the report's section on cluster pairs (Pall and Hess 2013; issue 37): cpu-cluster
per SIMD level beside cpu-grouped and cpu-pairlist, one core (results/*/cpu_cluster.csv,
runs/cpu_cluster.sh), and gpu-cluster at 1M atoms beside gpu-layer and gpu-rumd
(results/*/rumd_rapaport.csv, runs/rumd_figs.sh part rapaport).

    cluster.py --section OUT.md    print the report section

Per (machine, system, precision) the ok rows of the revision measured last, and of them per
series and N the mean (runs/cpu_cluster.sh interleaves its rounds, -rK in the tag); a series is a program, and
cpu-cluster's also its --simd level, shape and --prune buffer. The ratio is cpu-cluster's time over cpu-grouped's at the
same point: the issue's target is at most 0.5 at N >= 32 768 on SP and LJ.
A file that does not exist is a section that says so, never an error.
"""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import figdata  # noqa: E402
import nbrcsv  # noqa: E402
from figdata import md_table  # noqa: E402
from nbrcsv import num, text  # noqa: E402

CPU_CSV = "cpu_cluster.csv"
GPU_CSV = "rumd_rapaport.csv"
PROGRAMS = ["cpu-grouped", "cpu-pairlist", "cpu-cluster"]
LEVELS = ["scalar", "avx2", "avx512"]   # cpu-cluster's --simd, narrowest first
TARGET_RATIO = 0.5      # cpu-cluster over cpu-grouped, N >= TARGET_N (issue 37)
TARGET_N = 32768


def cpu_points(df):
    """{(system, precision): {series: {n: (mean us/atom-step, rows, revision)}}} from the ok rows
    of the revision that (system, precision) was measured at last."""
    df = df[text(df, "status") == "ok"].copy()
    df["nn"] = num(df, "n").astype(int)
    df["t"] = num(df, "us_per_atom_step")
    # nbrcsv spreads the knobs column; rows from before --prune have no prune column (text, num: "", NaN)
    simd, shape, prune = text(df, "simd"), text(df, "shape"), num(df, "prune").fillna(0)
    v = text(df, "variant")
    label = v + " " + simd + (" " + shape).where(shape != "", "") + \
        (" prune " + prune.map(lambda b: f"{b:g}")).where(prune > 0, "")
    df["series"] = v.where(v != "cpu-cluster", label)
    out = {}
    for (sysn, prec), h in df.groupby([text(df, "system"), text(df, "precision")]):
        # one run's rows: a ratio compares programs measured beside each other, never a series
        # left from an older revision with a newer cpu-grouped
        h = h[h["git_rev"] == h.iloc[-1]["git_rev"]]
        for (ser, n), g in h.groupby(["series", "nn"]):
            out.setdefault((sysn, prec), {}).setdefault(ser, {})[n] = (float(g["t"].mean()), len(g), g.iloc[-1]["git_rev"])
    return out


def series_order(series):
    """The atom-list programs first, then cpu-cluster from the narrowest SIMD level up."""
    def key(s):
        base, _, rest = s.partition(" ")
        level = rest.split(" ")[0]
        return (PROGRAMS.index(base) if base in PROGRAMS else len(PROGRAMS),
                LEVELS.index(level) if level in LEVELS else len(LEVELS), s)
    return sorted(series, key=key)


def ratio_rows(pts):
    """[(n, series, ratio)] for every cpu-cluster point with a cpu-grouped point at the same N."""
    grouped = pts.get("cpu-grouped", {})
    return [(n, s, t[0] / grouped[n][0]) for s, by_n in pts.items() if s.startswith("cpu-cluster")
            for n, t in sorted(by_n.items()) if n in grouped and grouped[n][0] > 0]


def cpu_part(m, df):
    out = []
    cpu = str(df["device"].iloc[-1]) if "device" in df.columns else m
    for (sysn, prec), pts in sorted(cpu_points(df).items()):
        ns = sorted({n for by_n in pts.values() for n in by_n})
        revs = sorted({t[2] for by_n in pts.values() for t in by_n.values()})
        rounds = sorted({t[1] for by_n in pts.values() for t in by_n.values()})
        ratios = {(n, s): r for n, s, r in ratio_rows(pts)}
        body = []
        for s in series_order(pts):
            cells = []
            for n in ns:
                if n not in pts[s]:
                    cells.append("-")
                    continue
                c = f"{pts[s][n][0]:.4f}"
                if (n, s) in ratios:
                    c += f" ({ratios[(n, s)]:.2f})"
                cells.append(c)
            body.append([s] + cells)
        out += [f"{m} ({cpu}; revision {figdata.revs_text(set(revs))}), {sysn} {prec}: us/atom-step, one core, "
                f"the mean of {'/'.join(map(str, rounds))} interleaved round(s); cpu-cluster over cpu-grouped in brackets.",
                "", md_table(["program"] + [f"N = {n}" for n in ns], body), ""]
        # the target holds at every N from TARGET_N up, each N with its best series
        best = {n: min(r for (m, _), r in ratios.items() if m == n) for n in ns
                if n >= TARGET_N and any(m == n for m, _ in ratios)}
        if best and sysn in ("sp", "lj"):
            met = max(best.values()) <= TARGET_RATIO
            out += [f"Target (cpu-cluster at most {TARGET_RATIO} of cpu-grouped at every N >= {TARGET_N}): best ratio "
                    + ", ".join(f"{r:.2f} at N = {n}" for n, r in sorted(best.items()))
                    + f"; {'met' if met else 'not met'}.", ""]
        out += lammps_line(pts)
    return out


def lammps_line(pts):
    """cpu-cluster's fastest series against LAMMPS at each N where both ran (the issue asks for faster)."""
    lmp = pts.get("lammps", {})
    cells = []
    for n in sorted(lmp):
        best = min(((by_n[n][0], s) for s, by_n in pts.items() if s.startswith("cpu-cluster") and n in by_n),
                   default=None)
        if best and lmp[n][0] > 0:
            cells.append(f"N = {n}: {best[0]:.4f} ({best[1]}) against {lmp[n][0]:.4f}, {best[0] / lmp[n][0]:.2f}x")
    return [f"Against LAMMPS in the same run: {'; '.join(cells)}.", ""] if cells else []


GENERIC_CSV = "generic_build.csv"   # cpu-cluster, cpu-grouped and LAMMPS from a build without -march


def generic_part(m):
    """The build without -march=native (results/<m>/generic_build.md says how it was built): the
    median per system, precision, N and program, and LAMMPS's time over cpu-cluster's."""
    df = nbrcsv.read_optional(os.path.join(figdata.results_dir(), m, GENERIC_CSV),
                              need=["variant", "system", "precision", "n", "us_per_atom_step", "status", "git_rev"],
                              numeric=["n", "us_per_atom_step"])
    if df is None or df.empty:
        return []
    df = df[text(df, "status") == "ok"]
    progs = ["cpu-cluster", "cpu-grouped", "lammps"]
    body = []
    for (sysn, prec, n), g in df.groupby([text(df, "system"), text(df, "precision"), num(df, "n").astype(int)]):
        t = {v: float(num(h, "us_per_atom_step").median()) for v, h in g.groupby(text(g, "variant"))}
        body.append([sysn, prec, n] + [f"{t[v]:.4f}" if v in t else "-" for v in progs] +
                    [f"{t['lammps'] / t['cpu-cluster']:.2f}" if {"lammps", "cpu-cluster"} <= set(t) else "-"])
    revs = set(text(df, "git_rev"))
    return [f"{m}, built without -march=native ({GENERIC_CSV}; revision {figdata.revs_text(revs)}; how: "
            f"results/{m}/generic_build.md): us/atom-step, one core, medians.", "",
            md_table(["system", "precision", "N"] + progs + ["LAMMPS / cpu-cluster"], body), ""]


def gpu_part():
    """gpu-cluster beside gpu-layer and gpu-rumd at 1M atoms, from the newest revision that ran it."""
    out = []
    for m in figdata.machines_with(GPU_CSV):
        df = nbrcsv.read_optional(os.path.join(figdata.results_dir(), m, GPU_CSV),
                                  need=["tag", "variant", "system", "n", "us_per_atom_step", "status", "git_rev"],
                                  numeric=["n", "us_per_atom_step"])
        if df is None or df.empty:
            continue
        tag = text(df, "tag")   # the driver's own points, gpu-rumd at its default plan (not autotuned)
        df = df[(text(df, "status") == "ok") & tag.str.startswith("r8-") & ~tag.str.contains("rumd-auto")]
        cl = df[text(df, "variant") == "gpu-cluster"]
        if cl.empty:
            continue
        rev = cl.iloc[-1]["git_rev"]
        df = df[df["git_rev"] == rev]
        body = []
        for sysn, g in df.groupby(text(df, "system")):
            t = {v: float(num(h, "us_per_atom_step").iloc[-1]) * 1e3 for v, h in g.groupby(text(g, "variant"))}
            if "gpu-cluster" not in t:
                continue
            body.append([sysn, int(num(g, "n").iloc[-1])] + [f"{t[v]:.3f}" if v in t else "-"
                                                            for v in ("gpu-cluster", "gpu-layer", "gpu-rumd")] +
                        [f"{t['gpu-cluster'] / t['gpu-layer']:.2f}" if "gpu-layer" in t else "-"])
        if body:
            dev = str(df["device"].iloc[-1]) if "device" in df.columns else m
            out += [f"{m} ({dev}; revision {figdata.revs_text({rev})}): ns/atom-step, float, one call, "
                    "gpu-rumd at its default plan.", "",
                    md_table(["system", "N", "gpu-cluster", "gpu-layer", "gpu-rumd", "cluster / layer"], body), ""]
    return out


def section(outmd):
    out = ["## Cluster pairs: cpu-cluster and gpu-cluster against atom lists (Pall and Hess 2013; issue 37)", "",
           f"*This section: `plots/cluster.py` from `results/*/{CPU_CSV}` (runs/cpu_cluster.sh) and "
           f"`results/*/{GPU_CSV}` (runs/rumd_figs.sh part rapaport); the GPU kernel's profile, its floor and "
           "`--prune` measured both ways: results/h200/cluster.md.*", "",
           "A cluster-pair list stores one entry and one periodic shift for a whole j-cluster, loaded once for an "
           "i-cluster of 4 (CPU) or 4 and 8 (GPU) atoms; it pays in gathers and minimum images and costs in pairs "
           "evaluated beyond r_c (pair_eff in the rows): the shorter r_c is against the cluster's extent, the more "
           "of them (at SP's r_c = 2^(1/6) about 97% at 4x8). Which side of the trade wins is in the tables.", "",
           "What stands between a CPU figure and its floor: the SIMD loop is bound mostly by the instructions it "
           "issues (an entry took 25.6 ns at 4 096 atoms and 33.7 at 110 592 on the EPYC, so memory adds at most a "
           "quarter), times the slots it evaluates per pair within r_c, 1/pair_eff (prune_eff with `--prune`): 2.9 "
           "for lammps-lj at 4x4 pruned, about 10 for SP. Counted with a build that tallied them (not committed), "
           "lammps-lj, N = 32 000, AVX-512 float 4x8: 220 000 entries a force, 440 000 16-lane registers, half of "
           "them reaching the pair term and 30% of those registers' lanes within r_c; the EPYC's Zen 4 core runs a "
           "512-bit operation as two 256-bit halves, so a 16-lane register costs about what two 8-lane ones do. The row's own cluster, its unshifted entries "
           "and those through an image run in separate copies of the loop (no self mask and no shift where none "
           "applies). A series names the level, the shape (i-unit x j-cluster) and the `--prune` buffer.", ""]
    cpu = []
    for m in figdata.machines_with(CPU_CSV):
        df = nbrcsv.read_optional(os.path.join(figdata.results_dir(), m, CPU_CSV),
                                  need=["tag", "variant", "system", "precision", "n", "us_per_atom_step", "status",
                                        "git_rev"], numeric=["n", "us_per_atom_step"])
        if df is not None and not df.empty:
            cpu += cpu_part(m, df) + generic_part(m)
    gpu = gpu_part()
    if not cpu and not gpu:
        return "\n".join(out + ["**No rows yet**: runs/cpu_cluster.sh and runs/rumd_figs.sh write them.", ""])
    out += ["### One CPU core", ""] + (cpu or ["No cpu_cluster.csv rows yet (runs/cpu_cluster.sh).", ""])
    out += ["### One GPU at 1M atoms", ""] + (gpu or ["No gpu-cluster rows yet (runs/rumd_figs.sh).", ""])
    return "\n".join(out)


def main(argv):
    if len(argv) == 3 and argv[1] == "--section":
        print(section(argv[2]))
        return 0
    print(__doc__.strip(), file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
