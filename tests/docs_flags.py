#!/usr/bin/env python3
"""tests/docs_flags.py BUILD FILE.md... - every --flag the docs name exists where they say.

A flag is attributed to the program or script that the text puts it with:
  - a command (a fenced code line, backslash-continued lines joined, or an inline code span):
    the last program (build/<precision>/<prog>, or a program's bare name) or script
    (runs/..., plots/..., tests/...) named before it in the same command; a flag of another
    tool (mpirun, git, ...) is not checked;
  - otherwise the program(s) named in the first cell of its table row, else in the nearest
    heading above it that names one: it must be a flag of each of them;
  - otherwise any program's flag or any script's (the script's text names it).
A program's flags are the option lines of its --help (generated from the option table that
parses them). A program not built here (gpu-dd without MPI, GPU programs without nvcc) and
coulomb built without OpenCL are checked against the option table in their sources instead
(common/params.c, common/coulomb.c, and the program's own options in variants/<prog>.*), and the
output says so.
Exit 0: every flag known; 1: a flag that is not (one line per flag: file, line, flag, where).
"""
import glob
import os
import re
import subprocess
import sys

FLAG = re.compile(r"(?<![\w-])--[a-z][a-z0-9-]*[a-z0-9]")
SCRIPT = re.compile(r"(?:^|[\s`(])((?:runs|plots|tests|\.ci)/[\w./-]+)")
EXTERNAL = {"mpirun", "mpicc", "git", "nvidia-smi", "apt-get", "pip", "hyperfine", "lmp", "nvcc",
            "cuobjdump", "compute-sanitizer", "nsys", "ncu", "gcc", "cc", "curl", "python3", "make"}


def program_names():
    return sorted({os.path.splitext(os.path.basename(f))[0]
                   for f in glob.glob("variants/*.c") + glob.glob("variants/*.cu")})


def table_flags(path):
    with open(path, encoding="utf-8") as f:
        return {"--" + m for m in re.findall(r'^\s*\{"([a-z][a-z0-9-]*)",', f.read(), re.M)}


def help_flags(build, prog):
    """The flags of prog's --help (both precisions), or None when it is not built here."""
    flags, found = set(), False
    for prec in ("double", "float"):
        b = os.path.join(build, prec, prog)
        if os.path.isfile(b) and os.access(b, os.X_OK):
            found = True
            out = subprocess.run([b, "--help"], capture_output=True, text=True).stdout
            flags |= set(re.findall(r"^  (--[a-z][a-z0-9-]*)", out, re.M))
    return flags if found else None


