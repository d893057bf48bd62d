#!/usr/bin/env python3
"""runs/tour.py - the tour of the algorithmic trade-offs (make tour; docs/tour.md).

The stops are defined once, in runs/tour.ini: the claim, the runs, the figure computed from
their CSV rows, the figures committed for this CPU and the H200, and why. This script runs
them and writes docs/tour.md from the same table, so the page cannot drift from the commands.

  tour.py run [STOP...]   run the stops (all by default) and print, per stop, the figure
                          measured now beside the committed ones; a GPU stop on a machine
                          without the GPU(s), or without its program built, prints SKIP
  tour.py list            the stops: name, kind (cpu/gpu), title
  tour.py doc             docs/tour.md as it should be, on stdout
  tour.py check           exit 1 when docs/tour.md differs from `tour.py doc` (or a stop
                          names a committed file that does not exist)
env: BUILD (build), TOUR_OUT (where the runs' CSVs go; default $BUILD/tour, emptied per stop;
     results/<machine>/tour records a committed revision's figures), TOUR_REF (the committed
     CPU rows the measured figure is printed beside; default results/cpu-amd-epyc/tour)
Exit: 0 every stop that ran produced its figure, 1 a run failed or gave no row, 2 bad usage.
Python's standard library only: the tour runs on bare machines.
"""
import configparser
import os
import shlex
import shutil
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import csvq  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# TOUR_INI / TOUR_DOC: other files, for the tests' planted faults
INI = os.environ.get("TOUR_INI", os.path.join(ROOT, "runs", "tour.ini"))
DOC = os.environ.get("TOUR_DOC", os.path.join(ROOT, "docs", "tour.md"))
REF = os.environ.get("TOUR_REF", "results/cpu-amd-epyc/tour")
BUILD = os.environ.get("BUILD", "build")


def stops():
    # interpolation off: the texts hold '%' and '{...}' (the figure templates)
    cp = configparser.ConfigParser(interpolation=None)
    with open(INI, encoding="utf-8") as f:
        cp.read_file(f)
    out = []
    for name in cp.sections():
        s = dict(cp[name])
        s["name"] = name
        s["runs"] = [(k[4:], " ".join(v.split())) for k, v in cp[name].items() if k.startswith("run_")]
        for key in ("title", "paper", "kind", "claim", "figure", "why", "h200", "cpu_driver"):
            if key not in s:
                sys.exit(f"runs/tour.ini [{name}]: no '{key}'")
        if s["kind"] not in ("cpu", "gpu") or not s["runs"]:
            sys.exit(f"runs/tour.ini [{name}]: kind must be cpu or gpu, and at least one run_X")
        out.append(s)
    return out


class Row:
    """One run's CSV row: columns as attributes, numbers as floats."""
    def __init__(self, d):
        self._d = d

    def __getattr__(self, col):
        if col not in self._d:
            raise KeyError(f"no column {col}")
        v = self._d[col]
        try:
            return float(v)
        except ValueError:
            return v


def figure(stop, folder):
    """The stop's figure from the rows in folder/<stop>.csv (the last row per run label), or None."""
    path = os.path.join(folder, stop["name"] + ".csv")
    if not os.path.exists(path):
        return None
    rows = {r["tag"]: r for r in csvq.read(path).rows}   # knobs expanded (docs/csv.md)
    env = {}
    for label, _ in stop["runs"]:
        r = rows.get(f"tour-{stop['name']}-{label}")
        if r is None:
            return None
        env[label] = Row(r)
    # the template is ours (runs/tour.ini), an f-string over the runs' rows
    return eval("f" + repr(" ".join(stop["figure"].split())), {"abs": abs}, env)


def command(cmd):
    return cmd.replace("build/", BUILD.rstrip("/") + "/") if BUILD != "build" else cmd


def program_of(cmd):
    for tok in shlex.split(cmd):
        if "/" in tok and tok.startswith(("build/", BUILD)):
            return tok
    return None


