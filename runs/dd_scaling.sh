#!/usr/bin/env bash
# runs/dd_scaling.sh [--print-plan] - gpu-dd's strong scaling and halo exchange, as in the
# GROMACS/NVSHMEM paper (Doijade et al. 2025; issue 13, item 3): SP and LJ at N = 46 656 ..
# 8 000 000 (sc, N = ne^3), on 1 GPU (gpu-layer running ahead, and gpu-dd with one rank) and
# on P GPUs (gpu-dd, one rank per GPU, every compiled backend, --dd-overlap off and on; with
# DD_GRAPH="off on" also --dd-graph on for the backends without host steps), each with the
# host's rebuild decision and, for the backends without host steps, the device's (--decide
# device; one rank: --comm p2p, which then only copies within the GPU).
#
# Rows (the programs' CSV schema: gpu-dd's carry ranks, comm, dd_grid, dd_overlap, dd_graph,
# dd_newton and decide) go to $OUT_DIR/dd_scaling.csv through run_point (runs/lib.sh): resumable,
# revision-checked, benchmarks take turns. Tags name the case:
#     dd-<sys>-layer-1gpu-ne<ne>-s<steps>           gpu-layer, the best single GPU
#     dd-<sys>-1gpu[-dev]-ne<ne>-s<steps>           gpu-dd, one rank
#     dd-<sys>-<P>gpu-<comm>[-overlap|-graph|-newton][-dev]-ne<ne>-s<steps>     (-dev: --decide device)
#     dd-<sys>-1gpu-newton[-dev]-ne<ne>-s<steps>    gpu-dd, one rank, --dd-newton on
# (rows from before the dd_newton column are known by the tag's -newton)
#
# One device call (10 min on nvidia-h200-x2): the full plan (2 systems x 8 sizes x 17 points with
# the four backends) is ~270 runs of 3-8 s, more than one call holds; DD_BUDGET=S starts no run
# after S seconds (the rest on the next call: the runs done are skipped), and QUICK=1 is the
# subset meant for ~300 s: SP at N 46 656, 1 000 000, 8 000 000 and LJ at 46 656, 1 000 000,
# 4 019 679, --dd-overlap off, 300 timed steps; every backend, host and device decisions, 1 and
# 2 GPUs (2 x 3 x 10 = 60 runs with the four backends; an estimate from runs/device/dd.sh's
# first timing, ~5 s a run, not yet measured as a whole).
# gpu-dd's halo exchange and force kernel replayed on their own after the run (--dd-halo-reps;
# the largest over ranks, and rank 0's) are pairs of its row (halo_us, force_us, halo_us_rank0,
# force_us_rank0, replays; docs/csv.md), also copied as one row to $OUT_DIR/dd_scaling_halo.csv
# (tag, git_rev, host and those five), joined to the main row by tag and revision.
#
# Multi-rank runs start as  $DD_MPIRUN P PROGRAM ARGS  (default "mpirun --allow-run-as-root
# --bind-to none -np"), NVLink multicast off in every process (NCCL_NVLS_ENABLE=0,
# NVSHMEM_DISABLE_NVLS=1 exported here). --print-plan prints each point (tag, then the command)
# and exits without running anything (no GPU needed; the programs must be built).
# Settings: runs/dd_scaling.sh --help (the table below, or the old variables; docs/drivers.md).
set -euo pipefail
cd "$(dirname "$0")/.."
. runs/lib.sh
settings_begin "runs/dd_scaling.sh [--print-plan] [settings]" "gpu-dd's strong scaling and halo exchange -> dd_scaling.csv, dd_scaling_halo.csv"
setting_switch print_plan "print each point (tag, then the command) and exit without running anything"
# OUT_DIR's default: -x<GPUs> where nvidia-smi lists more than one (and NBR_MACHINE is unset);
# a plan creates nothing. Before runs/tables_lib.sh's own set-up (hooks run in order)
_dd_out_dir() {
    if [ -z "$OUT_DIR" ] && [ -z "$NBR_MACHINE" ] && [ "$print_plan" = 0 ]; then
        ngpu=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU' || true)
        [ "${ngpu:-0}" -gt 1 ] && OUT_DIR=results/$(machine_name)-x$ngpu
    fi
    if [ "$print_plan" = 1 ]; then
        : "${OUT_DIR:=results/$(machine_name)}" "${TABLES_NO_MKDIR:=1}"
    fi
    return 0
}
settings_hook _dd_out_dir
. runs/tables_lib.sh
setting DD_SYSTEMS "sp lj" "the systems"
setting DD_NE "36 46 58 74 100 126 159 200" "lattice edges, N = ne^3 (46 656 .. 8 000 000)"
setting DD_NE_SP "" "SP's edges (default DD_NE; QUICK: 36 100 200)"
setting DD_NE_LJ "" "LJ's edges (default DD_NE; QUICK: 36 100 159)"
setting DD_RANKS "1 2" "rank counts (1 = the single-GPU rows)"
setting DD_GRIDS "" "also these grids AxBxC at their rank count, --dd-grid, tags <P>gpu-g<grid> (\"\": slabs only)"
setting DD_BACKENDS "" "halo backends (default: gpu-dd --help's compiled backends)"
setting DD_OVERLAP "off on" "--dd-overlap values (QUICK: off)"
setting DD_GRAPH off "--dd-graph values: \"off on\" adds on, not with mpi nor with overlap"
setting DD_DECIDE "host device" "rebuild decisions (device only for nccl, p2p, nvshmem)"
setting DD_REORDER 100 "--reorder N_R values (tags of N_R != 100 end -r<N_R>)"
setting DD_NEWTON off "--dd-newton values: \"off on\" adds on (mpi, nccl, p2p, overlap off); on alone: only those"
setting DD_BUDGET 0 "start no run after this many seconds (0: no limit)"
setting DD_LAYER 1 "1: the gpu-layer rows; 0: none"
setting DD_STEPS 500 "timed steps (QUICK: 300)"
setting DD_EQUIL 100 "equilibration steps"
setting DD_HALO_REPS 100 "gpu-dd's halo and force replays after the run"
setting DD_TIMEOUT 300 "seconds per run (0: none)"
setting PREC float "precision"
setting DD_FLAGS "--reduce device" "gpu-dd's extra flags"
setting LAYER_FLAGS "--decide device --layers device --reorder-at device --reduce device --graph on --sample-every 100" \
    "gpu-layer's flags (running ahead, as runs/device/dd.sh)"
