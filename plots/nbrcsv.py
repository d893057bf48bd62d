"""nbrcsv - how the plot and report layer reads a results CSV: pandas reads and checks it in one
pass (runs/csvq.py, the drivers' reader, makes the same checks with python's csv module on
machines without pandas, with the same messages).  A damaged CSV stops the script with one line
that names the file and the line:

    results/h200/table1.csv line 7: 12 fields, the header has 51 (truncated or malformed row)

Checks: a header line without repeated names; every row has as many fields as the header; the
file ends with a newline (the programs write whole lines, so a missing one means a cut file); no
empty lines; the columns a caller needs exist.

read(path) gives a DataFrame of text, exactly as written, with two more columns: _file and
_line (the row's line in the file, for messages).  The programs' rows end in one column, knobs
("column=value" pairs separated by spaces: each program's own options, docs/csv.md); read()
expands it into columns (in the order first seen, after the others), "-" in a row without that
pair, so tp or list_method are read by name like any column (a column no row has: as below).  num(df, col) converts a column to numbers:
"-" (the schema's "not applicable") and "" read as NaN, other text that is not a finite
number stops with file, line and column.  A column an older file lacks reads as all NaN
(num) or "" (text): columns are always found by name.

Command line:  python3 plots/nbrcsv.py [--need COL,..] [--numeric COL,..] FILE...
               checks each FILE; exit 0, or exit 2 with one line on stderr.
"""
import io
import math
import os
import sys

import pandas as pd

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "runs"))
import csvq  # noqa: E402  (its CsvError and "not applicable" texts: one meaning everywhere)

CsvError = csvq.CsvError
MISSING = csvq.MISSING
KNOBS = csvq.KNOBS


def read(path, need=(), numeric=()):
    """The checked CSV as a DataFrame of text (plus _file, _line). CsvError or OSError."""
    with open(path, newline="") as f:
        text = f.read()
    if not text:
        raise CsvError(f"{path} line 1: empty file (no header)")
    lines = pd.Series(text.split("\n"))
    if lines.iloc[-1] != "":
        raise CsvError(f"{path} line {len(lines)}: the last line has no end of line (file truncated?)")
    lines = lines.iloc[:-1]
    # fields per line: the commas outside quoted text (pandas fills a short row with "", so the
    # parse alone cannot tell it from empty fields)
    fields = lines.str.replace(r'"[^"]*"', "", regex=True).str.count(",") + 1
    blank = lines.str.strip() == ""
    if blank.any():
        raise CsvError(f"{path} line {int(blank.idxmax()) + 1}: empty line")
    header = pd.read_csv(io.StringIO(lines.iloc[0] + "\n"), header=None, dtype=str,
                         keep_default_na=False).iloc[0].str.strip().tolist()   # as written: read_csv renames repeats
    dup = sorted({h for h in header if header.count(h) > 1})
    if dup:
        raise CsvError(f"{path} line 1: column {dup[0]} appears twice in the header")
    bad = fields != len(header)
    if bad.any():
        k = int(bad.idxmax())
        raise CsvError(f"{path} line {k + 1}: {int(fields.iloc[k])} fields, the header has {len(header)}"
                       " (truncated or malformed row)")
    df = pd.read_csv(io.StringIO(text), dtype=str, keep_default_na=False, na_filter=False, skip_blank_lines=False)
    df.columns = header
    if KNOBS in header:
        df = expand(df, path)
    for col in list(need) + list(numeric):
        if col not in df.columns:
            raise CsvError(f"{path} line 1: no column '{col}' in the header")
    df["_file"] = path
    df["_line"] = range(2, len(df) + 2)   # checked: one line per row, no empty lines
    for col in numeric:
        num(df, col)
    return df


def expand(df, path="CSV"):
    """The knobs column as columns of their own, "-" where a row lacks the pair; CsvError with
    the file and line for a pair that is not column=value, repeats a column or names a core one."""
    core = [c for c in df.columns if c != KNOBS]
    pairs = df[KNOBS][df[KNOBS] != ""].str.split(" ").explode()   # "": a row without pairs
    if pairs.empty:
        return df[core]
    kv = pairs.str.partition("=")
    key, value = kv[0], kv[2]
    bad = (kv[1] != "=") | (key == "")
    clash = key.isin(core)
    twice = pd.Series(pd.MultiIndex.from_arrays([kv.index, key]).duplicated(), index=kv.index)
    for what, mask in (("is not column=value", bad), ("names a column of its own", clash), ("comes twice", twice)):
        if mask.any():
            i = mask.idxmax()
            raise CsvError(f"{path} line {i + 2}: knobs pair '{pairs[mask].iloc[0]}' {what}")
    wide = value.to_frame("value").assign(key=key).set_index("key", append=True)["value"].unstack()
    wide = wide.reindex(index=df.index, columns=pd.unique(key)).fillna("-")
    wide.columns.name = None
    return pd.concat([df[core], wide], axis=1)


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