def skip_reason(stop):
    needs = stop.get("needs", "").split()
    if stop["kind"] == "gpu":
        try:
            gpus = subprocess.run(["nvidia-smi", "-L"], capture_output=True, text=True).stdout.count("GPU ")
        except OSError:
            gpus = 0
        want = next((int(n.split(":")[1]) for n in needs if n.startswith("gpu:")), 1)
        if gpus < want:
            return f"needs {want} GPU(s), this machine has {gpus}"
    for n in needs:
        if not n.startswith("gpu") and shutil.which(n) is None:
            return f"needs {n}, not found"
    for _, cmd in stop["runs"]:
        p = program_of(command(cmd))
        if p and not os.access(os.path.join(ROOT, p), os.X_OK):
            return f"{p} not built (make gpu; gpu-dd also needs MPI)"
    return None


def run(names):
    all_stops = stops()
    known = {s["name"] for s in all_stops}
    bad = [n for n in names if n not in known]
    if bad:
        print(f"tour: no stop {', '.join(bad)} (tour.py list names them)", file=sys.stderr)
        return 2
    out_root = os.environ.get("TOUR_OUT", os.path.join(BUILD, "tour"))
    os.makedirs(out_root, exist_ok=True)
    todo = [s for s in all_stops if not names or s["name"] in names]
    failed = 0
    t_all = time.time()
    for k, s in enumerate(todo, 1):
        head = f"[{k}/{len(todo)}] {s['name']} ({s['kind']}): {s['title']}"
        why = skip_reason(s)
        if why:
            print(f"SKIP  {head}: {why}")
            continue
        print(head, flush=True)
        csv_path = os.path.join(out_root, s["name"] + ".csv")
        if not out_root.startswith("results"):
            # scratch: a stop's figure is of this run's rows only
            if os.path.exists(csv_path):
                os.remove(csv_path)
        t0 = time.time()
        ok = True
        for label, cmd in s["runs"]:
            argv = shlex.split(command(cmd)) + ["--csv", csv_path, "--tag", f"tour-{s['name']}-{label}", "--quiet"]
            print(f"  {label}: {command(cmd)}", flush=True)
            r = subprocess.run(argv, cwd=ROOT, capture_output=True, text=True)
            if r.returncode != 0:
                print(f"FAIL  {s['name']}: run {label} exited {r.returncode}: "
                      f"{(r.stderr.strip().splitlines() or ['(no message)'])[-1]}")
                ok = False
                break
        if not ok:
            failed = 1
            continue
        try:
            got = figure(s, out_root)
            ref = figure(s, os.path.join(ROOT, REF))
        except (KeyError, ValueError, ZeroDivisionError) as e:
            print(f"FAIL  {s['name']}: figure: {e}")
            failed = 1
            continue
        if got is None:
            print(f"FAIL  {s['name']}: no row for every run in {csv_path}")
            failed = 1
            continue
        print(f"  measured here ({time.time() - t0:.0f} s): {got}")
        print(f"  committed, this CPU ({REF}): {ref if ref is not None else 'none (a GPU stop, or not recorded)'}")
        print(f"  committed, H200: {' '.join(s['h200'].split())}")
    print(f"tour: {len(todo)} stops in {time.time() - t_all:.0f} s{', some FAILED' if failed else ''}")
    return failed


def wrap(text, width=100, indent=""):
    words, lines, cur = " ".join(text.split()).split(" "), [], indent
    for w in words:
        if len(cur) + len(w) + (cur != indent) > width and cur != indent:
            lines.append(cur)
            cur = indent
        cur += ("" if cur == indent else " ") + w
    lines.append(cur)
    return "\n".join(lines)