setting DD_MPIRUN "mpirun --allow-run-as-root --bind-to none -np" "the multi-rank launcher: DD_MPIRUN P PROGRAM ARGS"
setting DD_PROG "" "gpu-dd (default BUILD/PREC/gpu-dd)"
setting LAYER_PROG "" "gpu-layer (default BUILD/PREC/gpu-layer)"
settings_parse "$@"
plan=$print_plan

export NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1
[ "$QUICK" = 1 ] && settings_prefer DD_NE_SP "36 100 200" DD_NE_LJ "36 100 159" DD_OVERLAP off DD_STEPS 300
: "${DD_PROG:=$BUILD/$PREC/gpu-dd}" "${LAYER_PROG:=$BUILD/$PREC/gpu-layer}"
: "${LOGDIR:=$OUT_DIR/logs/dd_scaling}"
export LOGDIR
DD_FLAGS="$DD_FLAGS --dd-halo-reps $DD_HALO_REPS"   # the replays, recorded in the row (dd_halo_reps)
if [ "$plan" = 1 ] && [ ! -x "$DD_PROG" ]; then
    # the plan needs no program: without gpu-dd built, every backend of the sources (kernels/cuda/
    # dd_halo_<comm>.cu), as a build with all libraries would have them
    compiled=$(cd kernels/cuda && ls dd_halo_*.cu | grep -v _absent | sed 's/^dd_halo_//; s/\.cu$//' | tr '\n' ' ' | sed 's/ $//')
    echo "dd_scaling.sh: $DD_PROG is not built: the plan names every backend of the sources ($compiled)" >&2
