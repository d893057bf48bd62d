"""nbrcsv - how the plot and report layer reads a results CSV: runs/csvq.py checks the file
(python's csv module), pandas holds it.  A damaged CSV stops the script with one line that
names the file and the line:

    results/h200/table1.csv line 7: 12 fields, the header has 51 (truncated or malformed row)

Checks (runs/csvq.py): a header line; every row has as many fields as the header; the file
ends with a newline (the programs write whole lines, so a missing one means a cut file); no
empty lines; the columns a caller needs exist.

read(path) gives a DataFrame of text, exactly as written, with two more columns: _file and
_line (the row's line in the file, for messages).  num(df, col) converts a column to numbers:
"-" (the schema's "not applicable") and "" read as NaN, other text that is not a finite
number stops with file, line and column.  A column an older file lacks reads as all NaN
(num) or "" (text): columns are always found by name.

Command line:  python3 plots/nbrcsv.py [--need COL,..] [--numeric COL,..] FILE...
               checks each FILE; exit 0, or exit 2 with one line on stderr.
"""
import math
import os
import sys

import pandas as pd

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "runs"))
import csvq  # noqa: E402

CsvError = csvq.CsvError
MISSING = csvq.MISSING


def read(path, need=(), numeric=()):
    """The checked CSV as a DataFrame of text (plus _file, _line). CsvError or OSError."""
    csvq.read(path, need=list(need) + list(numeric))   # the checks and their messages
    df = pd.read_csv(path, dtype=str, keep_default_na=False, na_filter=False, skip_blank_lines=False)
    df["_file"] = path
    df["_line"] = range(2, len(df) + 2)   # checked: one line per row, no empty lines
    for col in numeric:
        num(df, col)
    return df


def read_optional(path, **kw):
    """read(), or None when the file does not exist (a table not run yet)."""
    if not os.path.exists(path):
        return None
    return read(path, **kw)


def text(df, col):
    """Column col as text; "" where a file lacked it."""
    if col not in df.columns:
        return pd.Series("", index=df.index, dtype=object)
    return df[col].fillna("").astype(str)


def num(df, col):
    """Column col as floats; NaN for '-', '' and a column the file lacks; CsvError naming file,
    line and column for anything else that is not a finite number."""
    if col not in df.columns:
        return pd.Series(float("nan"), index=df.index)
    raw = text(df, col).str.strip()
    val = pd.to_numeric(raw.where(~raw.isin(MISSING)), errors="coerce")
    bad = (val.isna() & ~raw.isin(MISSING)) | val.isin([math.inf, -math.inf])
    if bad.any():
        i = bad.idxmax()
        where = f"{df.at[i, '_file']} line {df.at[i, '_line']}" if "_file" in df.columns else "row"
        what = "a finite number" if raw[i] and not pd.isna(val[i]) else "a number"
        raise CsvError(f"{where}: column '{col}' = '{raw[i]}' is not {what}")
    return val.astype(float)


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
            df = read(path, need=need, numeric=numeric)
        except (CsvError, OSError) as e:
            print(f"nbrcsv: {e}", file=sys.stderr)
            return 2
        print(f"{path}: {len(df)} rows, {len(df.columns) - 2} columns")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
