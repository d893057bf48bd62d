#!/usr/bin/env bash
# runs/gpu_layer.sh - gpu-layer timings on this GPU (Rapaport 2011 Tables 1, 5, 6, 7, and the
# knobs the paper fixed), appended to results/<machine>/gpu_layer.csv, one row per run.
#
#   sizes    SP ne = 16 .. 160 and LJ ne = 16 .. 100 at the paper's settings (float, 128
#            threads, texture, reorder every 100 steps, 6000 steps of which 500 equilibrate),
#            and the same in double for a few sizes
#   S-*      system S (SP, ne 48): one knob at a time away from the paper's settings --
#            threads, read mode, reorder interval N_R (Table 7), W layout, layer assignment,
#            final reduction, reordering place, and delta (Table 5)
#   best-*   all-device settings at N ~ 1M (ne 100), SP and LJ, float: read mode, block size,
#            reorder interval, shell thickness delta
# Each row's us_per_atom_step is the median over its 1000-step blocks (common/md_loop.c), so
# one run per point. The programs' summaries and '# bandwidth' lines go to stderr.
# The step loop is GPU_LOOP's (runs/tables_lib.sh; device by default): a point's key ends with
# "-loop=device" where it ran the device loop; the points that put layer assignment or
# reordering on the host (S-layers-host, S-reorder-at-host) keep the paper's loop.
# Settings: runs/gpu_layer.sh --help (the table below, or the old variables; docs/drivers.md).
#   SANITIZE=1: instead of timings, compute-sanitizer memcheck and racecheck on small runs
#            (ne 10, 200 steps, reordering every 20) covering every kernel and read mode,
#            both precisions; prints the tools' summaries, exit 1 on any error.
set -euo pipefail
cd "$(dirname "$0")/.."
. runs/lib.sh
settings_begin "runs/gpu_layer.sh [settings]" "gpu-layer timings on this GPU -> gpu_layer.csv (or --sanitize: compute-sanitizer)"
setting PARTS "sizes S place best" "the size scans, one knob at a time on S, where each stage runs on S, the settings at N ~ 1M"
setting STEPS 6000 "steps per run, equilibration included"
setting EQUIL 500 "equilibration steps"
setting_switch SANITIZE "compute-sanitizer memcheck and racecheck on small runs instead of timings"
setting VARIANTS gpu-layer "--sanitize's programs"
_gpu_layer_sanitize() { [ "$SANITIZE" = 0 ] || TABLES_NO_MKDIR=1; }   # no rows: no OUT_DIR
settings_hook _gpu_layer_sanitize
. runs/tables_lib.sh
settings_parse "$@"

if [ "$SANITIZE" = 1 ]; then
    nvidia-smi -L || true
    fail=0
    for v in $VARIANTS; do
        for prec in float double; do
            for knobs in "--read texture" "--read ldg --wlayout col --layers device --reduce device --reorder-at device" \
                         "--read plain --threads 32"; do
                tools="memcheck racecheck"
                case $knobs in *plain*) tools=memcheck ;; esac   # racecheck: shared memory only
                for tool in $tools; do
                    echo "== $tool $v $prec $knobs"
                    rc=0
                    out=$(compute-sanitizer --tool $tool --error-exitcode 9 "$BUILD/$prec/$v" --ne 10 --steps 200 \
                        --equil 100 --reorder 20 $knobs --quiet 2>&1) || rc=$?
                    grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|Error|error|us/atom' <<<"$out" || true
                    echo "exit code $rc"
                    [ "$rc" -eq 0 ] || fail=1
                done
            done
        done
    done
    echo "sanitizer: $([ $fail = 0 ] && echo 'no errors' || echo 'ERRORS FOUND')"
    exit $fail
fi
csv=$OUT_DIR/gpu_layer.csv
steps_for() { echo "--steps $STEPS --equil $EQUIL"; }
part() { case " $PARTS " in *" $1 "*) return 0 ;; esac; return 1; }

point() {   # point KEY PREC ARGS...
    local key=$1 prec=$2; shift 2
    local bin=$BUILD/$prec/gpu-layer loop
    [ -x "$bin" ] || { echo "  no $bin" >&2; return 1; }
    loop=$(gpu_loop_of "$@")
    # shellcheck disable=SC2046  # steps_for and the loop's flags are lists of flags
    run_point "$csv" "$key$(gpu_loop_tag "$loop")" -- "$bin" "$@" $(gpu_loop_flags "$loop" "$@") $(steps_for) ||
        echo "  FAILED: $key" >&2
}

