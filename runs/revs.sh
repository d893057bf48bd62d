# runs/revs.sh - build a revision of nbrlab away from the main working tree (sourced by
# runs/compare.sh and runs/bench.sh).
#
#   rev_tree SPEC [SUFFIX] [PATCH]
#       prepares a source tree for SPEC, builds it and sets REV_TREE (the tree), REV_BUILD
#       (its build directory: REV_BUILD/<precision>/<variant>) and REV_LABEL (the revision
#       as the programs' CSV rows will name it). SPEC is one of
#         a git revision (HEAD, HEAD~1, a hash, a tag): a detached `git worktree` in
#             $NBR_WT_ROOT/<hash>[SUFFIX] (default /tmp/nbrlab-wt), reused when it is there
#             (compare.sh and bench.sh remove the ones they add: rev_cleanup);
#         WT (or "worktree", "."): a snapshot of the working tree (tracked and untracked,
#             not ignored files) with the code's revision (runs/code_rev.sh) in .git-rev;
#         dir:PATH: a source tree without git (an export of `runs/compare.sh --export`, or
#             the tree on the GPU machine), built in place; the revision is PATH/.git-rev;
#         build:PATH: programs already built (PATH/<precision>/<variant>); nothing is built.
#       PATCH: a diff, or an executable run as PATCH TREE (the planted-slowdown fixture
#       tests/fixtures/slow-force.sh), applied to the tree after it is made; the tree is then a
#       throwaway one of its own (reused as it is by later calls), never the main working tree.
#   rev_export SPEC DIR  writes the sources of SPEC (git archive) with .git-rev into DIR.
#   rev_cleanup  removes the git worktrees this shell's rev_tree calls added (REV_CREATED):
#       NBR_WT_ROOT is shared by every user of the machine, and a worktree left there stays
#       registered in this repository. Callers run it on EXIT (and exit on INT/TERM).
# NBR_WT_ROOT is a setting (runs/settings.sh: --nbr-wt-root in the drivers that source this).
# Set by the callers, not settings: REV_PRECISIONS (precisions to build, default "double
# float"), REV_TARGETS (make targets, default "cpu gpu"), REV_JOBS (make -j, default 2),
# REV_LOG (build log file, default <tree>/build.log)

setting NBR_WT_ROOT /tmp/nbrlab-wt "where runs/revs.sh puts the trees of revisions (shared by every user of the machine)"
REV_CREATED=()

_rev_die() { echo "revs: $*" >&2; return 2; }

# The repository root of the main working tree (where this file lives).
_rev_repo() { (cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd); }

_rev_make() {
    local tree=$1 log=${REV_LOG:-$1/build.log}
    echo "  building $REV_LABEL in $tree (make -j${REV_JOBS:-2} ${REV_TARGETS:-cpu gpu}; log $log)" >&2
    # a tree without .git (snapshot, export) takes its revision from .git-rev: keep git from
    # finding an enclosing repository (an export under build/ of the main checkout)
    local nogit=()
    [ -e "$tree/.git" ] || nogit=(env GIT_DIR=/nonexistent GIT_CEILING_DIRECTORIES=/)
    if ! "${nogit[@]}" make -C "$tree" -j"${REV_JOBS:-2}" PRECISIONS="${REV_PRECISIONS:-double float}" \
            ${REV_TARGETS:-cpu gpu} >"$log" 2>&1; then
        tail -n 15 "$log" >&2
        _rev_die "build of $REV_LABEL failed (log: $log)"
        return 2
    fi
}

# PATCH: a diff (git apply / patch -p1), or an executable that changes the tree it is given
# (tests/fixtures/slow-force.sh: robust to edits around the lines it changes).
_rev_patch() {
    local tree=$1 patch=$2
    [ -f "$patch" ] || { _rev_die "no patch file $patch"; return 2; }
    if [ -x "$patch" ] && [ "${patch%.patch}" = "$patch" ] && [ "${patch%.diff}" = "$patch" ]; then
        "$patch" "$tree" >&2 || { _rev_die "$patch failed on $REV_LABEL"; return 2; }
    elif [ -e "$tree/.git" ]; then
        git -C "$tree" apply -C1 "$patch" ||
            { _rev_die "patch $patch does not apply to $REV_LABEL"; return 2; }
    else
        (cd "$tree" && patch -p1 -F1 -s) <"$patch" ||
            { _rev_die "patch $patch does not apply to $REV_LABEL"; return 2; }
    fi
}

# The name a patch gives a label: slow-force.patch or slow-force.sh -> slow-force
_rev_patch_name() { local b; b=$(basename "$1"); echo "${b%.*}"; }

