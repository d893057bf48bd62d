# runs/tables_lib.sh - shared by the paper-table drivers (sweep.sh, table*.sh, texture.sh,
# layout.sh, lammps.sh). Sourced after runs/lib.sh, from the repository root.
#
# Settings (runs/settings.sh; --out-dir, --quick, --gpu-loop, ... or the old variables):
#   OUT_DIR            where the CSVs go: results/<machine> unless set (the tests point it
#                      at a temporary directory)
#   QUICK=1            the drivers pick fewer points and fewer steps (a smoke run that still
#                      writes real rows: their tags carry the step count, so they never
#                      replace the full runs' rows)
#   GPU_LOOP=device    the step loop of the GPU programs (gpu-*): device (the default) runs the
#                      device-resident loop, GPU_LOOP_DEVICE below: the device decides rebuilds and
#                      reorders and runs ahead, the host reads it every 100 steps, each 100-step chunk
#                      a CUDA graph whose rebuild kernels sit under a conditional node; paper passes
#                      nothing, so the programs' defaults run: the paper's host-driven loop (every
#                      step back to the host), the loop of every row measured before this setting.
#                      A device-loop row's tag says "loop=device"; a tag without a loop part is a
#                      paper-loop row (so GPU_LOOP=paper writes the same tags as before). Stage
#                      timing stays at the programs' default (--stage-reps 20: t_<stage>_us, gbs_*).
#   gpu_loop_of ARGS...     the loop a GPU run with ARGS gets: GPU_LOOP, but paper where ARGS ask for
#                      host layer assignment or host reordering (knobs a driver sweeps itself), which
#                      the device loop cannot run (the programs refuse it), and where ARGS set --decide
#                      themselves (a driver of loops, runs/device_loop.sh: nothing added, tag unchanged)
#   gpu_loop_flags LOOP ARGS...   the flags LOOP adds to ARGS: a knob ARGS set keeps ARGS' value
#   gpu_loop_tag LOOP       the loop's part of a tag: "-loop=device", or nothing for paper
#   point_tag PREFIX PROGRAM PREC SYSTEM LOOP FLAGS [REP]
#                      the tag of a point: PREFIX-PROGRAM-PREC-SYSTEM[-loop=L]-flag=value-...[-rREP]
#                      (63 characters at most: a longer one keeps its head, the loop included, and
#                      ends with a checksum of the whole)
#   need_bin PATH      exit with one clear line when a program is not built
#   hyperfine_point CSV KEY RUNS N STEPS -- CMD...
#                      whole-program wall time of CMD by hyperfine (RUNS runs after one
#                      warm-up), one row per KEY in CSV (resumable like run_point); it sits
#                      beside the in-program stage timers: the difference is start-up, the
#                      equilibration and the host-side set-up that the timers leave out.
#                      Rows carry git_rev: like run_point, a row of another revision is
#                      measured again unless KEEP_OLD=1.

setting OUT_DIR "" "where the CSVs go (default results/<machine>)"
setting_switch QUICK "fewer points and fewer steps: a smoke run that still writes real rows"
setting GPU_LOOP device "the GPU programs' step loop: device or paper"
setting HYPERFINE hyperfine "the hyperfine binary (one carried to a machine without it)"
setting TABLES_NO_MKDIR "" "set: do not create OUT_DIR (a driver that only prints its plan)"
# the checks and set-up that need the final values: after the driver's settings_parse
_tables_setup() {
    [ -n "$OUT_DIR" ] || OUT_DIR=results/$(machine_name)
    case "$GPU_LOOP" in
        device|paper) ;;
        *) echo "$(basename "$0"): GPU_LOOP=$GPU_LOOP: expected device or paper" >&2; exit 2 ;;
    esac
    [ -n "$TABLES_NO_MKDIR" ] || mkdir -p "$OUT_DIR"
    points_tally_begin   # runs/lib.sh: a table only of points that ran (driver_table)
}
settings_hook _tables_setup
# every flag is one the GPU programs (gpu-layer, gpu-old) have: `<program> --help`
GPU_LOOP_DEVICE="--layers device --reorder-at device --reduce device --decide device --graph cond --sample-every 100"

