# gpu-onchip (variants/gpu-onchip.cu: one launch per chunk, the system on chip) beyond the GPU
# groups every gpu-* program gets (tests/cases_50_gpu.sh, which runs its host path and its
# device loop with the tier auto picks). Every --check verdict is read from the run's row (the
# row's check columns: check_passes in tests/lib.sh, one CSV per test under
# $TEST_LOG_DIR/onchip-rows), not from the lines printed:
#   onchip-check-*      --check after device runs in each tier (block, grid, cluster), SP, LJ,
#                       lammps-lj and the charged salt (grid: too big for a block; cluster: r_c 4
#                       so that double fits at N = 1728), several --sample-every (chunk lengths), t_p 1 and 8,
#                       with equilibration (rescales at sample points); the cluster also with
#                       --cluster 1, 3 (own ranges of unequal size) and 8, and at N = 1728
#   onchip-cells-*      --list cells (the cell build on chip, onchip.cuh): --check after device
#                       runs in each tier (M = 3 at N = 512, 4 at 1728, 6 at 4096, 9 for SP 4096),
#                       several chunk lengths and t_p; --verify-lists on the host path (its stage
#                       kernels); the rebuild steps of gpu-layer's device loop (grid, cluster;
#                       double); a cell overflow grown and the chunk replayed (SP ne 12, --delta
#                       0.9: M = 6, cells of 2 lattice spacings, 8 atoms each at the start; the
#                       slots start at 8 with --grow-from 5 and lists held by --max-nbr 200, so
#                       every grow is the liquid's, found in a chunk: grows >= 1 and E/N within
#                       1e-9 of a run with room to spare); energy drift over 10^4 steps
#   onchip-list-*       --list refusals without a GPU (before the device is looked for): none and
#                       sort (gpu-rumd's) and cells where fewer than 3 cells fit per axis: exit 2,
#                       one line naming the limit; gpu-rumd refuses --list cells the same way
#                       Planted fault for the lead (a test build: make BUILD=build-plant NVOPT="-O3
#                       -DCOMPONENT_PLANT=15"): the cell build skips the last of the 27
#                       cells (offset +1, +1, +1): onchip-cells-check-* FAIL (the row's
#                       check fail: check_pairs_bad > 0, forces off) and onchip-cells-verify-*
#                       FAIL (a pair within r_c missing).
#   onchip-same-rebuilds-*  double, no rescaling, 500 steps from the same start: the chunk kernel
#                       rebuilds at the steps gpu-layer's stage-by-stage device loop does (the
#                       hash in the summary), in each tier
#   onchip-vs-host-*    double, 300 steps from the same start: the chunk kernel (--decide device) ends
#                       where the per-stage host path ends (E/N within 1e-7; that path is the one
#                       --check compares with the reference), in each tier, n2 and cells, the grid
#                       both with its staged build (SP ne 8) and without (lammps-lj 8000 atoms: the
#                       positions do not fit every resident block).
#                       Planted fault for the lead (a copy of the tree): sed -i 's/for (int i =
#                       tid; i < n; i += blockDim.x) {/for (int i = tid; i < n - 1;
#                       i += blockDim.x) {/' kernels/cuda/onchip_chunk.cu (the staged build never
#                       bins the last atom): onchip-vs-host-grid-*-staged FAIL.
#   onchip-replay-*     an overflow planted with --grow-from 15 (SP: the liquid needs more) is grown
#                       and the chunk replayed from the kernel's snapshot; the run ends where a run
#                       with room to spare ends (E/N within 1e-9, double), in each tier
#   onchip-drift-*      energy drift over 10^4 steps in each tier (the bound of cases_50)
#   onchip-err-*        --tier block / cluster for a system over one block's shared memory: exit
#                       3, one line naming the limit; a t_p the kernels do not take, a cluster over
#                       16 blocks: exit 2
#   onchip-autotune-*   --autotune --decide device at N = 4096 (lammps-lj sc ne 16) through the
#                       harness's service (common/tune.c: trials in this process): every --tier
#                       block trial (and in double every cluster trial) is refused with exit 3
#                       (capacity) and the search goes on; no trial fails otherwise; the trial rows
#                       ran on the tiers that fit; the final row runs the cached values (skin, tier,
#                       t_p, threads; a cached t_p 0, by tier, shows as the t_p it resolved to,
#                       as the row records what ran); the harness's device bytes after the search equal to those
#                       before it; a second run takes the cache and runs no trial.
#                       Planted fault for the lead (a copy of the tree, not a build flag):
#                       sed -i 's/if (need > (size_t)oc->limit\[TIER_BLOCK\])/if (0)/'
#                       kernels/cuda/onchip_tier.cu: a block that does not
#                       fit is launched, the launch fails (exit 1) and ends the search: FAIL.
# Planted fault for the lead (a test build, make BUILD=build-plant NVOPT="-O3
# -DCOMPONENT_PLANT=16"): the block tier's largest v^2 from warp 0 alone, the cluster
# tier's from rank 0's block alone: the rebuild hash differs from gpu-layer's
# (onchip-same-rebuilds-block-* and -cluster-* FAIL).
# Without a GPU nothing runs: one SKIP line per group, never a pass.
oc_groups="check same-rebuilds vs-host replay drift err autotune cells"
ocb=$BUILD/double/gpu-onchip
# --list refused before any device is looked for: these run everywhere
for prec in double float; do
    b=$BUILD/$prec/gpu-onchip
    [ -x "$b" ] || { t_skip "onchip-list-$prec" "$b not built"; continue; }
    for m in none sort; do
        t_error "onchip-list-$prec-$m" 2 "list must be one of auto|n2|cells (got '$m')" $b --list $m --steps 0 --equil 0
    done
    t_error "onchip-list-$prec-cells-m2" 2 'list cells needs 3 cells of edge >= r_n = 1.722 per axis, but L = 4.309' \
        $b --ne 4 --list cells --steps 0 --equil 0
