# runs/lib.sh - shared by the run drivers: where results go, provenance, resumable runs.
# Sourced by drivers that run under `set -euo pipefail`; every function here works with it.
#
#   machine_name          results/<machine>/: NBR_MACHINE, else the GPU model (h200), else
#                         "cpu-" + the CPU model, lower case, one word
#   csvq ARGS...          runs/csvq.py: CSV files read by column name (python's csv module)
#   csv_get CSV TAG COL   the value of column COL in the last ok row tagged TAG
#   csv_val CSV TAG COL   the same, or "-" (for tables that print what there is)
#   prog_rev CMD...       the git revision CMD reports (CMD --print-config: git_rev=...)
#   run_point CSV KEY -- CMD...
#                         runs CMD (an nbrlab program, or anything that takes its flags) with
#                         --csv CSV --tag KEY, unless CSV already has an ok row tagged KEY that
#                         was measured at the revision CMD reports (CMD --print-config).
#                         A row of another revision is not a measurement of this code: the
#                         point is run again (the old row stays in the file) unless
#                         KEEP_OLD=1. REDO=1 runs it in any case.
#                         BLOCKS_CSV=FILE adds --blocks-csv FILE (one row per averaging block);
#                         ALLOW_DIRTY=1 adds --allow-dirty (programs refuse to append under a
#                         directory named results from a dirty or unknown revision; their
#                         one-line message is shown as it is).
#                         Progress goes to stderr. LOGDIR set: the full output of each run is
#                         kept in LOGDIR/KEY.log. Benchmarks on one machine take turns (flock on
#                         $NBR_LOCK, default /tmp/nbrlab-bench.lock; none = no lock, for tests
#                         that time nothing). Returns the program's exit code.
#   progress_start N      the driver's plan has N points (run_point and hyperfine_point calls):
#                         after each, "[k/N] elapsed 40 s, about 2 min left (KEY)" on stderr, the
#                         time left = the points to go x the mean time of the points that ran
#                         (skipped ones cost nothing, so a resumed run's estimate is not fooled)
#   progress_plan FN ARGS...  progress_start with the points FN would run, counted by a dry call
#   progress_weights W... the plan's points' relative costs in the order they run (after
#                         progress_start; runs/sweep.sh: point_weight of each): the time left is
#                         then the cost to go at the cost rate so far, not the points to go at
#                         the mean point's time (a sweep over sizes said "about 10 s left" after
#                         its small points, then ran minutes)
#   point_weight ARGS...  a program's cost from its flags: atoms x steps, atoms ~ --ne^3 (each
#                         factor 1 where its flag is absent)
#   progress_eta K N ELAPSED RAN RAN_S [TOGO_W RAN_W]   that line's text (K done of N, ELAPSED
#                         s since progress_start, RAN of them ran, in RAN_S s; with weights: the
#                         points to go weigh TOGO_W, the ones that ran RAN_W): the rule, once
#   points_tally_begin    this driver prints a table of its points: each point (its own and its
#                         sub-drivers', runs/sweep.sh) is tallied, ok or not, in $NBR_POINT_TALLY
#   driver_table CSV PREFIX [CSVQ TABLE FLAGS]...
#                         runs/table.sh's table of CSV's rows tagged PREFIX*, but only when
#                         at least one tallied point of CSV and PREFIX ran or was already
#                         measured; else one line saying that nothing ran, and status 1 (the
#                         rows in CSV are older runs': not this run's result)

NBR_RUNS_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
. "$NBR_RUNS_DIR/settings.sh"
# the settings every driver shares (runs/settings.sh: flags, --config, --help, the record)
setting BUILD build "the build directory the programs are taken from (BUILD/<prec>/<program>)"
setting NBR_MACHINE "" "the results/<machine> name (default: the GPU model, else cpu-<model>)"
setting NBR_LOCK /tmp/nbrlab-bench.lock "flock file benchmarks take turns on (none: no lock)"
setting_switch REDO "run every point again, even one already in the CSV"
setting_switch KEEP_OLD "keep a point's row measured at another revision (do not run it again)"
setting_switch ALLOW_DIRTY "let the programs append under results/ from an uncommitted tree"
setting BLOCKS_CSV "" "set: the programs append one row per averaging block to this file"
setting LOGDIR "" "set: keep each point's full output in LOGDIR/TAG.log"

