#!/usr/bin/env python3
"""runs/csvq.py - the CSV reader of the drivers: columns by name, python's csv module only
(no pandas: drivers run on bare machines). plots/nbrcsv.py checks files with read() too, so a
damaged CSV gives the same one line everywhere:

    results/h200/table1.csv line 7: 12 fields, the header has 51 (truncated or malformed row)

Checks: a header line without repeated names; every row has as many fields as the header; the
file ends with a newline (programs write whole lines: a missing one means a cut file); no
empty lines. Columns are looked up by name, so new columns are ignored and a column missing
in an older file reads as "" (a filter on it matches nothing).

The programs' rows end in one column, knobs: "column=value" pairs separated by spaces, each
program's own options (docs/csv.md). read() expands it back into columns, so a reader asks for
tp or list_method by name as for any column: "-" in a row without that pair (the schema's "not
applicable"); get, values and the NAME=VALUE filters read a non-core column that no row of
such a file has as "-" too (no program of the file has that knob), while check --need and
read(need=) still want the column (in some row's pairs). Table.file_header is the header as
written.

  csvq.py get CSV COL [NAME=VALUE...] [--or TEXT]
                                        COL of the last row where every NAME is VALUE;
                                        --or: print TEXT instead when there is no such row,
                                        file or column (an older file), and exit 0
  csvq.py has CSV [NAME=VALUE...]       exit 0 when such a row exists
  csvq.py values CSV COL [NAME=VALUE...]  the distinct values of COL, in file order
  csvq.py table CSV [--prefix P] [--cols A,B,..] [--last]
                                        the rows (tag starting with P) as an aligned table;
                                        --last: only the last row of each tag
  csvq.py check CSV... [--need A,B]     check files (and that columns exist)
  csvq.py wide CSV                      the file with its knobs column expanded into columns, as
                                        CSV (for awk readers: columns found by name in line 1)
  csvq.py hyperfine-row HF_CSV OUT_CSV TAG RUNS N STEPS GIT_REV COMMAND
                                        append one row made of hyperfine's --export-csv
  csvq.py config-get NAME               the value of NAME=... in --print-config output (stdin)
Exit codes: 0 found/done, 1 no such row (or no such file: nothing measured yet), 2 a damaged
file, a missing column asked for, or bad usage (one line on stderr).
"""
import csv
import os
import socket
import sys
import time

MISSING = ("-", "")


class CsvError(Exception):
    """A CSV that cannot be used; str() is 'FILE line N: what is wrong'."""


KNOBS = "knobs"   # the programs' last column: this program's own options as column=value pairs


class Table:
    """header: column names (knobs expanded); rows: dicts column -> text; lines: the file line of
    each row; file_header: the header as written; knobbed: the file has a knobs column."""

    def __init__(self, path, header, rows, lines, file_header=None):
        self.path, self.header, self.rows, self.lines = path, header, rows, lines
        self.file_header = file_header or header
        self.knobbed = KNOBS in self.file_header

    def add_missing(self, col):
        """A knob column that no row of a knobbed file has: '-' in every row."""
        self.header.append(col)
        for r in self.rows:
            r[col] = "-"

    def __len__(self):
        return len(self.rows)

    def where(self, **want):
        """(line, row) pairs where every column has the wanted text (missing column: '', or '-'
        for a knob column of a knobbed file)."""
        miss = {k: self.missing(k) for k in want}
        return [(n, r) for n, r in zip(self.lines, self.rows)
                if all(r.get(k, miss[k]) == v for k, v in want.items())]

    def missing(self, col):
        """What a column the table lacks reads as: '-' for a knob column of a knobbed file."""
        return "-" if self.knobbed and col not in self.file_header else ""


def knob_pairs(text, where, core):
    """The knobs column's text as a dict column -> value; CsvError naming `where` for a pair that
    is not column=value, names a core column, or comes twice."""
    out = {}
    for pair in text.split(" ") if text else []:
        key, eq, value = pair.partition("=")
        if not eq or not key:
            raise CsvError(f"{where}: knobs pair '{pair}' is not column=value")
        if key in core:
            raise CsvError(f"{where}: knobs pair '{pair}' names a column of its own")
        if key in out:
            raise CsvError(f"{where}: knobs pair '{pair}' comes twice")
        out[key] = value
    return out


def expand(path, header, rows, linenos):
    """The knobs column as columns (first seen order, after the core ones): (header, rows)."""
    core = [h for h in header if h != KNOBS]
    keys, wide = [], []
    for r, n in zip(rows, linenos):
        pairs = knob_pairs(r[KNOBS], f"{path} line {n}", core)
        keys += [k for k in pairs if k not in keys]
        wide.append((r, pairs))
    out = []
    for r, pairs in wide:
        d = {h: r[h] for h in core}
        d.update((k, pairs.get(k, "-")) for k in keys)
        out.append(d)
    return core + keys, out


