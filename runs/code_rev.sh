#!/usr/bin/env bash
# runs/code_rev.sh [DIR] - the revision of the code in DIR's git checkout (default: this one), as
# every CSV row names it: `git describe --always --abbrev=12`, "-dirty" when a tracked file
# differs from HEAD. Measured data does not count: rows a user adds under results/ and figures
# drawn into plots/out/ leave the code's revision clean (docs/regression.md, "Code and data"),
# so `make run` followed by a driver does not make the driver's rows refused.
set -euo pipefail
dir=${1:-$(dirname "$0")/..}
rev=$(git -C "$dir" describe --always --abbrev=12)
git -C "$dir" update-index -q --refresh >/dev/null 2>&1 || true
if ! git -C "$dir" diff-index --quiet HEAD -- . ':(exclude)results' ':(exclude)plots/out'; then
    rev=$rev-dirty
fi
echo "$rev"
