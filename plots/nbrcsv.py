"""nbrcsv - the one CSV reader of nbrlab's python scripts (plots, report, drivers, tests).

Every results CSV is read through read(): it checks the file as a whole before any number
is used, so a damaged file stops the script with one line that names the file and the line:

    results/h200/table1.csv line 7: 12 fields, the header has 51 (truncated or malformed row)

Checks: a header line; every row has as many fields as the header; the last line ends with a
newline (the programs write whole lines, so a missing one means the file was cut short); no
empty lines; the columns a caller needs exist.  Numbers are converted on demand by
Row.num(), which names file, line and column when a value is not a number.  "-" (the
schema's "not applicable") and "" read as None.

Standard library only: the report and the tests run where matplotlib is not installed.
Command line:  python3 plots/nbrcsv.py [--need COL,..] [--numeric COL,..] FILE...
               checks each FILE; exit 0, or exit 2 with one line on stderr.
"""
import csv
import math
import os
import sys

MISSING = ("-", "")


class CsvError(Exception):
    """A CSV that cannot be used; str() is 'FILE line N: what is wrong'."""


class Row(dict):
    """One data row: a dict column -> text, plus where it came from."""

    def __init__(self, values, path, line):
        super().__init__(values)
        self.path, self.line = path, line

    def num(self, col):
        """The value of col as a float; None for '-' or empty; CsvError if not a number."""
        if col not in self:
            raise CsvError(f"{self.path} line {self.line}: no column '{col}'")
        text = self[col].strip()
        if text in MISSING:
            return None
        try:
            value = float(text)
        except ValueError:
            raise CsvError(f"{self.path} line {self.line}: column '{col}' = '{text}' is not a number") from None
        if math.isnan(value) or math.isinf(value):
            raise CsvError(f"{self.path} line {self.line}: column '{col}' = '{text}' is not a finite number")
        return value


class Table:
    def __init__(self, path, header, rows):
        self.path, self.header, self.rows = path, header, rows

    def __iter__(self):
        return iter(self.rows)

    def __len__(self):
        return len(self.rows)


def read(path, need=(), numeric=()):
    """Read and check path; need: columns that must exist; numeric: columns that must hold
    numbers (or '-') in every row.  Raises CsvError (or FileNotFoundError)."""
    with open(path, newline="") as f:
        text = f.read()
    if not text:
        raise CsvError(f"{path} line 1: empty file (no header)")
    lines = text.split("\n")
    if lines[-1] != "":
        raise CsvError(f"{path} line {len(lines)}: the last line has no end of line (file truncated?)")
    lines.pop()
    header = None
    rows = []
    for lineno, fields in enumerate(csv.reader(lines), start=1):
        if not fields:
            raise CsvError(f"{path} line {lineno}: empty line")
        if header is None:
            header = [h.strip() for h in fields]
            if len(set(header)) != len(header):
                dup = sorted({h for h in header if header.count(h) > 1})
                raise CsvError(f"{path} line 1: column {dup[0]} appears twice in the header")
            continue
        if len(fields) != len(header):
            raise CsvError(f"{path} line {lineno}: {len(fields)} fields, the header has {len(header)}"
                           " (truncated or malformed row)")
        rows.append(Row(zip(header, fields), path, lineno))
    for col in list(need) + list(numeric):
        if col not in header:
            raise CsvError(f"{path} line 1: no column '{col}' in the header")
    for row in rows:
        for col in numeric:
            row.num(col)
    return Table(path, header, rows)


def read_optional(path, **kw):
    """read(), or None when the file does not exist (a table not run yet)."""
    if not os.path.exists(path):
        return None
    return read(path, **kw)


def main(argv):
    need, numeric, files = [], [], []
    args = iter(argv)
    for a in args:
        if a in ("--need", "--numeric"):
            cols = next(args, "")
            (need if a == "--need" else numeric).extend(c for c in cols.split(",") if c)
        else:
            files.append(a)
    if not files:
        print("usage: nbrcsv.py [--need COL,..] [--numeric COL,..] FILE...", file=sys.stderr)
        return 2
    for path in files:
        try:
            t = read(path, need=need, numeric=numeric)
        except (CsvError, OSError) as e:
            print(f"nbrcsv: {e}", file=sys.stderr)
            return 2
        print(f"{path}: {len(t)} rows, {len(t.header)} columns")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
