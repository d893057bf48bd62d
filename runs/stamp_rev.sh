#!/usr/bin/env bash
# runs/stamp_rev.sh - write .git-rev, the revision a tree keeps when it travels without .git
# (to the GPU machine, as a tarball): the Makefile reads it there, so every CSV row still
# names the commit it was measured at. Run it here, after committing, before the tree travels:
#   runs/stamp_rev.sh && <copy the tree, .git-rev included>
# A tree whose code differs from HEAD is stamped "-dirty": the programs then refuse to add rows under results/
# (unless --allow-dirty), so commit first.
set -euo pipefail
cd "$(dirname "$0")/.."
[ "$(git rev-parse --show-toplevel 2>/dev/null)" = "$PWD" ] ||
    { echo "stamp_rev: $PWD is not the top of a git checkout of nbrlab" >&2; exit 2; }
rev=$(runs/code_rev.sh)
echo "$rev" >.git-rev
echo "stamp_rev: .git-rev = $rev"
case "$rev" in *-dirty) echo "stamp_rev: uncommitted changes: rows measured from this tree will be refused under results/" >&2 ;; esac
