#!/usr/bin/env bash
# runs/table.sh CSV [TAG-PREFIX] - print the main columns of a results CSV as a table
# (rows whose tag starts with TAG-PREFIX; all rows without one). Columns are found by name
# (runs/csvq.py): a column the file lacks shows "-"; a damaged file stops with its line.
set -euo pipefail
[ $# -ge 1 ] || { echo "usage: runs/table.sh CSV [TAG-PREFIX]" >&2; exit 2; }
csv=$1 prefix=${2:-}
[ -f "$csv" ] || { echo "table.sh: no such file: $csv" >&2; exit 2; }
exec python3 "$(dirname "$0")/csvq.py" table "$csv" --prefix "$prefix"
