#!/usr/bin/env bash
# runs/device/snap.sh - a device call measures a committed revision, never the working tree:
#   here:        runs/device/snap.sh          (writes .snap.tar = git archive HEAD, and .git-rev)
#   the call:    carry [".snap.tar", ".git-rev", ...]; command: runs/device/snap.sh --run CMD...
# --run unpacks the archive into /tmp/nbrlab-snap (with .git-rev and the carried .cl/.whl) and
# runs CMD there, so edits not yet committed (a helper's work in progress in a shared tree)
# travel with the call but are never built or timed.
set -euo pipefail
if [ "${1:-}" != --run ]; then
    cd "$(dirname "$0")/../.."
    git archive HEAD >.snap.tar
    git describe --always --abbrev=12 >.git-rev
    echo "snapshot of $(cat .git-rev): .snap.tar ($(du -h .snap.tar | cut -f1)); uncommitted: $(git status --short | wc -l) path(s), left out"
    exit 0
fi
shift
W=/tmp/nbrlab-snap
[ -f .snap.tar ] || { echo "snap.sh: .snap.tar was not carried (carry [\".snap.tar\", \".git-rev\"])" >&2; exit 2; }
rm -rf "$W" && mkdir -p "$W" && tar xf .snap.tar -C "$W"
cp .git-rev "$W/"
for d in .cl .whl; do [ -d "$d" ] && cp -r "$d" "$W/"; done
for f in .snap-base.tar .git-rev-base; do [ -f "$f" ] && cp "$f" "$W/"; done   # runs/device/seam.sh's base
cd "$W"
exec "$@"