def main(argv):
    if len(argv) < 2:
        print("usage: tests/docs_flags.py BUILD FILE.md...", file=sys.stderr)
        return 2
    build, files = argv[0], argv[1:]
    progs = program_names()
    flags, notes = {}, []
    for p in progs:
        got = help_flags(build, p)
        table = "common/coulomb.c" if p.startswith("coulomb") else "common/params.c"
        if got is None:   # with the options the program declares itself (Variant.opts), in its file
            flags[p] = table_flags(table).union(*(table_flags(f) for f in glob.glob(f"variants/{p}.c*")))
            notes.append(f"{p} not built here: checked against {table}'s option table")
        elif p == "coulomb" and "--wg" not in got:
            flags[p] = got | table_flags(table)
            notes.append(f"{p} built without OpenCL: its OpenCL flags checked against {table}")
        else:
            flags[p] = got
    for p in progs:
        flags[p].add("--help")   # every program has it; it is not an option line of --help
    any_prog = set().union(*flags.values())
    script_text = {}

    def script_has(path, flag):
        if path not in script_text:
            try:
                with open(path, encoding="utf-8") as f:
                    script_text[path] = f.read()
            except OSError:
                script_text[path] = None
        text = script_text[path]
        if text is not None and "\nsettings_begin " in text and path + "#help" not in script_text:
            # a driver with a settings table (runs/settings.sh): its flags are generated, so
            # they are the option lines of its --help, not words of its text
            out = subprocess.run(["bash", path, "--help"], capture_output=True, text=True).stdout
            script_text[path + "#help"] = set(re.findall(r"^  (--[a-z][a-z0-9-]*)", out, re.M))
        return text is not None and (flag in text or flag in script_text.get(path + "#help", ()))

    def any_script_has(flag):
        return any(script_has(p, flag) for p in
                   glob.glob("runs/*.sh") + glob.glob("runs/*.py") + glob.glob("runs/device/*.sh") +
                   glob.glob("plots/*.py") + glob.glob("tests/*.sh") + glob.glob("tests/*.py"))

    prog_re = re.compile(r"(?:^|[\s`/(|])(" + "|".join(map(re.escape, sorted(progs, key=len, reverse=True)))
                         + r")(?![\w-])")

    bad, checked = [], 0

    def judge(fname, lineno, flag, where):
        nonlocal checked
        checked += 1
        kind, names = where
        if kind == "external":
            return
        if kind == "script":
            if not script_has(names, flag):
                bad.append(f"{fname}:{lineno}: {flag}: not in {names}")
            return
        if kind == "progs":
            missing = [p for p in names if flag not in flags[p]]
            if missing:
                bad.append(f"{fname}:{lineno}: {flag}: not a flag of {', '.join(missing)}")
            return
        if flag not in any_prog and not any_script_has(flag) and flag not in ("--help",):
            bad.append(f"{fname}:{lineno}: {flag}: no program or script has it")

    def command(fname, lineno, text, fallback):
        """Flags in a command: attributed to the last program, script or tool before them."""
        for seg in re.split(r"\|\||&&|;|\|", text):
            seg, _, comment = seg.partition(" #")
            cur = fallback
            pos = 0
            tokens = re.finditer(r"\S+", seg)
            for m in tokens:
                tok = m.group(0).strip("`()")
                base = tok.rsplit("/", 1)[-1]
                if base in progs and ("/" not in tok or tok.startswith(("build/", "$BUILD", "$B"))):
                    cur = ("progs", [base])
                elif re.match(r"(runs|plots|tests|\.ci)/[\w./-]+$", tok):
                    cur = ("script", tok)
                elif base in EXTERNAL and pos == 0 or base in EXTERNAL - {"make", "python3"}:
                    cur = ("external", base)
                for f in FLAG.findall(tok):
                    judge(fname, lineno, f, cur)
                pos += 1
            for f in FLAG.findall(comment):
                judge(fname, lineno, f, fallback)

    for fname in files:
        with open(fname, encoding="utf-8") as f:
            lines = f.read().split("\n")
        heads = []   # (level, [programs])
        in_code, pending, pending_no = False, "", 0
        for no, line in enumerate(lines, 1):
            if line.startswith("```"):
                in_code = not in_code
                continue
            if in_code:
                if line.rstrip().endswith("\\"):
                    if not pending:
                        pending_no = no
                    pending += line.rstrip()[:-1] + " "
                    continue
                text, at = pending + line, (pending_no if pending else no)
                pending = ""
                command(fname, at, text, section(heads))
                continue
            m = re.match(r"^(#+)\s+(.*)", line)
            if m:
                level = len(m.group(1))
                heads = [h for h in heads if h[0] < level]
                heads.append((level, prog_re.findall(m.group(2))))
                continue
            fallback = section(heads)
            if line.startswith("|"):
                cells = line.split("|")
                named = prog_re.findall(cells[1]) if len(cells) > 2 else []
                if named:
                    fallback = ("progs", sorted(set(named)))
            spans = re.findall(r"`([^`]+)`", line)
            for sp in spans:
                command(fname, no, sp, fallback)
            for f in FLAG.findall(re.sub(r"`[^`]+`", " ", line)):
                judge(fname, no, f, fallback)
    for n in notes:
        print("note:", n)
    if bad:
        print("\n".join(bad))
        print(f"{len(bad)} of {checked} flags in {len(files)} files are not where the docs put them")
        return 1
    print(f"every flag the docs name is known: {checked} mentions in {len(files)} files")
    return 0


def section(heads):
    for _, named in reversed(heads):
        if named:
            return ("progs", sorted(set(named)))
    return ("any", None)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
