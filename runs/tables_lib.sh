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
#   blocks_csv CSV LOG...  rewrite CSV from the per-1000-step block lines of the logs

: "${OUT_DIR:=results/$(machine_name)}"
: "${QUICK:=0}"
mkdir -p "$OUT_DIR"

need_bin() {
    [ -x "$1" ] && return 0
    echo "$(basename "$0"): $1 is not built (make; GPU programs need nvcc)" >&2
    exit 1
}

# Run a shell command under the benchmark lock that run_point uses, so that hyperfine's
# timings never overlap another benchmark on this machine.
_locked() {
    if command -v flock >/dev/null 2>&1; then flock /tmp/nbrlab-bench.lock "$@"; else "$@"; fi
}

hyperfine_point() {
    local csv=$1 key=$2 runs=$3 n=$4 steps=$5
    shift 6   # CSV KEY RUNS N STEPS --
    local hf=${HYPERFINE:-hyperfine}   # HYPERFINE: a binary carried to a machine without it
    if ! command -v "$hf" >/dev/null 2>&1; then
        echo "  skip hyperfine $key: hyperfine is not installed (apt-get install hyperfine, or HYPERFINE=path)" >&2
        return 0
    fi
    if [ "${REDO:-0}" != 1 ] && [ -f "$csv" ] && awk -F, -v k="$key" 'NR > 1 && $1 == k { f = 1 } END { exit !f }' "$csv"; then
        echo "  skip hyperfine $key (already in $csv; REDO=1 to run again)" >&2
        return 0
    fi
    echo "  hyperfine $key: $* ($runs runs)" >&2
    local tmp
    tmp=$(mktemp) || return 1
    # --shell=none: no shell start-up in the measured time; the command is split on spaces,
    # which is safe for our flags (no value has a space).
    if ! _locked "$hf" --shell=none --runs "$runs" --warmup 1 --style basic --export-csv "$tmp" \
        --command-name "$key" -- "$* --quiet" >&2; then
        rm -f "$tmp"; return 1
    fi
    # hyperfine's columns are looked up by name: its CSV layout is its own business.
    [ -f "$csv" ] || echo "tag,timestamp,host,runs,n,steps,mean_s,stddev_s,median_s,min_s,max_s,user_s,system_s,us_per_atom_step_whole,command" >"$csv"
    awk -F, -v key="$key" -v runs="$runs" -v n="$n" -v steps="$steps" -v host="$(hostname)" \
        -v ts="$(date -u +%Y-%m-%dT%H:%M:%SZ)" -v cmd="$*" '
        NR == 1 { for (k = 1; k <= NF; k++) c[$k] = k; next }
        NR == 2 { gsub(/,/, ";", cmd)
                  printf "%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%.6g,%s\n", key, ts, host, runs, n, steps,
                         $c["mean"], $c["stddev"], $c["median"], $c["min"], $c["max"], $c["user"], $c["system"],
                         $c["mean"] / (n * steps) * 1e6, cmd }' "$tmp" >>"$csv"
    rm -f "$tmp"
}

blocks_csv() {
    local csv=$1; shift
    python3 runs/blocks.py "$csv" "$@"
}