have_gpu() { command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L 2>/dev/null | grep -q GPU; }

machine_name() {
    if [ -n "$NBR_MACHINE" ]; then echo "$NBR_MACHINE"; return; fi
    local gpu
    gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1) || gpu=""
    if [ -n "$gpu" ]; then
        echo "$gpu" | tr 'A-Z' 'a-z' | grep -oE 'h100|h200|a100|b200|gh200|l40s?|v100' | head -1 ||
            echo "$gpu" | tr 'A-Z ' 'a-z-'
        return
    fi
    grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//' | tr 'A-Z' 'a-z' |
        sed -E 's/\(r\)|\(tm\)|processor|cpu|@.*//g; s/[^a-z0-9]+/-/g; s/^-|-$//g; s/^/cpu-/'
}

csvq() { python3 "$NBR_RUNS_DIR/csvq.py" "$@"; }

csv_get() { csvq get "$1" "$3" tag="$2" status=ok; }
# the same for printing: "-" when there is none (no row, no file, or a column an older file
# lacks); a damaged file still says where
csv_val() { csvq get "$1" "$3" tag="$2" status=ok --or -; }

_nbr_lock() {
    local lock=${NBR_LOCK:-/tmp/nbrlab-bench.lock}   # empty: the default
    if [ "$lock" != none ] && command -v flock >/dev/null 2>&1; then flock "$lock" "$@"; else "$@"; fi
}

# The revision a program reports. Its --print-config prints name=value lines and exits 0
# without running; a program that cannot is not built from this tree (make).
prog_rev() {
    local conf rc=0
    conf=$("$@" --print-config 2>&1) || rc=$?
    if [ $rc -ne 0 ]; then
        echo "run_point: $1 --print-config failed (exit $rc): ${conf%%$'\n'*}" >&2
        return 2
    fi
    printf '%s\n' "$conf" | csvq config-get git_rev || {
        echo "run_point: $1 --print-config names no git_rev" >&2
        return 2
    }
}