else
    # the plan runs nothing: no GPU needed
    [ "$plan" = 1 ] || { need_bin "$DD_PROG"; [ "$DD_LAYER" = 1 ] && need_bin "$LAYER_PROG"; }
    compiled=$("$DD_PROG" --help 2>/dev/null | sed -n 's/^compiled backends: //p')
fi
[ -n "$compiled" ] || { echo "dd_scaling.sh: $DD_PROG --help names no compiled backends" >&2; exit 1; }
: "${DD_BACKENDS:=$compiled}"
for c in $DD_BACKENDS; do
    [[ " $compiled " == *" $c "* ]] ||
        { echo "dd_scaling.sh: DD_BACKENDS names '$c', which $DD_PROG was not built with (it has: $compiled)" >&2; exit 2; }
done
for v in $DD_OVERLAP $DD_GRAPH; do
    case $v in on | off) ;; *) echo "dd_scaling.sh: DD_OVERLAP/DD_GRAPH take on and off, not '$v'" >&2; exit 2 ;; esac
done
for v in $DD_NEWTON; do
    case $v in on | off) ;; *) echo "dd_scaling.sh: DD_NEWTON takes on and off, not '$v'" >&2; exit 2 ;; esac
done
want_newton() { [[ " $DD_NEWTON " == *" $1 "* ]]; }
for v in $DD_DECIDE; do
    case $v in host | device) ;; *) echo "dd_scaling.sh: DD_DECIDE takes host and device, not '$v'" >&2; exit 2 ;; esac
done
[[ $DD_BUDGET =~ ^[0-9]+$ ]] || { echo "dd_scaling.sh: DD_BUDGET: '$DD_BUDGET' is not a number of seconds" >&2; exit 2; }
for v in $DD_REORDER; do
    [[ $v =~ ^[0-9]+$ ]] || { echo "dd_scaling.sh: DD_REORDER: '$v' is not a number of steps" >&2; exit 2; }
done
[[ $QUICK =~ ^[01]$ ]] || { echo "dd_scaling.sh: QUICK is 0 or 1, not '$QUICK'" >&2; exit 2; }
want_decide() { [[ " $DD_DECIDE " == *" $1 "* ]]; }
for p in $DD_RANKS; do
    [[ $p =~ ^[1-9][0-9]*$ ]] || { echo "dd_scaling.sh: DD_RANKS: '$p' is not a number of ranks" >&2; exit 2; }
done
# DD_GRIDS: each grid AxBxC runs at the rank count A*B*C (with the slab, P x 1 x 1, always)
grid_size() { echo $(( $(tr x '*' <<<"$1") )); }
grids_of() { local g; for g in $DD_GRIDS; do [ "$(grid_size "$g")" = "$1" ] && [ "$g" != "${1}x1x1" ] && echo "$g"; done; }
for g in $DD_GRIDS; do
    [[ $g =~ ^[1-9][0-9]*x[1-9][0-9]*x[1-9][0-9]*$ ]] ||
        { echo "dd_scaling.sh: DD_GRIDS: '$g' is not a grid AxBxC (domains per axis)" >&2; exit 2; }
    gn=$(grid_size "$g")
    [[ " $DD_RANKS " == *" $gn "* ]] ||
        { echo "dd_scaling.sh: DD_GRIDS: $g has $gn domains, and DD_RANKS ($DD_RANKS) has no $gn" >&2; exit 2; }
done
for s in $DD_SYSTEMS; do
    case $s in sp | lj) ;; *) echo "dd_scaling.sh: DD_SYSTEMS: '$s' (sp or lj)" >&2; exit 2 ;; esac
done

