"""launch.py - the report's section on the launch structure (issue 36): gpu-rumd with one launch per
stage, the same stage kernels as a CUDA graph, and one cooperative launch per chunk
(results/*/launch/launch-*.csv, runs/device/launch.sh).

    launch.py --section OUT.md    print the report section

Per (machine, N, mode) the median us_per_step of the ok rows of the revision measured last (the
driver interleaves its rounds, -rK in the tag); the mode is the tag's launch-ne<ne>-<mode>-rK.
A folder without rows is a section that says so, never an error.
"""
import glob
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import figdata  # noqa: E402
import nbrcsv  # noqa: E402
from figdata import md_table  # noqa: E402
from nbrcsv import num, text  # noqa: E402

MODES = ["stage", "graph", "chunk"]
TAG = re.compile(r"^launch-ne\d+-(\w+)-r\d+$")


def medians(df):
    """{n: {mode: (median us/step, rows, revision)}} from the ok rows of the newest revision."""
    df = df[text(df, "status") == "ok"].copy()
    df["mode"] = text(df, "tag").map(lambda t: (TAG.match(t) or [None, ""])[1])
    df = df[df["mode"].isin(MODES)]
    if df.empty:
        return {}
    df = df[df["git_rev"] == df.iloc[-1]["git_rev"]]
    out = {}
    for (n, mode), g in df.groupby([num(df, "n").astype(int), "mode"]):
        out.setdefault(n, {})[mode] = (float(num(g, "us_per_step").median()), len(g), g.iloc[-1]["git_rev"])
    return out


def machine_part(m, path):
    df = nbrcsv.read_optional(path, need=["tag", "git_rev", "n", "us_per_step", "status"],
                              numeric=["n", "us_per_step"])
    pts = medians(df) if df is not None and not df.empty else {}
    if not pts:
        return []
    body = []
    for n in sorted(pts):
        p = pts[n]
        t = {k: p[k][0] for k in MODES if k in p}
        cell = lambda k: f"{t[k]:.2f} ({p[k][1]})" if k in t else "-"
        ratio = lambda a, b: f"{t[a] / t[b]:.2f}" if a in t and b in t else "-"
        body.append([f"{n:,}".replace(",", " "), cell("stage"), cell("graph"), cell("chunk"),
                     ratio("chunk", "stage"), ratio("chunk", "graph")])
    rev = next(iter(next(iter(pts.values())).values()))[2]
    dev = str(df["device"].iloc[-1]) if "device" in df.columns else m
    return [f"{m} ({dev}; revision {figdata.revs_text({rev})}, {figdata.rel(path)}): us a step, the median of "
            "the rounds (rows in brackets), gpu-rumd float, lammps-lj, list n2, `--read plain`.", "",
            md_table(["N", "per stage", "graph", "per chunk", "chunk / stage", "chunk / graph"], body), ""]


def section(outmd):
    out = ["## One launch per stage or one per chunk (issue 36)", "",
           "*This section: `plots/launch.py` from `results/*/launch/launch-*.csv` (runs/device/launch.sh); "
           "what the figures say: results/h200/launch/launch.md and the tour stop.*", "",
           "gpu-rumd runs the same device code as a kernel per stage, as those kernels in a CUDA graph "
           "(`--graph cond`), or as one cooperative launch per chunk of steps (`--launch chunk`), so each ratio is "
           "the launch structure's effect alone.", ""]
    body = []
    for m in sorted(os.listdir(figdata.results_dir())) if os.path.isdir(figdata.results_dir()) else []:
        for path in sorted(glob.glob(os.path.join(figdata.results_dir(), m, "launch", "launch-*.csv"))):
            body += machine_part(m, path)
    return "\n".join(out + (body or ["**No rows yet**: runs/device/launch.sh writes them.", ""]))


def main(argv):
    if len(argv) == 3 and argv[1] == "--section":
        print(section(argv[2]))
        return 0
    print(__doc__.strip(), file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
