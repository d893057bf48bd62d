# runs/lib.sh - shared by the run drivers: where results go, provenance, resumable runs.
#
#   machine_name          results/<machine>/: NBR_MACHINE, else the GPU model (h200), else
#                         "cpu-" + the CPU model, lower case, one word
#   run_point CSV KEY -- CMD...
#                         runs CMD (a variant with --csv CSV --tag KEY ...) unless CSV already
#                         has a row with tag KEY and status ok; REDO=1 runs it anyway.
#                         Progress goes to stderr. LOGDIR set: the full output of each run
#                         is kept in LOGDIR/KEY.log. Benchmarks on one machine take turns
#                         (flock on $NBR_LOCK, default /tmp/nbrlab-bench.lock; none =
#                         no lock, for tests that time nothing).
#   csv_get CSV TAG COL   the value of column COL in the last ok row tagged TAG

: "${BUILD:=build}"

have_gpu() { command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L 2>/dev/null | grep -q GPU; }

machine_name() {
    if [ -n "${NBR_MACHINE:-}" ]; then echo "$NBR_MACHINE"; return; fi
    local gpu
    gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1)
    if [ -n "$gpu" ]; then
        echo "$gpu" | tr 'A-Z' 'a-z' | grep -oE 'h100|h200|a100|b200|gh200|l40s?|v100' | head -1 ||
            echo "$gpu" | tr 'A-Z ' 'a-z-'
        return
    fi
    grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//' | tr 'A-Z' 'a-z' |
        sed -E 's/\(r\)|\(tm\)|processor|cpu|@.*//g; s/[^a-z0-9]+/-/g; s/^-|-$//g; s/^/cpu-/'
}

# Column index (1-based) of NAME in the CSV header.
csv_col() { head -1 "$1" | tr ',' '\n' | grep -nx "$2" | cut -d: -f1; }

csv_get() {
    local csv=$1 tag=$2 col=$3 tcol scol vcol
    [ -f "$csv" ] || return 1
    tcol=$(csv_col "$csv" tag); scol=$(csv_col "$csv" status); vcol=$(csv_col "$csv" "$col")
    [ -n "$vcol" ] || { echo "csv_get: no column $col in $csv" >&2; return 1; }
    awk -F, -v t="$tag" -v tc="$tcol" -v sc="$scol" -v vc="$vcol" \
        'NR > 1 && $tc == t && $sc == "ok" { v = $vc } END { if (v != "") print v; else exit 1 }' "$csv"
}

run_point() {
    local csv=$1 key=$2
    shift 3   # CSV KEY --
    if [ "${REDO:-0}" != 1 ] && csv_get "$csv" "$key" status >/dev/null 2>&1; then
        echo "  skip $key (already in $csv; REDO=1 to run again)" >&2
        return 0
    fi
    echo "  run  $key: $*" >&2
    # One benchmark at a time on this machine (two cores): timings taken side by side with
    # another benchmark would be worth little. flock waits for the other to finish.
    local lock=()
    [ "${NBR_LOCK:-/tmp/nbrlab-bench.lock}" != none ] && command -v flock >/dev/null 2>&1 &&
        lock=(flock "${NBR_LOCK:-/tmp/nbrlab-bench.lock}")
    if [ -z "${LOGDIR:-}" ]; then
        "${lock[@]}" "$@" --csv "$csv" --tag "$key" --quiet >&2
        return
    fi
    # LOGDIR: keep the whole output (configuration and per-block lines, which tables 4 and 8
    # are made of) in LOGDIR/KEY.log; the summary goes on as --quiet would have printed it.
    mkdir -p "$LOGDIR"
    "${lock[@]}" "$@" --csv "$csv" --tag "$key" >"$LOGDIR/$key.log" 2>&1
    local rc=$?
    grep -v '^#' "$LOGDIR/$key.log" >&2
    return $rc
}