def read(path, need=()):
    """Read and check a CSV; need: columns that must exist (a knob column: in some row's pairs).
    CsvError or OSError."""
    with open(path, newline="") as f:
        text = f.read()
    if not text:
        raise CsvError(f"{path} line 1: empty file (no header)")
    lines = text.split("\n")
    if lines[-1] != "":
        raise CsvError(f"{path} line {len(lines)}: the last line has no end of line (file truncated?)")
    lines.pop()
    header, rows, linenos = None, [], []
    for lineno, line in enumerate(lines, start=1):
        if not line.strip():
            raise CsvError(f"{path} line {lineno}: empty line")
        try:
            fields = next(csv.reader([line]))
        except csv.Error as e:
            raise CsvError(f"{path} line {lineno}: {e}") from None
        if header is None:
            header = [h.strip() for h in fields]
            dup = sorted({h for h in header if header.count(h) > 1})
            if dup:
                raise CsvError(f"{path} line 1: column {dup[0]} appears twice in the header")
            continue
        if len(fields) != len(header):
            raise CsvError(f"{path} line {lineno}: {len(fields)} fields, the header has {len(header)}"
                           " (truncated or malformed row)")
        rows.append(dict(zip(header, fields)))
        linenos.append(lineno)
    if header is None:
        raise CsvError(f"{path} line 1: empty file (no header)")
    file_header = header
    if KNOBS in header:
        header, rows = expand(path, header, rows, linenos)
    t = Table(path, header, rows, linenos, file_header)
    for col in need:
        if col not in t.header:
            raise CsvError(f"{path} line 1: no column '{col}' in the header")
    return t


def parse_filters(args):
    want = {}
    for a in args:
        if "=" not in a:
            raise CsvError(f"filter '{a}' is not NAME=VALUE")
        k, v = a.split("=", 1)
        want[k] = v
    return want


def fmt(text, width):
    """A number in at most 4 significant digits, other text as it is."""
    try:
        v = float(text)
    except ValueError:
        return f"{text:>{width}}"
    if text.lstrip("-").isdigit():
        return f"{text:>{width}}"
    return f"{v:>{width}.4g}"


DEFAULT_COLS = ["variant", "precision", "system", "ne", "n", "us_per_atom_step", "frac_list", "frac_force",
                "nbr_per_atom", "layers", "steps_per_rebuild", "bytes_per_atom", "drift", "git_rev", "status"]
SHORT = {"precision": "prec", "system": "sys", "us_per_atom_step": "us/atom-st", "frac_list": "list",
         "frac_force": "force", "nbr_per_atom": "Np/Na", "layers": "N_l", "steps_per_rebuild": "N_u",
         "bytes_per_atom": "B/atom"}


# coulomb's rows (docs/csv.md): the energy program's own columns, not the MD ones (all "-" there)
COULOMB_COLS = ["program", "impl", "precision", "unroll", "n", "t_eval_s", "pairs_per_s", "rel_error",
                "tolerance", "git_rev", "status"]


def table(t, prefix="", cols=None, last=False):
    cols = cols or (COULOMB_COLS if "pairs_per_s" in t.header and "variant" not in t.header else DEFAULT_COLS)
    pick = [r for r in t.rows if r.get("tag", "").startswith(prefix)]
    if last:
        by_tag = {}
        for r in pick:
            by_tag.pop(r.get("tag", ""), None)
            by_tag[r.get("tag", "")] = r
        pick = list(by_tag.values())
    heads = [SHORT.get(c, c) for c in cols]
    cells = [[r.get(c, "-") for c in cols] for r in pick]
    widths = [max([len(h)] + [len(fmt(row[k], 0).strip()) for row in cells]) for k, h in enumerate(heads)]
    out = ["  ".join(f"{h:>{w}}" for h, w in zip(heads, widths))]
    out += ["  ".join(fmt(v, w) for v, w in zip(row, widths)) for row in cells]
    return "\n".join(out)


