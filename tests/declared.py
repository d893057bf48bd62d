"""tests/declared.py - a program's input checks, generated from what it declares.

    python3 tests/declared.py KIND PROGRAM [OTHER_PROGRAM...]

PROGRAM --print-options lists every option it takes (flag, type, domain, value, CSV column: the
option table). From that alone, for every option, KIND:
  values  the declared value lies in the declared domain, and giving it back as the flag's value
          parses to the same value (--print-options after it)
  limits  a number below the minimum and one above the maximum, a fraction for a whole number,
          a word for a number, a text one longer than the longest: each refused with exit 2 and
          one line on stderr naming --flag and the limit
  enums   a name outside the list: exit 2, one line naming --flag and the choices
  missing the flag last, without its value: exit 2, one line naming --flag
  knobs   every flag that OTHER_PROGRAMs declare and PROGRAM does not: refused with exit 2 and
          one line (not silently ignored)
Prints one line per failure; exit 1 if any.
"""
import math
import subprocess
import sys


def options(prog):
    out = subprocess.run([prog, "--print-options"], capture_output=True, text=True, timeout=30)
    if out.returncode != 0:
        sys.exit(f"{prog} --print-options: exit {out.returncode}: {out.stderr.strip()}")
    lines = out.stdout.rstrip("\n").split("\n")
    head = lines[0].split("\t")
    if head != ["flag", "type", "domain", "value", "column"]:
        sys.exit(f"{prog} --print-options: header {head}")
    return [dict(zip(head, l.split("\t"))) for l in lines[1:]]


def refused(prog, args, flag, words):
    """'' when PROG ARGS exits 2 with one stderr line naming --flag and every word, else why not."""
    r = subprocess.run([prog] + args, capture_output=True, text=True, timeout=30)
    err = r.stderr.strip().split("\n") if r.stderr.strip() else []
    if r.returncode != 2:
        return f"exit {r.returncode}, expected 2 ({' '.join(args)})"
    if len(err) != 1:
        return f"{len(err)} lines on stderr, expected 1 ({' '.join(args)})"
    missing = [w for w in [f"--{flag}"] + words if w not in err[0]]
    return f"message '{err[0]}' lacks {missing}" if missing else ""


def bounds(o):
    lo, hi = (float(x) for x in o["domain"].split(".."))
    return lo, hi


def in_domain(o):
    t, v = o["type"], o["value"]
    if t == "flag":
        return v in ("0", "1")
    if t == "enum":
        return v in o["domain"].split("|")
    if t == "text":
        return len(v) <= int(o["domain"])
    lo, hi = bounds(o)
    x = float(v)
    if t == "real" and math.isnan(x):
        return True   # "not given" (coulomb's --e-ref): only the default may be NaN, no flag value can
    return lo <= x <= hi and (t == "real" or x == math.floor(x))


def fmt(t, x):
    return repr(x) if t == "real" else str(int(x))


def main():
    kind, prog, others = sys.argv[1], sys.argv[2], sys.argv[3:]
    opts = options(prog)
    fails = []
    for o in opts:
        f, t = o["flag"], o["type"]
        if kind == "values":
            if not in_domain(o):
                fails.append(f"--{f}: value {o['value']!r} outside its domain {o['domain']}")
            elif t != "flag" and o["value"] not in ("", "nan"):
                back = options_after(prog, [f"--{f}", o["value"]])
                got = next((b["value"] for b in back if b["flag"] == f), None) if isinstance(back, list) else back
                if got != o["value"]:
                    fails.append(f"--{f} {o['value']}: reads back as {got!r}")
        elif kind == "limits" and t in ("int", "long", "u64", "real"):
            lo, hi = bounds(o)
            cases = []
            if lo > -1e300:
                cases.append(fmt(t, lo - max(1.0, abs(lo))))
            if hi < 1e300:
                cases.append(fmt(t, hi + max(1.0, abs(hi))))
            for v in cases:
                why = refused(prog, [f"--{f}", v], f, ["outside its limits"])
                if why:
                    fails.append(f"--{f} {v}: {why}")
            if t != "real":
                why = refused(prog, [f"--{f}", "1.5"], f, ["whole number"])
                if why:
                    fails.append(f"--{f} 1.5: {why}")
            why = refused(prog, [f"--{f}", "twelve"], f, ["needs a number"])
            if why:
                fails.append(f"--{f} twelve: {why}")
        elif kind == "limits" and t == "text":
            v = "x" * (int(o["domain"]) + 1)
            why = refused(prog, [f"--{f}", v], f, ["longer than"])
            if why:
                fails.append(f"--{f} <{len(v)} characters>: {why}")
        elif kind == "enums" and t == "enum":
            why = refused(prog, [f"--{f}", "no-such-choice"], f, ["must be one of", o["domain"]])
            if why:
                fails.append(f"--{f} no-such-choice: {why}")
        elif kind == "missing" and t != "flag":
            why = refused(prog, [f"--{f}"], f, ["needs a value"])
            if why:
                fails.append(f"--{f} (no value): {why}")
    checked = len(opts)
    if kind == "knobs":
        mine = {o["flag"] for o in opts}
        theirs = {o["flag"]: o for other in others for o in options(other)}
        checked = len(set(theirs) - mine)
        for f in sorted(set(theirs) - mine):
            v = theirs[f]["value"] if theirs[f]["type"] != "flag" else None
            why = refused(prog, [f"--{f}"] + ([v] if v not in (None, "") else []), f, [])
            if why:
                fails.append(f"--{f} (another program's): {why}")
    name = prog.rsplit("/", 1)[-1]
    for x in fails:
        print(f"{name}: {x}")
    print(f"{name} {kind}: {checked} options, {len(fails)} failure(s)")
    return 1 if fails else 0


def options_after(prog, args):
    r = subprocess.run([prog] + args + ["--print-options"], capture_output=True, text=True, timeout=30)
    if r.returncode != 0:
        return f"exit {r.returncode}: {r.stderr.strip()}"
    lines = r.stdout.rstrip("\n").split("\n")
    head = lines[0].split("\t")
    return [dict(zip(head, l.split("\t"))) for l in lines[1:]]


if __name__ == "__main__":
    sys.exit(main())