if [ "$QUICK" = 1 ]; then
    sp_sizes="48 100" lj_sizes="48 100" double_sizes="100"
else
    sp_sizes="16 24 32 48 64 80 100 128 160" lj_sizes="16 24 32 48 64 80 100" double_sizes="32 64 100"
fi

plan() {   # every point of PARTS, in order (called twice: counted, then run)
    if part sizes; then
        for ne in $sp_sizes; do point "size-sp-ne$ne-float" float --system sp --ne "$ne"; done
        for ne in $lj_sizes; do point "size-lj-ne$ne-float" float --system lj --ne "$ne"; done
        for ne in $double_sizes; do
            point "size-sp-ne$ne-double" double --system sp --ne "$ne"
            point "size-lj-ne$ne-double" double --system lj --ne "$ne"
        done
    fi

    S="--system sp --ne 48"
    if [ "$QUICK" = 1 ]; then
        if part S; then for r in ldg plain; do point "S-read-$r" float $S --read $r; done; fi
        if part place; then point "S-all-device" float $S --layers device --reduce device --reorder-at device; fi
    else
        if part S; then
            for t in 32 64 128 256 512 1024; do point "S-threads-$t" float $S --threads $t; done
            for r in texture ldg plain; do point "S-read-$r" float $S --read $r; done
            for nr in 0 10 50 100 500 1000; do point "S-reorder-$nr" float $S --reorder $nr; done
            for w in row col; do point "S-wlayout-$w" float $S --wlayout $w; done
            for d in 0.4 0.5 0.6 0.7 0.8 0.9 1.0; do point "S-delta-$d" float $S --delta $d; done
        fi
        if part place; then
            for w in host device; do
                point "S-layers-$w" float $S --layers $w
                point "S-reduce-$w" float $S --reduce $w
                point "S-reorder-at-$w" float $S --reorder-at $w
            done
            point "S-all-device" float $S --layers device --reduce device --reorder-at device
        fi
    fi

    # Best setting at N ~ 1M: everything on the device, then the read mode and block size.
    dev="--layers device --reduce device --reorder-at device"
    if part best; then for sys in sp lj; do
        point "best-$sys-ne100-dev-texture" float --system $sys --ne 100 $dev
        point "best-$sys-ne100-dev-ldg" float --system $sys --ne 100 $dev --read ldg
        if [ "$QUICK" != 1 ]; then
            point "best-$sys-ne100-dev-ldg-t256" float --system $sys --ne 100 $dev --read ldg --threads 256
            point "best-$sys-ne100-dev-ldg-t64" float --system $sys --ne 100 $dev --read ldg --threads 64
            point "best-$sys-ne100-dev-ldg-nr50" float --system $sys --ne 100 $dev --read ldg --reorder 50
            point "best-$sys-ne100-dev-ldg-double" double --system $sys --ne 100 $dev --read ldg
            # the shell delta trades list length (force time) against rebuild frequency (Table 5)
            deltas="0.5 0.7"; [ $sys = lj ] && deltas="0.4 0.5 0.6"
            for d in $deltas; do point "best-$sys-ne100-dev-ldg-delta$d" float --system $sys --ne 100 $dev --read ldg --delta $d; done
        fi
    done; fi
}
progress_plan plan   # runs/lib.sh: "[k/n] ... about N min left" after each point
plan

# The table: ns per atom-step (= 1000 x us_per_atom_step) and the paper's observables.
printf '\n%-40s %9s %7s %7s %7s %7s %5s %6s %8s %9s\n' tag ns/at-st list force integ xfer N_l N_u N_p/N_a bytes/at
for key in $(csvq values "$csv" tag status=ok || true); do
    g() { csv_val "$csv" "$key" "$1"; }
    printf '%-40s %9.4f %7s %7s %7s %7s %5s %6s %8s %9s\n' "$key" "$(awk -v u="$(g us_per_atom_step)" 'BEGIN { print u * 1000 }')" \
        "$(g frac_list)" "$(g frac_force)" "$(g frac_integrate)" "$(g frac_transfer)" "$(g layers)" \
        "$(g steps_per_rebuild)" "$(g nbr_per_atom)" "$(g bytes_per_atom)"
done
