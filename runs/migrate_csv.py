#!/usr/bin/env python3
"""runs/migrate_csv.py NEW FILE... - give result CSVs the programs' current header.

The programs refuse to append to a CSV whose header differs from theirs (a schema change must
not mix meanings), so after columns are added the committed files need the new header before
a driver can add rows to them. NEW is any CSV the current programs wrote (its header is the
schema). Each FILE is rewritten in NEW's column order; a column FILE lacks is filled with "-"
(not recorded: the rows were measured before the column existed; their values and revisions
are untouched). A column of FILE that NEW lacks stops the migration with a message (nothing is
dropped). Standard library only."""
import csv
import sys


def main(argv):
    if len(argv) < 3:
        sys.stderr.write(__doc__)
        return 2
    with open(argv[1], newline="") as f:
        header = next(csv.reader(f))
    for path in argv[2:]:
        with open(path, newline="") as f:
            rows = list(csv.DictReader(f))
            old = rows[0].keys() if rows else []
        lost = [c for c in old if c not in header]
        if lost:
            sys.stderr.write(f"{path}: columns {', '.join(lost)} are not in the new schema: not migrated\n")
            return 2
        with open(path, "w", newline="") as f:
            w = csv.writer(f, lineterminator="\n")
            w.writerow(header)
            for r in rows:
                w.writerow([r.get(c, "-") if r.get(c) not in (None,) else "-" for c in header])
        print(f"{path}: {len(rows)} rows, {len(header) - len(old)} columns added")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