rev_tree() {
    local spec=$1 suffix=${2:-} patch=${3:-} repo hash tree
    repo=$(_rev_repo)
    REV_TREE="" REV_BUILD="" REV_LABEL=""
    case "$spec" in
    build:*)
        REV_BUILD=$(cd "${spec#build:}" 2>/dev/null && pwd) || { _rev_die "no directory ${spec#build:}"; return 2; }
        REV_LABEL=$(basename "$REV_BUILD")
        if [ -f "$REV_BUILD/.git-rev" ]; then REV_LABEL=$(head -1 "$REV_BUILD/.git-rev")
        elif [ -f "$REV_BUILD/../.git-rev" ]; then REV_LABEL=$(head -1 "$REV_BUILD/../.git-rev"); fi
        [ -z "$patch" ] || { _rev_die "a patch needs sources, not build:"; return 2; }
        return 0 ;;
    dir:*)
        REV_TREE=$(cd "${spec#dir:}" 2>/dev/null && pwd) || { _rev_die "no directory ${spec#dir:}"; return 2; }
        [ -f "$REV_TREE/Makefile" ] || { _rev_die "$REV_TREE has no Makefile"; return 2; }
        REV_LABEL=$(head -1 "$REV_TREE/.git-rev" 2>/dev/null || echo unknown)
        if [ -n "$patch" ]; then
            local copy="$NBR_WT_ROOT/dir-$(basename "$REV_TREE")$suffix"
            rm -rf "$copy" && mkdir -p "$copy" && (cd "$REV_TREE" && tar cf - --exclude=./build .) | (cd "$copy" && tar xf -)
            REV_TREE=$copy
            _rev_patch "$REV_TREE" "$patch" || return 2
            REV_LABEL="$REV_LABEL+$(_rev_patch_name "$patch")"
            echo "$REV_LABEL" >"$REV_TREE/.git-rev"
        fi ;;
    WT | worktree | .)
        local desc
        desc=$("$repo/runs/code_rev.sh" "$repo") || { _rev_die "not a git checkout: $repo"; return 2; }
        REV_TREE="$NBR_WT_ROOT/worktree$suffix"
        mkdir -p "$REV_TREE"
        # a snapshot, so edits made while the benchmark runs do not reach it; the build dir stays
        find "$REV_TREE" -mindepth 1 -maxdepth 1 ! -name build -exec rm -rf {} +
        (cd "$repo" && git ls-files -z -co --exclude-standard | while IFS= read -r -d '' f; do
            [ -e "$f" ] && printf '%s\0' "$f"; done | tar cf - --null -T -) | (cd "$REV_TREE" && tar xf -)
        echo "$desc" >"$REV_TREE/.git-rev"
        REV_LABEL=$desc
        if [ -n "$patch" ]; then
            _rev_patch "$REV_TREE" "$patch" || return 2
            REV_LABEL="$desc+$(_rev_patch_name "$patch")"
            echo "$REV_LABEL" >"$REV_TREE/.git-rev"
        fi
        # -dirty rows say so themselves; the Makefile reads .git-rev where there is no .git
        ;;
    *)
        git -C "$repo" rev-parse --git-dir >/dev/null 2>&1 ||
            { _rev_die "'$spec' is not a revision here: $repo is not a git checkout (use dir:PATH for a tree without git)"; return 2; }
        hash=$(git -C "$repo" rev-parse --verify --quiet "$spec^{commit}" 2>/dev/null) ||
            { _rev_die "'$spec' is not a revision of $repo"; return 2; }
        REV_LABEL=$(git -C "$repo" describe --always --abbrev=12 "$hash")
        tree="$NBR_WT_ROOT/${hash:0:12}$suffix"
        [ -n "$patch" ] && tree="$tree+$(_rev_patch_name "$patch")"
        if [ -z "$patch" ] && [ -e "$tree/.git" ] && [ "$(git -C "$tree" rev-parse HEAD 2>/dev/null)" = "$hash" ] &&
            git -C "$tree" diff --quiet HEAD; then
            :   # reuse: same commit, no local change (a patched tree is made anew each time)
        else
            [ -e "$tree" ] && { git -C "$repo" worktree remove --force "$tree" 2>/dev/null || rm -rf "$tree"; }
            git -C "$repo" worktree prune
            mkdir -p "$NBR_WT_ROOT"
            REV_CREATED+=("$tree")   # before the add: an interrupt during it still cleans up
            git -C "$repo" worktree add --detach --quiet "$tree" "$hash" >&2 ||
                { _rev_die "git worktree add $tree $spec failed"; return 2; }
            if [ -n "$patch" ]; then
                _rev_patch "$tree" "$patch" || return 2
            fi
        fi
        REV_TREE=$tree
        [ -n "$patch" ] && REV_LABEL="$REV_LABEL+$(_rev_patch_name "$patch")"
        ;;
    esac
    REV_BUILD=$REV_TREE/build
    _rev_make "$REV_TREE" || return 2
}

rev_cleanup() {
    local repo t
    [ ${#REV_CREATED[@]} -gt 0 ] || return 0
    repo=$(_rev_repo)
    for t in "${REV_CREATED[@]}"; do
        git -C "$repo" worktree remove --force "$t" 2>/dev/null || rm -rf "$t"
    done
    git -C "$repo" worktree prune
    REV_CREATED=()
}

rev_export() {
    local spec=$1 dir=$2 repo hash
    repo=$(_rev_repo)
    hash=$(git -C "$repo" rev-parse --verify --quiet "$spec^{commit}") || { _rev_die "'$spec' is not a revision"; return 2; }
    rm -rf "$dir" && mkdir -p "$dir" || return 2
    # what a build needs: the Makefile and the source directories (results and figures stay)
    local paths=() p
    for p in Makefile common kernels variants tests; do
        git -C "$repo" cat-file -e "$hash:$p" 2>/dev/null && paths+=("$p")
    done
    git -C "$repo" archive "$hash" "${paths[@]}" | tar xf - -C "$dir" || return 2
    git -C "$repo" describe --always --abbrev=12 "$hash" >"$dir/.git-rev"
    echo "  exported $spec ($(cat "$dir/.git-rev")) to $dir" >&2
}