done
# the program's own --list values (Variant.lists): the option table narrows its domain
rb=$BUILD/double/gpu-rumd
if [ -x "$rb" ]; then
    t_error "onchip-list-rumd-cells" 2 "list must be one of auto|none|n2|sort (got 'cells')" \
        $rb --ne 8 --list cells --steps 0 --equil 0
else
    t_skip "onchip-list-rumd-cells" "$rb not built"
fi
if ! have_gpu || [ ! -x "$ocb" ]; then
    why="no GPU found"; have_gpu && why="$ocb not built"
    for grp in $oc_groups; do t_skip "onchip-$grp" "$why"; done
    return 0 2>/dev/null || exit 0
fi
# --check's verdicts are read from each run's row (check_passes: tests/lib.sh), one CSV per test
oc_rows=$TEST_LOG_DIR/onchip-rows
mkdir -p "$oc_rows"
# the same rebuilds as gpu-layer's device loop (its companions: layers, reordering off so that
# only the summation order differs)
oc_same_as_layer() {   # LAYER ONCHIP TIER LIST ARGS...
    local layer=$1 oc=$2 tier=$3 list=$4 a b; shift 4
    a=$("$layer" "$@" --decide device --layers device --reorder 0 --graph on) || { echo "$a"; return 1; }
    b=$("$oc" "$@" --decide device --tier "$tier" --list "$list") || { echo "$b"; return 1; }
    a=$(grep 'rebuilds after step 0' <<<"$a"); b=$(grep 'rebuilds after step 0' <<<"$b")
    echo "gpu-layer:  $a"; echo "gpu-onchip: $b"
    [ -n "$a" ] && [ "$a" = "$b" ]
}
oc_replay_same() {   # AMPLE ARGS...: AMPLE a hard capacity with room to spare (and within a block)
    local room=$1; shift
    oc_replay_vs "$*" "--grow-from 15" "--max-nbr $room"
}
oc_end_energy() {   # the summary's E/N at the end, from a run's output on stdin
    awk '/energy E\/N/ { for (k = 1; k < NF; k++) if ($k == "end") v = $(k + 1) } END { print v }'
}
oc_replay_vs() {   # "PROGRAM ARGS" "GROWN ARGS" "AMPLE ARGS": the grown run must grow and end as the ample one
    local grown ample e1 e2
    grown=$($1 $2) || { echo "$grown"; return 1; }
    ample=$($1 $3) || { echo "$ample"; return 1; }
    grep -Eq 'grows = [1-9]' <<<"$grown" || { echo "$grown"; echo "no capacity grew"; return 1; }
    e1=$(oc_end_energy <<<"$grown")
    e2=$(oc_end_energy <<<"$ample")
    awk -v a="$e1" -v b="$e2" "$awk_rel"' BEGIN { d = rel(b, a, 0)
        printf "E/N at the end: replayed %s, ample %s, relative difference %.3g (bound 1e-9)\n", a, b, d; exit !(a != "" && d <= 1e-9) }'
}
oc_vs_host() {   # ARGS...: the device loop's chunks end where the host path ends
    local h d e1 e2
    h=$("$@" --decide host) || { echo "$h"; return 1; }
    d=$("$@" --decide device) || { echo "$d"; return 1; }
    e1=$(oc_end_energy <<<"$h")
    e2=$(oc_end_energy <<<"$d")
    awk -v a="$e1" -v b="$e2" "$awk_rel"' BEGIN { d = rel(b, a, 0)
        printf "E/N at the end: host path %s, chunk kernel %s, relative difference %.3g (bound 1e-7)\n", a, b, d; exit !(a != "" && d <= 1e-7) }'
}
oc_drift() {
    local out
    out=$("$@") || { echo "$out"; return 1; }
    echo "$out"
    awk '/energy E\/N:.*drift/ { for (k = 1; k < NF; k++) if ($k == "drift") { d = $(k + 1); seen = 1 } }
        END { if (!seen) exit 1; if (d < 0) d = -d; printf "|drift| %.3g, bound 3e-4\n", d; exit !(d < 3e-4) }' <<<"$out"
}
# --autotune twice with a fresh cache (see the header): PROGRAM FLAGS...
oc_autotune() (
    local d prog=$1 out rows
    shift
    d=$(mktemp -d) && trap 'rm -rf "$d"' EXIT
    export CUDA_MODULE_LOADING=EAGER   # the CUDA runtime's: no lazy kernel loads inside the memory check
    out=$("$prog" --autotune --autotune-cache "$d/cache" --csv "$d/t.csv" --quiet "$@" 2>&1) ||
        { echo "$out" | tail -5; return 1; }
    echo "$out" >"$d/out"
    grep '^# autotune\(-memory\)\?:' "$d/out"
    python3 - "$d/t.csv" "$d/cache" "$d/out" <<'PY' || return 1
import csv, re, sys
sys.path.insert(0, "runs"); import csvq  # the rows with knobs expanded (docs/csv.md)
rows = list(csvq.read(sys.argv[1]).rows)
trials = [r for r in rows if r["tag"].startswith("autotune-")]
final = [r for r in rows if not r["tag"].startswith("autotune-")]
out = open(sys.argv[3]).read().splitlines()
# "# autotune PHASE k=v ...: X us/step" or ": failed (exit N)", one line per trial
tl = [re.match(r"# autotune (\S+) +(.*): (failed \(exit (\d+)\)|[0-9.]+ us/step)$", l) for l in out]
tl = [m for m in tl if m]
failed = [(dict(w.split("=") for w in m.group(2).split()), int(m.group(4))) for m in tl if m.group(4)]
print(f"{len(tl)} trials, {len(failed)} refused, {len(trials)} trial rows, {len(final)} final")
assert len(trials) >= 8 and all(float(r["us_per_step"]) > 0 for r in trials if r["status"] == "ok"), "trial rows"
assert len(tl) == len(trials) + len(failed), "one row per trial that ran"
assert any(v["tier"] == "block" for v, c in failed), "no --tier block trial refused at N = 4096"
assert all(c == 3 for v, c in failed), f"a trial failed otherwise than refused: {failed}"
assert all(r["tier"] in ("grid", "cluster") for r in trials), "a trial row on a tier that cannot hold N = 4096"
if final[0]["precision"] == "double":
    assert all(v["tier"] != "cluster" or c == 3 for v, c in failed), "cluster"
    assert not any(r["tier"] == "cluster" for r in trials), "a cluster trial ran in double at N = 4096"
line = open(sys.argv[2]).read().splitlines()[-1]
key, vals = line.split("|")
vals = vals.split()
print(f"cache {line}")
assert len(final) == 1 and final[0]["status"] == "ok" and final[0]["autotune"] in ("1", "on"), "one final row"
assert key.startswith("program=gpu-onchip;") and f"precision={final[0]['precision']};n=4096;" in key, "cache key"
assert len(vals) == 7, "six knobs and the seconds"
f = final[0]
assert abs(float(f["delta"]) - float(vals[0])) < 1e-9, "final skin"
assert vals[1] == "auto" or f["tier"] == vals[1], "final tier"
# t_p 0 (by tier) is what the cache keeps; the row names the t_p that ran
assert f["tp"] == vals[3] or (vals[3] == "0" and f["tp"] in ("1", "2", "4", "8", "16", "32")), "final t_p"
assert f["threads"] == vals[4], "final threads"
assert f["list_method"] in ("n2", "cells") and vals[5] in ("auto", f["list_method"]), "final list build"
m = [l for l in out if l.startswith("# autotune-memory:")]
mem = dict(w.split("=") for w in m[0].split()[2:])
grown = float(mem["after_bytes"]) - float(mem["before_bytes"])
print(f"device memory: {grown / 2**20:.3f} MiB more after {mem['trials']} trials")
assert grown == 0, "device memory grew across the trials"
PY
    rows=$(grep -c '' "$d/t.csv")
    out=$("$prog" --autotune --autotune-cache "$d/cache" --csv "$d/t.csv" --quiet "$@" 2>&1) ||
        { echo "$out" | tail -5; return 1; }
    echo "$out" | grep -q "^# autotune: from $d/cache:" || { echo "cache not used"; return 1; }
    [ "$(grep -c '' "$d/t.csv")" -eq $((rows + 1)) ] || { echo "trials ran despite the cache"; return 1; }
)
dev="--decide device"
for prec in ${GPU_TEST_PRECISIONS:-double float}; do
    b=$BUILD/$prec/gpu-onchip
    [ -x "$b" ] || { t_skip "onchip-$prec" "$b not built"; continue; }
    # block: N <= ~900 for LJ-like lists; SP ne 8 512, lj ne 8 512, lammps-lj sc 8 512
    for c in "block sp 8" "block lj 8" "block lammps-lj 8" "grid sp 16" "grid lj 12" "grid lammps-lj 16" \
        "cluster sp 8" "cluster lj 8" "cluster lammps-lj 8" "cluster lammps-lj 12"; do
        set -- $c
        lat=""; [ $2 = lammps-lj ] && lat="--lattice sc"
        for every in 1 10 100; do
            t_grep "onchip-check-$prec-$1-$2-every$every" '^check pass ' check_passes \
                "$oc_rows/onchip-check-$prec-$1-$2-every$every.csv" $b --system $2 $lat --ne $3 $dev --tier $1 \
                --sample-every $every --steps 600 --equil 100 --stage-reps 0 --check --quiet
        done
        t_grep "onchip-check-$prec-$1-$2-tp8" '^check pass ' check_passes "$oc_rows/onchip-check-$prec-$1-$2-tp8.csv" \
            $b --system $2 $lat --ne $3 $dev --tier $1 --tp 8 --steps 300 --equil 100 --stage-reps 0 --check --quiet
        t_grep "onchip-check-$prec-$1-$2-tp1" '^check pass ' check_passes "$oc_rows/onchip-check-$prec-$1-$2-tp1.csv" \
            $b --system $2 $lat --ne $3 $dev --tier $1 --tp 1 --steps 300 --equil 100 --stage-reps 0 --check --quiet
    done
    for C in 1 3 8; do
        t_grep "onchip-check-$prec-cluster-sp-c$C" '^check pass ' check_passes \
            "$oc_rows/onchip-check-$prec-cluster-sp-c$C.csv" $b --ne 8 $dev --tier cluster --cluster $C \
            --sample-every 10 --steps 300 --equil 100 --stage-reps 0 --check --quiet
    done
    t_grep "onchip-check-$prec-cluster-salt" '^check pass ' check_passes \
        "$oc_rows/onchip-check-$prec-cluster-salt.csv" \
        $b --system salt --ne 12 --rc 4 $dev --tier cluster --steps 200 --equil 100 --stage-reps 0 --check --quiet
    t_grep "onchip-check-$prec-grid-salt" '^check pass ' check_passes "$oc_rows/onchip-check-$prec-grid-salt.csv" \
        $b --system salt --ne 16 $dev --tier grid --steps 200 --equil 100 --stage-reps 0 --check --quiet
    if [ $prec = double ]; then
        for c in "block sp 8 n2" "cluster lammps-lj 8 n2" "cluster sp 8 cells" "grid sp 8 n2 staged" \
            "grid sp 8 cells staged" "grid lammps-lj 20 cells unstaged"; do
            set -- $c
            lat=""; [ $2 = lammps-lj ] && lat="--lattice sc"
            t_ok "onchip-vs-host-$1-$2-$4${5:+-$5}" oc_vs_host $b --system $2 $lat --ne $3 --tier $1 --list $4 \
                --steps 300 --equil 0 --sample-every 50 --stage-reps 0 --quiet
        done
        layer=$BUILD/double/gpu-layer
        for c in "block sp 8 n2" "block lammps-lj 8 n2" "grid sp 16 n2" "grid lammps-lj 16 n2" "cluster sp 8 n2" \
            "cluster lammps-lj 8 n2" "cluster lammps-lj 12 n2" "grid sp 16 cells" "grid lammps-lj 16 cells" \
            "cluster sp 8 cells" "cluster lammps-lj 12 cells"; do
            set -- $c
            lat=""; [ $2 = lammps-lj ] && lat="--lattice sc"
            name=onchip-same-rebuilds-$1-$2; [ $4 = cells ] && name=onchip-cells-same-rebuilds-$1-$2
            if [ -x "$layer" ]; then
                t_ok "$name" oc_same_as_layer $layer $b $1 $4 --system $2 $lat --ne $3 \
                    --steps 500 --equil 0 --sample-every 50 --stage-reps 0 --quiet
            else
                t_skip "$name" "$layer not built"
            fi
        done
        t_ok "onchip-replay-block" oc_replay_same 60 $b --ne 8 $dev --tier block --sample-every 20 --steps 400 \
            --equil 0 --stage-reps 0 --quiet
        t_ok "onchip-replay-cluster" oc_replay_same 200 $b --ne 8 $dev --tier cluster --sample-every 20 --steps 400 \
            --equil 0 --stage-reps 0 --quiet
        t_ok "onchip-replay-grid" oc_replay_same 200 $b --ne 16 $dev --tier grid --sample-every 20 --steps 400 \
            --equil 0 --stage-reps 0 --quiet
    fi
    t_ok "onchip-drift-$prec-block-sp-ne8" oc_drift $b --ne 8 $dev --tier block --steps 10000 --equil 500 --quiet
    t_ok "onchip-drift-$prec-cluster-sp-ne12" oc_drift $b --ne 12 $dev --tier cluster --steps 10000 --equil 500 --quiet
    t_ok "onchip-drift-$prec-grid-sp-ne16" oc_drift $b --ne 16 $dev --tier grid --steps 10000 --equil 500 --quiet
    t_error "onchip-err-$prec-block-too-big" 3 'tier block: N = 4096 atoms .* shared memory, over the [0-9]+ ' \
        $b --system lammps-lj --lattice sc --ne 16 $dev --tier block --steps 0 --equil 0
    t_error "onchip-err-$prec-cluster-too-big" 3 'tier cluster: N = 8000 atoms .* shared memory per block, over the [0-9]+ ' \
        $b --system lammps-lj --lattice sc --ne 20 $dev --tier cluster --steps 0 --equil 0
    t_error "onchip-err-$prec-cluster17" 2 'cluster = 17 is outside its limits' $b --ne 8 --tier cluster --cluster 17 \
        --steps 0 --equil 0
    t_error "onchip-err-$prec-tp3" 2 'takes 1, 2, 4, 8, 16 or 32' $b --ne 8 --tp 3 --steps 0 --equil 0
    # --list cells (see the header)
    for c in "block lammps-lj 8" "grid lammps-lj 16" "grid sp 16" "cluster lammps-lj 8" "cluster lammps-lj 12" \
        "cluster sp 12"; do
        set -- $c
        lat=""; [ $2 = lammps-lj ] && lat="--lattice sc"
        for every in 1 10 100; do
            t_grep "onchip-cells-check-$prec-$1-$2-ne$3-every$every" '^check pass ' check_passes \
                "$oc_rows/onchip-cells-check-$prec-$1-$2-ne$3-every$every.csv" $b --system $2 $lat --ne $3 $dev \
                --tier $1 --list cells --sample-every $every --steps 600 --equil 100 --stage-reps 0 --check --quiet
        done
        t_grep "onchip-cells-check-$prec-$1-$2-ne$3-tp1" '^check pass ' check_passes \
            "$oc_rows/onchip-cells-check-$prec-$1-$2-ne$3-tp1.csv" $b --system $2 $lat --ne $3 $dev --tier $1 \
            --list cells --tp 1 --steps 300 --equil 100 --stage-reps 0 --check --quiet
    done
    t_grep "onchip-cells-check-$prec-grid-salt" '^check pass ' check_passes \
        "$oc_rows/onchip-cells-check-$prec-grid-salt.csv" \
        $b --system salt --ne 16 $dev --tier grid --list cells --steps 200 --equil 100 --stage-reps 0 --check --quiet
    for c in "sp 16 1" "sp 16 8" "lammps-lj 16 4"; do
        set -- $c
        lat=""; [ $1 = lammps-lj ] && lat="--lattice sc"
        t_verified "onchip-cells-verify-$prec-$1-tp$3" $b --system $1 $lat --ne $2 \
            --list cells --tp $3 --steps 2000 --equil 100 --verify-lists --stage-reps 0 --quiet
    done
    if [ $prec = double ]; then
        for tier in cluster grid; do
            t_ok "onchip-cells-replay-$tier" oc_replay_vs "$b --ne 12 --delta 0.9 $dev --tier $tier --list cells \
                --sample-every 20 --steps 400 --equil 0 --stage-reps 0 --quiet" "--max-nbr 200 --grow-from 5" \
                "--max-nbr 200"
        done
    fi
    t_ok "onchip-cells-drift-$prec-cluster-sp-ne12" oc_drift $b --ne 12 $dev --tier cluster --list cells --steps 10000 \
        --equil 500 --quiet
    t_ok "onchip-cells-drift-$prec-grid-sp-ne16" oc_drift $b --ne 16 $dev --tier grid --list cells --steps 10000 \
        --equil 500 --quiet
    t_ok "onchip-autotune-$prec" oc_autotune $b --system lammps-lj --lattice sc --ne 16 $dev --steps 2000 \
        --equil 0 --autotune-budget 120
done