def wrap_cmd(cmd, width=100):
    """A command as shell lines of at most width characters, continued with a backslash."""
    lines, cur, units = [], "", []
    for tok in cmd.split():
        # a flag and its value stay on one line
        if units and not tok.startswith("-") and units[-1].startswith("--") and " " not in units[-1]:
            units[-1] += " " + tok
        else:
            units.append(tok)
    for tok in units:
        if cur and len(cur) + 1 + len(tok) > width - 2:
            lines.append(cur + " \\")
            cur = "    " + tok
        else:
            cur = f"{cur} {tok}" if cur else tok
    return "\n".join(lines + [cur])


def doc():
    all_stops = stops()
    out = ["# The tour: one stop per trade-off", "",
           wrap("Each stop is one algorithmic choice from the four papers, with the command "
                "that shows it, the figure that command printed on the 2-core CPU "
                "(cpu-amd-epyc) and on the H200, and why, in terms of bytes moved, "
                "parallelism or latency. `make tour` runs every CPU stop (a few minutes on 2 "
                "cores) and prints each measured figure beside the committed one; GPU stops "
                "print SKIP on a machine without a GPU and run where one exists. One stop "
                "alone: `runs/tour.py run NAME`. Timings on a shared machine move by 10-30%: "
                "read the ratios, not the digits."), "",
           wrap("This page is generated from `runs/tour.ini` (`runs/tour.py doc > docs/tour.md`); "
                "the test suite checks that it is current."), "",
           "| # | stop | kind | name (`runs/tour.py run NAME`) |", "|---|---|---|---|"]
    for k, s in enumerate(all_stops, 1):
        out.append(f"| {k} | {s['title']} | {s['kind']} | `{s['name']}` |")
    for k, s in enumerate(all_stops, 1):
        ref = figure(s, os.path.join(ROOT, REF)) if s["kind"] == "cpu" else None
        out += ["", f"## {k}. {s['title']}", "",
                wrap(f"**Claim** ({s['paper']}). {s['claim']}"), "",
                f"`runs/tour.py run {s['name']}`"
                + (" (needs a GPU)" if s["kind"] == "gpu" else "") + " runs:", "", "```sh"]
        out += [wrap_cmd(c) for _, c in s["runs"]]
        out += ["```", ""]
        if s["kind"] == "cpu":
            out.append(wrap(f"**This CPU**, the tour's run (`{REF}/{s['name']}.csv`): "
                            f"{ref if ref is not None else 'not recorded yet'}."))
            out.append("")
        out += [wrap(f"**This CPU**, at a driver's scale: {s['cpu_driver']}"), "",
                wrap(f"**H200**: {s['h200']}"), "", wrap(f"**Why.** {s['why']}")]
    return "\n".join(out) + "\n"


def check():
    bad = 0
    want = doc()
    have = open(DOC, encoding="utf-8").read() if os.path.exists(DOC) else ""
    if want != have:
        print(f"{DOC} is not what {INI} gives: runs/tour.py doc > docs/tour.md")
        bad = 1
    for s in stops():
        for key in ("h200", "cpu_driver"):
            for tok in s[key].replace("(", " ").replace(")", " ").replace(",", " ").split():
                tok = tok.strip("`.;:")
                if tok.startswith("results/") and not os.path.exists(os.path.join(ROOT, tok.split(":")[0])):
                    print(f"[{s['name']}] {key} cites {tok}, which does not exist")
                    bad = 1
    if not bad:
        print(f"docs/tour.md is current: {len(stops())} stops")
    return bad


def main(argv):
    if not argv or argv[0] in ("-h", "--help"):
        print(__doc__)
        return 0 if argv else 2
    cmd, rest = argv[0], argv[1:]
    if cmd == "run":
        return run(rest)
    if cmd == "list":
        for s in stops():
            print(f"{s['name']:16s} {s['kind']}  {s['title']}")
        return 0
    if cmd == "doc":
        sys.stdout.write(doc())
        return 0
    if cmd == "check":
        return check()
    print(f"tour.py: unknown command {cmd} (run, list, doc, check)", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