gpu_loop_of() {
    local args=" $* "
    case "$args" in
        *" --layers host "*|*" --reorder-at host "*|*" --decide "*) echo paper ;;
        *) echo "$GPU_LOOP" ;;
    esac
}

gpu_loop_flags() {
    local loop=$1 flag out=()
    shift
    [ "$loop" = device ] || return 0
    local args=" $* "
    set -- $GPU_LOOP_DEVICE
    while [ $# -ge 2 ]; do
        flag=$1
        case "$args" in *" $flag "*) ;; *) out+=("$flag" "$2") ;; esac
        shift 2
    done
    echo "${out[*]}"
}

# layer_sweep CSV TAG SYSTEM NE FLAG VALUES: one runs/sweep.sh of gpu-layer over FLAG's values,
# with the driver's PREC, REPEAT, STEPS and EQUIL and the shared settings handed on (tables 5-7,
# texture, layout)
layer_sweep() {
    local csv=$1 tag=$2 sys=$3 ne=$4
    shift 4
    settings_shared
    runs/sweep.sh "${SETTINGS_SHARED[@]}" --prec="$PREC" --repeat="$REPEAT" --csv="$csv" --tag="$tag" gpu-layer "$sys" \
        --ne "$ne" "$@" --steps "$STEPS" --equil "$EQUIL"
}

gpu_loop_tag() { [ "$1" = paper ] || echo "-loop=$1"; }

point_tag() {
    local tag sum
    tag="$1-$2-$3-$4$(gpu_loop_tag "$5")$(printf ' %s' $6 | sed -E 's/ --([^ ]+) ([^ ]+)/-\1=\2/g; s/ +$//')"
    [ "${7:-1}" -gt 1 ] && tag="$tag-r$7"
    if [ ${#tag} -gt 63 ]; then
        sum=$(printf '%s' "$tag" | cksum | cut -d' ' -f1)
        tag="${tag:0:$((62 - ${#sum}))}~$sum"
    fi
    echo "$tag"
}

need_bin() {
    [ -x "$1" ] || { echo "$(basename "$0"): $1 is not built (make; GPU programs need nvcc)" >&2; exit 1; }
    # a CUDA program (an ELF: the tests' stand-ins are scripts) where no GPU is: one line up front,
    # not every point into the program's exit 6
    case $(basename "$1") in gpu-* | coulomb-cuda)
        if [ "$(head -c 4 "$1" | tr -d '\177')" = ELF ] && ! have_gpu; then
            echo "$(basename "$0"): no GPU found (nvidia-smi lists none): $1 cannot run here (docs/device.md)" >&2
            exit 6
        fi ;;
    esac
}

# a point of the driver's plan, like run_point (progress_start, runs/lib.sh)
hyperfine_point() { _point_with_progress _hyperfine_point_once "$@"; }

_hyperfine_point_once() {
    local csv=$1 key=$2 runs=$3 n=$4 steps=$5
    shift 6   # CSV KEY RUNS N STEPS --
    local hf=${HYPERFINE:-hyperfine}
    if ! command -v "$hf" >/dev/null 2>&1; then
        NBR_POINT_ABSENT=1
        echo "  skip hyperfine $key: hyperfine is not installed (apt-get install hyperfine, or HYPERFINE=path)" >&2
        return 0
    fi
    # resumable like run_point: a row of this key at the program's revision is kept
    local rev rc=0
    rev=$(prog_rev "$@") || return 2
    if [ "$REDO" != 1 ]; then
        csvq has "$csv" tag="$key" git_rev="$rev" || rc=$?
        [ $rc = 0 ] && { echo "  skip hyperfine $key (in $csv at $rev; REDO=1 to run again)" >&2; return 0; }
        [ $rc = 1 ] || return 2
        if [ "$KEEP_OLD" = 1 ] && csvq has "$csv" tag="$key"; then
            echo "  skip hyperfine $key (in $csv at another revision: kept, KEEP_OLD=1)" >&2
            return 0
        fi
    fi
    dirty_refused "$csv" "$rev" hyperfine_point && return 2
    echo "  hyperfine $key: $* ($runs runs)" >&2
    NBR_POINT_RAN=1
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
    _point_record "$csv"
    return $rc
}
