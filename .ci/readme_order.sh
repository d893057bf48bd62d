#!/usr/bin/env bash
# .ci/readme_order.sh - the last step of the README's order on a fresh clone (issue 39), after
# `make run` and `make test` have added rows under results/: `runs/table2.sh --quick` must exit
# 0 and add its 3 points as rows of this commit (a refused point, as when those rows made the
# build "-dirty", adds none). About 40 s on 2 cores.
set -euo pipefail
cd "$(dirname "$0")/.."
rev=$(runs/code_rev.sh)
case $rev in *-dirty) echo "readme order: FAILED: the code's revision is $rev after make run and make test" \
    "(git status: $(git status --porcelain --untracked-files=no | tr '\n' ' '))"; exit 1 ;; esac
csv=results/$(bash -c 'set -euo pipefail; . runs/lib.sh; machine_name')/table2.csv
count() { python3 - "$csv" "$rev" <<'PY'
import csv, os, sys
rows = list(csv.DictReader(open(sys.argv[1]))) if os.path.exists(sys.argv[1]) else []
print(sum(r["git_rev"] == sys.argv[2] and r["status"] == "ok" and r["tag"].startswith("t2-") for r in rows))
PY
}
before=$(count)
rc=0
runs/table2.sh --quick --redo >build/ci-table2.log 2>&1 || rc=$?
added=$(($(count) - before))
if [ $rc -ne 0 ] || [ "$added" -ne 3 ]; then
    tail -n 20 build/ci-table2.log
    echo "readme order: FAILED: runs/table2.sh --quick exit $rc, $added of 3 rows added at $rev to $csv"
    exit 1
fi
echo "readme order: passed (make run, make test, runs/table2.sh --quick: $added rows at $rev)"