# For rows the drivers write themselves (hyperfine, LAMMPS): the programs' rule. A CSV inside
# a directory named results gets no row from a dirty or unknown revision unless ALLOW_DIRTY=1.
dirty_refused() {   # dirty_refused CSV REV WHO: exit status 0 (and one line) when refused
    local csv=$1 rev=$2 who=$3
    [ "$ALLOW_DIRTY" = 1 ] && return 1
    case "/$(dirname "$csv")/" in */results/*) ;; *) return 1 ;; esac
    case "$rev" in *-dirty|unknown|"") ;; *) return 1 ;; esac
    echo "$who: refusing to append to $csv: revision '$rev' is not a committed one (commit first, or ALLOW_DIRTY=1)" >&2
    return 0
}

# progress: one implementation for every driver (a long run says how far it is and how long to go)
NBR_PROGRESS_N="" NBR_PROGRESS_K=0 NBR_PROGRESS_T0="" NBR_PROGRESS_RAN=0 NBR_PROGRESS_RAN_S=0 NBR_POINT_RAN=0
NBR_PROGRESS_W=() NBR_PROGRESS_RAN_W=0
progress_start() {
    NBR_PROGRESS_N=$1 NBR_PROGRESS_K=0 NBR_PROGRESS_T0=$EPOCHREALTIME NBR_PROGRESS_RAN=0 NBR_PROGRESS_RAN_S=0
    NBR_PROGRESS_W=() NBR_PROGRESS_RAN_W=0
}
progress_weights() { NBR_PROGRESS_W=("$@"); }
point_weight() {
    awk -v args=" $* " 'BEGIN { n = split(args, a, " "); ne = 1; st = 1
        for (k = 1; k < n; k++) { if (a[k] == "--ne") ne = a[k + 1]; if (a[k] == "--steps") st = a[k + 1] }
        printf "%.0f\n", ne * ne * ne * st }'
}
# progress_plan FN ARGS...: progress_start with the number of points FN's plan has, counted by
# calling FN once with every run_point / hyperfine_point only counting (nothing runs, FN's output
# is dropped), for drivers whose plan is too irregular to count by hand; then call FN for real
NBR_PLAN_COUNTING="" NBR_PLAN_POINTS=0
progress_plan() {
    NBR_PLAN_COUNTING=1 NBR_PLAN_POINTS=0
    "$@" >/dev/null 2>&1 || true   # a point that cannot run stops the real call, with its message
    NBR_PLAN_COUNTING=""
    progress_start "$NBR_PLAN_POINTS"
}
_progress_fmt() { awk -v s="$1" 'BEGIN { if (s < 100) printf "%d s", s + 0.5; else if (s < 6000) printf "%d min", s / 60 + 0.5; else printf "%.1f h", s / 3600 }'; }
progress_eta() {
    local k=$1 n=$2 el=$3 ran=$4 ran_s=$5 togo_w=${6:-} ran_w=${7:-} left
    [ "$k" -gt "$n" ] && n=$k   # a plan that undercounted: no estimate beyond it
    if [ "$k" -ge "$n" ]; then echo "[$k/$n] elapsed $(_progress_fmt "$el"), done"; return; fi
    if [ "$ran" -eq 0 ]; then echo "[$k/$n] elapsed $(_progress_fmt "$el"), time left not known yet"; return; fi
    if [ -n "$togo_w" ] && awk -v w="$ran_w" 'BEGIN { exit !(w > 0) }'; then
        left=$(awk -v w="$togo_w" -v s="$ran_s" -v r="$ran_w" 'BEGIN { print w * s / r }')
    else
        left=$(awk -v r="$ran" -v s="$ran_s" -v m=$((n - k)) 'BEGIN { print m * s / r }')
    fi
    echo "[$k/$n] elapsed $(_progress_fmt "$el"), about $(_progress_fmt "$left") left"
}
_progress_tick() {   # _progress_tick KEY T0: after a point that began at T0 (EPOCHREALTIME)
    [ -n "$NBR_PROGRESS_N" ] || return 0
    local now=$EPOCHREALTIME weighted=() togo=0 k
    NBR_PROGRESS_K=$((NBR_PROGRESS_K + 1))
    if [ "$NBR_POINT_RAN" = 1 ]; then
        NBR_PROGRESS_RAN=$((NBR_PROGRESS_RAN + 1))
        NBR_PROGRESS_RAN_S=$(awk -v a="$NBR_PROGRESS_RAN_S" -v t0="$2" -v t="$now" 'BEGIN { print a + t - t0 }')
        [ ${#NBR_PROGRESS_W[@]} -ge "$NBR_PROGRESS_K" ] &&
            NBR_PROGRESS_RAN_W=$((NBR_PROGRESS_RAN_W + NBR_PROGRESS_W[NBR_PROGRESS_K - 1]))
    fi
    # with every point's weight known: the cost of the points to go
    if [ ${#NBR_PROGRESS_W[@]} -eq "$NBR_PROGRESS_N" ]; then
        for ((k = NBR_PROGRESS_K; k < NBR_PROGRESS_N; k++)); do togo=$((togo + NBR_PROGRESS_W[k])); done
        weighted=("$togo" "$NBR_PROGRESS_RAN_W")
    fi
    echo "$(progress_eta "$NBR_PROGRESS_K" "$NBR_PROGRESS_N" \
        "$(awk -v t0="$NBR_PROGRESS_T0" -v t="$now" 'BEGIN { print t - t0 }')" \
        "$NBR_PROGRESS_RAN" "$NBR_PROGRESS_RAN_S" "${weighted[@]}") ($1)" >&2
}

# a point of the driver's plan through FN (_run_point_once, tables_lib.sh's
# _hyperfine_point_once), then its progress line: _point_with_progress FN CSV KEY ...
_point_with_progress() {
    local fn=$1 t0=$EPOCHREALTIME rc=0
    shift
    if [ -n "${NBR_PLAN_COUNTING:-}" ]; then NBR_PLAN_POINTS=$((NBR_PLAN_POINTS + 1)); return 0; fi
    NBR_POINT_RAN=0 NBR_POINT_ABSENT=0
    "$fn" "$@" || rc=$?
    _progress_tick "$2" "$t0"
    _points_tally "$1" "$2" "$rc"
    return $rc
}

# the tally: one line per point, "ok|failed|absent<TAB>CSV<TAB>KEY" (absent: a tool the point
# needs is not installed, said so; it neither ran nor failed)
NBR_POINT_TALLY=${NBR_POINT_TALLY:-}
points_tally_begin() {
    [ -z "$NBR_POINT_TALLY" ] || return 0   # a sub-driver: its points are its parent's
    NBR_POINT_TALLY=$(mktemp "${TMPDIR:-/tmp}/nbrlab-points.XXXXXX")
    export NBR_POINT_TALLY
    trap 'rm -f "$NBR_POINT_TALLY"' EXIT
}
_points_tally() {   # CSV KEY RC
    [ -n "$NBR_POINT_TALLY" ] || return 0
    local how=failed
    [ "$3" = 0 ] && how=ok && [ "$NBR_POINT_ABSENT" = 1 ] && how=absent
    printf '%s\t%s\t%s\n' "$how" "$1" "$2" >>"$NBR_POINT_TALLY"
}
driver_table() {
    local csv=$1 prefix=$2 tried ok
    shift 2
    tried=$(awk -F'\t' -v c="$csv" -v p="$prefix" '$2 == c && index($3, p) == 1' "$NBR_POINT_TALLY" 2>/dev/null | wc -l)
    ok=$(awk -F'\t' -v c="$csv" -v p="$prefix" '$1 == "ok" && $2 == c && index($3, p) == 1' "$NBR_POINT_TALLY" 2>/dev/null | wc -l)
    if [ "$ok" -eq 0 ]; then
        echo "$(basename "$0"): nothing ran: none of the $tried points was measured or already in $csv at this revision (the messages above say why); no table: its rows are from earlier runs" >&2
        return 1
    fi
    if [ $# -eq 0 ]; then runs/table.sh "$csv" "$prefix"; else csvq table "$csv" --prefix "$prefix" "$@"; fi
}

run_point() { _point_with_progress _run_point_once "$@"; }

_run_point_once() {
    local csv=$1 key=$2
    if [ "${3:-}" != -- ] || [ $# -lt 4 ]; then echo "run_point: usage: run_point CSV KEY -- CMD..." >&2; return 2; fi
    shift 3
    local rev old rc=0
    rev=$(prog_rev "$@") || return 2
    if [ "$REDO" != 1 ]; then
        csvq has "$csv" tag="$key" status=ok git_rev="$rev" || rc=$?
        if [ $rc = 0 ]; then
            echo "  skip $key (in $csv at $rev; REDO=1 to run again)" >&2
            return 0
        elif [ $rc != 1 ]; then
            return 2   # a damaged CSV: csvq said where
        fi
        rc=0
        old=$(csvq get "$csv" git_rev tag="$key" status=ok) || rc=$?
        if [ $rc = 0 ] && [ "$KEEP_OLD" = 1 ]; then
            echo "  skip $key (in $csv at $old, not $rev: kept, KEEP_OLD=1)" >&2
            return 0
        elif [ $rc = 0 ]; then
            echo "  again $key: its row in $csv was measured at $old, this program is $rev (KEEP_OLD=1 keeps it)" >&2
        elif [ $rc != 1 ]; then
            return 2
        fi
    fi
    echo "  run  $key: $*" >&2
    NBR_POINT_RAN=1
    local extra=()
    [ -n "$BLOCKS_CSV" ] && extra+=(--blocks-csv "$BLOCKS_CSV")
    [ "$ALLOW_DIRTY" = 1 ] && extra+=(--allow-dirty)
    rc=0
    if [ -z "$LOGDIR" ]; then
        _nbr_lock "$@" --csv "$csv" --tag "$key" "${extra[@]}" --quiet >&2 || rc=$?
        _point_record "$csv"
        return $rc
    fi
    # LOGDIR: keep the whole output (configuration and per-block lines) in LOGDIR/KEY.log; the
    # rest (summary, messages) goes on as --quiet would have printed it.
    mkdir -p "$LOGDIR"
    _nbr_lock "$@" --csv "$csv" --tag "$key" "${extra[@]}" >"$LOGDIR/$key.log" 2>&1 || rc=$?
    grep -v '^#' "$LOGDIR/$key.log" >&2 || true
    _point_record "$csv"
    return $rc
}

# the driver's effective settings beside the rows: CSV.settings gets this run's block once, as
# soon as the CSV exists
# (a point refused before any row leaves nothing behind); a file untouched since the driver
# started got no row from this run, so no block either (runs whose every point was refused)
NBR_DRIVER_T0=$(date +%s)
_point_record() {
    [ -e "$1" ] && [ "$(stat -c %Y "$1")" -ge "$NBR_DRIVER_T0" ] && settings_record "$1"
    return 0
}
