#!/usr/bin/env python3
"""runs/migrate_csv.py - give result CSVs the programs' current header: core columns plus knobs.

  migrate_csv.py NEW FILE...    rewrite each FILE in place
  migrate_csv.py --check OLD MIGRATED
                                exit 0 when MIGRATED, its knobs expanded (csvq.read), is OLD's
                                table exactly; else one line naming the first difference

The programs refuse to append to a CSV whose header differs from theirs, so a file of the wide
schema (one column per option of the table, "-" where the program lacks it) needs the header of
today before a driver can add rows to it. Since the knobs column (docs/csv.md) the header no
longer grows with a program's knob: this migration is the last one for a new knob.

NEW is any CSV the current programs wrote: its header is the schema (the core columns, then
knobs). Each FILE's row keeps its core columns as they are (one FILE lacks: "-", not recorded)
and its other columns become the knobs pairs, in FILE's order, a value "-" (the option did not
apply) dropped. A column that is neither a core column nor one of FILE's option columns (the
wide schema put those, and ranks, between n and us_per_atom_step) stops the migration with a
message, and so does a FILE that is not the programs' rows (the blocks CSVs, the Coulomb
programs', hyperfine's). Each file is written only after its new text, read back through csvq,
gives its old table exactly (nothing is dropped or changed).

A FILE that has a knobs column already (today's schema, older core columns) gets the core
columns NEW adds since, "-" in its rows (not recorded: e.g. the --check columns, check ...
check_pairs_bad, in rows measured before them), its knobs column as it is; a core column of
FILE's that NEW lacks stops it (a dropped column is not a migration), and a FILE with NEW's
header is left as it is.
Standard library only."""
import csv
import io
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import csvq  # noqa: E402

KNOBS = csvq.KNOBS
FIRST, LAST = "n", "us_per_atom_step"   # the wide schema's option block lies between these
SIGNATURE = ("timestamp", "variant", FIRST, LAST, "status")   # columns of every programs' row


class MigrateError(Exception):
    pass


def knob_columns(path, header, core):
    """FILE's columns that become knobs pairs; MigrateError for a column that cannot."""
    if KNOBS in header:
        raise MigrateError(f"{path}: already has a knobs column: nothing to migrate")
    lacks = [c for c in SIGNATURE if c not in header]
    if lacks:   # a blocks CSV has variant, n and us_per_atom_step but no timestamp or status
        raise MigrateError(f"{path}: not the programs' rows (no {lacks[0]} column): not migrated")
    block = header[header.index(FIRST) + 1:header.index(LAST)]
    knobs = []
    for c in header:
        if c in core:
            continue
        if c not in block:
            raise MigrateError(f"{path}: column {c} is neither a core column of the new schema nor an option "
                               "column: not migrated")
        knobs.append(c)
    return knobs


def check_value(path, line, col, value):
    if any(ch in value for ch in " \t\r\n"):
        raise MigrateError(f"{path} line {line}: column {col} = '{value}' cannot be a knobs pair "
                           "(white space): not migrated")


def migrated_text(path, core):
    """FILE's new text and its old table (a csvq.Table); text None where FILE has NEW's header."""
    old = csvq.read(path)
    if KNOBS in old.file_header:
        return knobbed_text(path, old, core), old
    knobs = knob_columns(path, old.header, core)
    out = io.StringIO()
    w = csv.writer(out, lineterminator="\n")
    w.writerow(core + [KNOBS])
    for line, r in zip(old.lines, old.rows):
        pairs = []
        for c in knobs:
            if r[c] != "-":
                check_value(path, line, c, r[c])
                pairs.append(f"{c}={r[c]}")
        w.writerow([r.get(c, "-") for c in core] + [" ".join(pairs)])
    return out.getvalue(), old


def knobbed_text(path, old, core):
    """A FILE of the knobs schema given NEW's core columns: those it lacks as "-", the rest and its
    knobs column as they are; None where its header is NEW's already."""
    have = [c for c in old.file_header if c != KNOBS]
    if have == core and old.file_header[-1] == KNOBS:
        return None
    lacks = [c for c in SIGNATURE if c not in have]
    if lacks:
        raise MigrateError(f"{path}: not the programs' rows (no {lacks[0]} column): not migrated")
    dropped = [c for c in have if c not in core]
    if dropped:
        raise MigrateError(f"{path}: column {dropped[0]} is not a core column of the new schema: not migrated")
    with open(path, newline="") as f:
        raw = list(csv.DictReader(f))
    out = io.StringIO()
    w = csv.writer(out, lineterminator="\n")
    w.writerow(core + [KNOBS])
    for r in raw:
        w.writerow([r.get(c, "-") for c in core] + [r[KNOBS]])
    return out.getvalue()


def differences(old, new):
    """The first difference between an old (wide) table and a migrated one, expanded; None if none."""
    if len(old) != len(new):
        return f"{len(old)} rows before, {len(new)} after"
    extra = [c for c in new.header if c not in old.header]
    for (line, a), b in zip(zip(old.lines, old.rows), new.rows):
        for c in old.header:
            got = b.get(c, new.missing(c))
            if got != a[c]:
                return f"line {line}: column {c} was '{a[c]}', reads back '{got}'"
        for c in extra:   # a core column the old file lacked: "-" only
            if b[c] != "-":
                return f"line {line}: column {c}, not in the old file, reads back '{b[c]}'"
    return None


def main(argv):
    if len(argv) == 4 and argv[1] == "--check":
        try:
            old, new = csvq.read(argv[2]), csvq.read(argv[3])
        except (csvq.CsvError, OSError) as e:
            print(f"migrate_csv: {e}", file=sys.stderr)
            return 2
        diff = differences(old, new)
        if diff:
            print(f"migrate_csv: {argv[3]} is not {argv[2]}: {diff}", file=sys.stderr)
            return 1
        print(f"{argv[3]}: {len(new)} rows, {len(old.header)} columns of {argv[2]} read back exactly")
        return 0
    if len(argv) < 3 or argv[1].startswith("--"):
        sys.stderr.write(__doc__)
        return 2
    try:
        header = csvq.read(argv[1]).file_header
        if not header or header[-1] != KNOBS:
            raise MigrateError(f"{argv[1]}: its header does not end in {KNOBS}: not a CSV of the current programs")
        core = header[:-1]
        for path in argv[2:]:
            text, old = migrated_text(path, core)
            if text is None:
                print(f"{path}: {len(old)} rows, the header of {argv[1]} already: left as it is")
                continue
            tmp = path + ".migrate.tmp"
            with open(tmp, "w", newline="") as f:
                f.write(text)
            try:
                diff = differences(old, csvq.read(tmp))
            except csvq.CsvError as e:
                diff = str(e)
            if diff:
                os.remove(tmp)
                raise MigrateError(f"{path}: the migrated rows do not read back as the old ones ({diff}): not migrated")
            os.replace(tmp, path)
            print(f"{path}: {len(old)} rows, {len(old.file_header)} columns -> {len(core) + 1}, read back exactly")
    except (MigrateError, csvq.CsvError, OSError) as e:
        print(f"migrate_csv: {e}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