# The plan: one line per point, "TAG|NP|PROGRAM ARGS..." (no field holds a '|').
points=()
steps=(--steps $((DD_STEPS + DD_EQUIL)) --equil "$DD_EQUIL" --stage-reps 0)
for sys in $DD_SYSTEMS; do
    v=DD_NE_${sys^^}
    for ne in ${!v:-$DD_NE}; do
        [[ $ne =~ ^[1-9][0-9]*$ ]] || { echo "dd_scaling.sh: size '$ne' is not a lattice edge ne" >&2; exit 2; }
        for ro in $DD_REORDER; do
        base="--system $sys --ne $ne ${steps[*]} --reorder $ro"
        end="ne$ne-s$DD_STEPS"; [ "$ro" = 100 ] || end="$end-r$ro"
        for np in $DD_RANKS; do
            if [ "$np" = 1 ]; then
                [ "$DD_LAYER" = 1 ] && points+=("dd-$sys-layer-1gpu-$end|1|$LAYER_PROG $base $LAYER_FLAGS")
                if want_newton off; then
                    want_decide host && points+=("dd-$sys-1gpu-$end|1|$DD_PROG $base $DD_FLAGS")
                    want_decide device && [[ " $DD_BACKENDS " == *" p2p "* ]] &&
                        points+=("dd-$sys-1gpu-dev-$end|1|$DD_PROG $base $DD_FLAGS --comm p2p --decide device")
                fi
                if want_newton on; then
                    want_decide host && points+=("dd-$sys-1gpu-newton-$end|1|$DD_PROG $base $DD_FLAGS --dd-newton on")
                    want_decide device && [[ " $DD_BACKENDS " == *" p2p "* ]] && points+=("dd-$sys-1gpu-newton-dev-$end|1|\
$DD_PROG $base $DD_FLAGS --comm p2p --dd-newton on --decide device")
                fi
                continue
            fi
            # the slab P x 1 x 1 (gpu-dd's default; tags as before), then each DD_GRIDS grid of P domains
            for grid in "" $(grids_of "$np"); do
                gp=${np}gpu gf=""
                [ -n "$grid" ] && gp=${np}gpu-g$grid gf=" --dd-grid $grid"
                for comm in $DD_BACKENDS; do
                    # --dd-newton on: the force halo back (mpi, nccl, p2p; not with --dd-overlap on)
                    if want_newton on && [ "$comm" != nvshmem ]; then
                        want_decide host && points+=("dd-$sys-$gp-$comm-newton-$end|$np|$DD_PROG $base$gf $DD_FLAGS --comm \
$comm --dd-newton on")
                        want_decide device && [ "$comm" != mpi ] && points+=("dd-$sys-$gp-$comm-newton-dev-$end|$np|\
$DD_PROG $base$gf $DD_FLAGS --comm $comm --dd-newton on --decide device")
                    fi
                    want_newton off || continue
                    for ov in $DD_OVERLAP; do
                        suffix=""; [ "$ov" = on ] && suffix=-overlap
                        want_decide host &&
                            points+=("dd-$sys-$gp-$comm$suffix-$end|$np|$DD_PROG $base$gf $DD_FLAGS --comm $comm --dd-overlap $ov")
                        # the device's decision: not with mpi, whose pulses wait on the host anyway
                        want_decide device && [ "$comm" != mpi ] && points+=("dd-$sys-$gp-$comm$suffix-dev-$end|$np|$DD_PROG \
$base$gf $DD_FLAGS --comm $comm --dd-overlap $ov --decide device")
                    done
                    if [[ " $DD_GRAPH " == *" on "* ]] && [ "$comm" != mpi ]; then
                        points+=("dd-$sys-$gp-$comm-graph-$end|$np|$DD_PROG $base$gf $DD_FLAGS --comm $comm --dd-graph on")
                    fi
                done
            done
        done
        done  # DD_REORDER
    done
done

