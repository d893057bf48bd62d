# runs/tables_lib.sh - shared by the paper-table drivers (sweep.sh, table*.sh, texture.sh,
# layout.sh, lammps.sh). Sourced after runs/lib.sh, from the repository root.
#
#   OUT_DIR            where the CSVs go: results/<machine> unless set (the tests point it
#                      at a temporary directory)
#   QUICK=1            the drivers pick fewer points and fewer steps (a smoke run that still
#                      writes real rows: their tags carry the step count, so they never
#                      replace the full runs' rows)
#   need_bin PATH      exit with one clear line when a program is not built
#   hyperfine_point CSV KEY RUNS N STEPS -- CMD...
#                      whole-program wall time of CMD by hyperfine (RUNS runs after one
#                      warm-up), one row per KEY in CSV (resumable like run_point); it sits
#                      beside the in-program stage timers: the difference is start-up, the
#                      equilibration and the host-side set-up that the timers leave out.
#                      Rows carry git_rev: like run_point, a row of another revision is
#                      measured again unless KEEP_OLD=1.

: "${OUT_DIR:=results/$(machine_name)}"
: "${QUICK:=0}"
mkdir -p "$OUT_DIR"

need_bin() {
    [ -x "$1" ] && return 0
    echo "$(basename "$0"): $1 is not built (make; GPU programs need nvcc)" >&2
    exit 1
}

hyperfine_point() {
    local csv=$1 key=$2 runs=$3 n=$4 steps=$5
    shift 6   # CSV KEY RUNS N STEPS --
    local hf=${HYPERFINE:-hyperfine}   # HYPERFINE: a binary carried to a machine without it
    if ! command -v "$hf" >/dev/null 2>&1; then
        echo "  skip hyperfine $key: hyperfine is not installed (apt-get install hyperfine, or HYPERFINE=path)" >&2
        return 0
    fi
    # resumable like run_point: a row of this key at the program's revision is kept
    local rev rc=0
    rev=$(prog_rev "$@") || return 2
    if [ "${REDO:-0}" != 1 ]; then
        csvq has "$csv" tag="$key" git_rev="$rev" || rc=$?
        [ $rc = 0 ] && { echo "  skip hyperfine $key (in $csv at $rev; REDO=1 to run again)" >&2; return 0; }
        [ $rc = 1 ] || return 2
        if [ "${KEEP_OLD:-0}" = 1 ] && csvq has "$csv" tag="$key"; then
            echo "  skip hyperfine $key (in $csv at another revision: kept, KEEP_OLD=1)" >&2
            return 0
        fi
    fi
    dirty_refused "$csv" "$rev" hyperfine_point && return 2
    echo "  hyperfine $key: $* ($runs runs)" >&2
    local tmp
    tmp=$(mktemp)
    # --shell=none: no shell start-up in the measured time; the command is split on spaces,
    # which is safe for our flags (no value has a space).
    rc=0
    _nbr_lock "$hf" --shell=none --runs "$runs" --warmup 1 --style basic --export-csv "$tmp" \
        --command-name "$key" -- "$* --quiet" >&2 || rc=$?
    # hyperfine's own CSV is read by column name (its layout is its business)
    [ $rc = 0 ] && { csvq hyperfine-row "$tmp" "$csv" "$key" "$runs" "$n" "$steps" "$rev" "$*" || rc=$?; }
    rm -f "$tmp"
    return $rc
}