def hyperfine_row(hf, out, tag, runs, n, steps, rev, command):
    """One row of a *_hyperfine.csv from hyperfine's own CSV (its columns read by name)."""
    h = read(hf, need=["mean", "stddev", "median", "min", "max", "user", "system"])
    if len(h) != 1:
        raise CsvError(f"{hf}: {len(h)} rows, expected hyperfine's one")
    r = h.rows[0]
    header = ["tag", "timestamp", "git_rev", "host", "runs", "n", "steps", "mean_s", "stddev_s", "median_s",
              "min_s", "max_s", "user_s", "system_s", "us_per_atom_step_whole", "command"]
    values = dict(tag=tag, timestamp=time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), git_rev=rev,
                  host=socket.gethostname(), runs=runs, n=n, steps=steps, mean_s=r["mean"], stddev_s=r["stddev"],
                  median_s=r["median"], min_s=r["min"], max_s=r["max"], user_s=r["user"], system_s=r["system"],
                  us_per_atom_step_whole=f"{float(r['mean']) / (int(n) * int(steps)) * 1e6:.6g}", command=command)
    have = None
    if os.path.exists(out) and os.path.getsize(out) > 0:
        old = read(out)
        have = old.header
        new = [c for c in header if c not in have]
        if new:   # an older file: its rows get "-" in the new columns (git_rev: not recorded)
            have = have + new
            with open(out + ".tmp", "w", newline="") as f:
                w = csv.writer(f, lineterminator="\n")
                w.writerow(have)
                for r in old.rows:
                    w.writerow([r.get(c, "-") for c in have])
            os.replace(out + ".tmp", out)
    with open(out, "a", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        if have is None:
            w.writerow(header)
            have = header
        w.writerow([values.get(c, "-") for c in have])


def main(argv):
    if not argv:
        print(__doc__.split("\n\n")[2], file=sys.stderr)
        return 2
    cmd, args = argv[0], argv[1:]
    try:
        if cmd == "config-get":
            if len(args) != 1:
                raise CsvError("usage: csvq.py config-get NAME < print-config-output")
            for line in sys.stdin:
                k, sep, v = line.rstrip("\n").partition("=")
                if sep and k.strip() == args[0]:
                    print(v.strip())
                    return 0
            return 1
        if cmd == "check":
            need = []
            files = []
            it = iter(args)
            for a in it:
                if a == "--need":
                    need += [c for c in next(it, "").split(",") if c]
                else:
                    files.append(a)
            if not files:
                raise CsvError("usage: csvq.py check CSV... [--need A,B]")
            for p in files:
                t = read(p, need=need)
                print(f"{p}: {len(t)} rows, {len(t.header)} columns")
            return 0
        if cmd == "wide":
            if len(args) != 1:
                raise CsvError("usage: csvq.py wide CSV")
            t = read(args[0])
            w = csv.writer(sys.stdout, lineterminator="\n")
            w.writerow(t.header)
            for r in t.rows:
                w.writerow([r[c] for c in t.header])
            return 0
        if cmd == "hyperfine-row":
            if len(args) != 8:
                raise CsvError("usage: csvq.py hyperfine-row HF_CSV OUT_CSV TAG RUNS N STEPS GIT_REV COMMAND")
            hyperfine_row(*args)
            return 0
        if cmd not in ("get", "has", "values", "table") or not args:
            raise CsvError(f"unknown command '{cmd}' (get, has, values, table, check, wide, hyperfine-row, config-get)")
        fallback = None
        if cmd == "get" and "--or" in args:
            k = args.index("--or")
            if k + 1 >= len(args):
                raise CsvError("--or needs a text")
            fallback = args[k + 1]
            args = args[:k] + args[k + 2:]
        path = args[0]
        if not os.path.exists(path):
            if cmd == "table":
                raise CsvError(f"{path}: no such file")
            if fallback is not None:
                print(fallback)
                return 0
            return 1
        if cmd == "table":
            prefix, cols, last = "", None, False
            it = iter(args[1:])
            for a in it:
                if a == "--prefix":
                    prefix = next(it, "")
                elif a == "--cols":
                    cols = [c for c in next(it, "").split(",") if c]
                elif a == "--last":
                    last = True
                else:
                    prefix = a
            print(table(read(path), prefix, cols, last))
            return 0
        if cmd == "has":
            return 0 if read(path).where(**parse_filters(args[1:])) else 1
        if len(args) < 2:
            raise CsvError(f"usage: csvq.py {cmd} CSV COL [NAME=VALUE...]")
        col, filters = args[1], args[2:]
        t = read(path)
        if col not in t.header:
            if t.missing(col) == "-":   # a knob that no program of the file has
                t.add_missing(col)
            elif fallback is None:
                raise CsvError(f"{path} line 1: no column '{col}' in the header")
        hits = t.where(**parse_filters(filters))
        if cmd == "get":
            if not hits or col not in t.header:
                if fallback is None:
                    return 1
                print(fallback)
                return 0
            print(hits[-1][1][col])
            return 0
        seen = []
        for _, r in hits:
            if r[col] not in seen:
                seen.append(r[col])
        print("\n".join(seen))
        return 0 if seen else 1
    except (CsvError, OSError, ValueError) as e:
        print(f"csvq: {e}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
