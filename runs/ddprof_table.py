#!/usr/bin/env python3
"""runs/ddprof_table.py LOG... - gpu-dd's rebuild phases (gpu-dd --dd-profile on) as a table.

Reads the logs of runs/device/all.sh's ddprof part, named
ddprof-<sys>-<np>rank-<comm>-<rev>-r<round>.log (older calls: ddprof-<sys>-<np>gpu-<comm>.log,
one revision, one round), and prints per system, rank count and backend one markdown table:
a row per phase (us per rebuild, the largest over ranks, as gpu-dd prints them), a column per
revision holding the median over rounds, and B/A when two revisions ran (B: the second in
order of first appearance on the command line, so pass the base's logs first or let the
shell's order do it). The last rows: the sum of the phases, the number of rebuilds, and the step (us per step, the
run's us/atom-step times N). Standard library only: it runs on the device machine too.
"""
import re
import statistics
import sys
from collections import OrderedDict

NAME = re.compile(r"ddprof-(?P<sys>[a-z]+)-(?P<np>\d+)(?:rank|gpu)-(?P<comm>[a-z0-9]+)"
                  r"(?:-(?P<rev>[0-9a-zA-Z._+]+)-r(?P<round>\d+))?\.log$")
PHASES = re.compile(r"rebuild phases \(.*?(?P<builds>\d+) rebuilds\):(?P<body>[^;]*); sum (?P<sum>[0-9.e+-]+)")
STEP = re.compile(r"N=(?P<n>\d+): (?P<v>[0-9.e+-]+) us/atom-step")


def parse(path):
    m = NAME.search(path)
    if not m:
        sys.exit(f"ddprof_table.py: {path}: not a ddprof log name (ddprof-<sys>-<np>rank-<comm>-<rev>-r<round>.log)")
    text = open(path, encoding="utf-8", errors="replace").read()
    p = PHASES.search(text)
    s = STEP.search(text)
    if not p or not s:
        print(f"ddprof_table.py: {path}: no phase line or no us/atom-step line (the run failed?): left out",
              file=sys.stderr)
        return None
    tok = p.group("body").split()
    # names may hold '+' (capture+stats); values follow their names
    phases = OrderedDict((tok[i], float(tok[i + 1])) for i in range(0, len(tok) - 1, 2))
    phases["sum"] = float(p.group("sum"))
    phases["rebuilds"] = int(p.group("builds"))
    phases["step (us)"] = float(s.group("v")) * int(s.group("n"))
    key = (m.group("sys"), int(m.group("np")), m.group("comm"))
    return key, m.group("rev") or "-", phases


def fmt(x):
    return f"{x:.4g}"


TAIL = ["sum", "rebuilds", "step (us)"]


def collect(paths):
    """{(system, ranks, comm): {revision: {phase: median over rounds}}} and, per key and
    revision, the number of rounds; revisions in order of first appearance. Logs without a
    phase line are left out with a word on stderr."""
    runs, revs = OrderedDict(), []
    for path in paths:
        r = parse(path)
        if r is None:
            continue
        key, rev, phases = r
        runs.setdefault(key, OrderedDict()).setdefault(rev, []).append(phases)
        if rev not in revs:
            revs.append(rev)
    out = OrderedDict()
    for key, by_rev in runs.items():
        out[key] = OrderedDict()
        for rev in [r for r in revs if r in by_rev]:
            rounds = by_rev[rev]
            names = list(OrderedDict.fromkeys(n for ph in rounds for n in ph))
            names = [n for n in names if n not in TAIL] + TAIL
            med = OrderedDict((n, statistics.median([ph[n] for ph in rounds if n in ph] or [float("nan")]))
                              for n in names)
            out[key][rev] = (med, len(rounds))
    return out


def main(paths):
    if not paths:
        sys.exit(__doc__.strip().splitlines()[0])
    for (system, np, comm), by_rev in collect(paths).items():
        cols = list(by_rev)
        rounds = ", ".join(f"{r}: {by_rev[r][1]}" for r in cols)
        print(f"\n{system}, {np} rank(s), {comm} (rounds {rounds}; us per rebuild, median over rounds)\n")
        head = ["phase"] + cols + (["B/A"] if len(cols) == 2 else [])
        print("| " + " | ".join(head) + " |")
        print("|" + "---|" * len(head))
        names = list(OrderedDict.fromkeys(n for r in cols for n in by_rev[r][0]))
        names = [n for n in names if n not in TAIL] + TAIL
        for name in names:
            med = [by_rev[r][0].get(name, float("nan")) for r in cols]
            row = [name] + ["-" if v != v else fmt(v) for v in med]
            if len(cols) == 2:
                row.append(fmt(med[1] / med[0]) if med[0] > 0 and med[1] == med[1] else "-")
            print("| " + " | ".join(row) + " |")


if __name__ == "__main__":
    main(sys.argv[1:])