launch() {   # NP PROGRAM ARGS...: the command line of one point
    local np=$1; shift
    local cmd=()
    if [ "$DD_TIMEOUT" != 0 ]; then cmd+=(timeout "$DD_TIMEOUT"); fi
    # shellcheck disable=SC2206  # DD_MPIRUN is a command line
    if [ "$np" -gt 1 ]; then cmd+=($DD_MPIRUN "$np"); fi
    printf '%s\n' "${cmd[@]}" "$@"
}

if [ $plan = 1 ]; then
    echo "# dd_scaling: ${#points[@]} points -> $OUT_DIR/dd_scaling.csv (backends: $DD_BACKENDS)"
    for p in "${points[@]}"; do
        IFS='|' read -r tag np cmd <<<"$p"
        # shellcheck disable=SC2086
        echo "$tag: $(launch "$np" $cmd | tr '\n' ' ')--csv $OUT_DIR/dd_scaling.csv --tag $tag"
    done
    exit 0
fi

csv=$OUT_DIR/dd_scaling.csv halo=$OUT_DIR/dd_scaling_halo.csv
mkdir -p "$LOGDIR"
echo "dd_scaling: ${#points[@]} points -> $csv (backends: $DD_BACKENDS; logs in $LOGDIR)" >&2

# gpu-dd's halo and force replays are pairs of its CSV row (halo_us, force_us, halo_us_rank0,
# force_us_rank0, replays: docs/csv.md), read back through csvq and copied as one row of
# dd_scaling_halo.csv, which plots/dd.py joins by tag and revision (it also holds the rows of the
# revisions before the pairs, scraped from the console line "# dd: halo exchange ..."). A row
# without them (gpu-layer; --dd-halo-reps 0) adds none.
halo_row() {   # TAG
    local tag=$1 rev host vals="" col val
    rev=$(csvq get "$csv" git_rev tag="$tag" status=ok) || return 0
    # once per tag and revision (a skipped point's row is there already), again with REDO=1
    [ "${REDO:-0}" != 1 ] && [ -s "$halo" ] && csvq has "$halo" tag="$tag" git_rev="$rev" && return 0
    for col in halo_us force_us halo_us_rank0 force_us_rank0 replays; do
        val=$(csvq get "$csv" "$col" tag="$tag" status=ok git_rev="$rev" --or -) || return 0
        [[ $val =~ ^[0-9.eE+-]+$ && $val != - ]] || return 0
        vals+=",$val"
    done
    host=$(csvq get "$csv" host tag="$tag" status=ok 2>/dev/null) || host=$(hostname)
    dirty_refused "$halo" "$rev" dd_scaling.sh && return 0
    [ -s "$halo" ] || echo "tag,git_rev,host,halo_us,force_us,halo_us_rank0,force_us_rank0,replays" >"$halo"
    echo "$tag,$rev,$host$vals" >>"$halo"
}

# in milliseconds: whole seconds could tick over between the start and the first point's check
k=0 failed=0 t_start=$(date +%s%3N)
progress_start "${#points[@]}"   # runs/lib.sh: "[k/n] ... about N min left" after each point
for p in "${points[@]}"; do
    if [ "$DD_BUDGET" != 0 ] && [ $(($(date +%s%3N) - t_start)) -ge $((DD_BUDGET * 1000)) ]; then
        echo "dd_scaling: the budget of $DD_BUDGET s is spent after $k of ${#points[@]} points; the next call goes on" \
            "from there (the points done are skipped)" >&2
        break
    fi
    k=$((k + 1))
    IFS='|' read -r tag np cmd <<<"$p"
    # shellcheck disable=SC2086  # $cmd: the program and its flags, no spaces inside one
    mapfile -t argv < <(launch "$np" $cmd)
    if run_point "$csv" "$tag" -- "${argv[@]}"; then
        halo_row "$tag"
    else
        failed=$((failed + 1))
    fi
done
[ $failed -eq 0 ] || echo "dd_scaling: $failed of ${#points[@]} runs failed" >&2
[ $failed -eq 0 ]
