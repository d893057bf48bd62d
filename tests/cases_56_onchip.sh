# gpu-onchip (variants/gpu-onchip.cu: one launch per chunk, the system on chip) beyond the GPU
# groups every gpu-* program gets (tests/cases_50_gpu.sh, which runs its host path and its
# device loop with the tier auto picks):
#   onchip-check-*      --check after device runs in each tier (block, grid, cluster), SP, LJ,
#                       lammps-lj and the charged salt (grid: too big for a block; cluster: r_c 4
#                       so that double fits at N = 1728), several --sample-every (chunk lengths), t_p 1 and 8,
#                       with equilibration (rescales at sample points); the cluster also with
#                       --cluster 1, 3 (own ranges of unequal size) and 8, and at N = 1728
#   onchip-same-rebuilds-*  double, no rescaling, 500 steps from the same start: the chunk kernel
#                       rebuilds at the steps gpu-layer's stage-by-stage device loop does (the
#                       hash in the summary), in each tier
#   onchip-replay-*     an overflow planted with --grow-from 15 (SP: the liquid needs more) is grown
#                       and the chunk replayed from the kernel's snapshot; the run ends where a run
#                       with room to spare ends (E/N within 1e-9, double), in each tier
#   onchip-drift-*      energy drift over 10^4 steps in each tier (the bound of cases_50)
#   onchip-err-*        --tier block / cluster for a system over one block's shared memory: exit
#                       3, one line naming the limit; a t_p the kernels do not take, a cluster over
#                       16 blocks: exit 2
# Planted fault for the lead (a test build, make BUILD=build-plant NVOPT="-O3
# -DNBR_PLANT_ONCHIP_VMAX"): the block tier's largest v^2 from warp 0 alone, the cluster
# tier's from rank 0's block alone: the rebuild hash differs from gpu-layer's
# (onchip-same-rebuilds-block-* and -cluster-* FAIL).
# Without a GPU nothing runs: one SKIP line per group, never a pass.
oc_groups="check same-rebuilds replay drift err"
ocb=$BUILD/double/gpu-onchip
if ! have_gpu || [ ! -x "$ocb" ]; then
    why="no GPU found"; have_gpu && why="$ocb not built"
    for grp in $oc_groups; do t_skip "onchip-$grp" "$why"; done
    return 0 2>/dev/null || exit 0
fi
oc_pass="check gpu-onchip: PASS"
# the same rebuilds as gpu-layer's device loop (its companions: layers, reordering off so that
# only the summation order differs)
oc_same_as_layer() {   # LAYER ONCHIP TIER ARGS...
    local layer=$1 oc=$2 tier=$3 a b; shift 3
    a=$("$layer" "$@" --decide device --layers device --reorder 0 --graph on) || { echo "$a"; return 1; }
    b=$("$oc" "$@" --decide device --tier "$tier") || { echo "$b"; return 1; }
    a=$(grep 'rebuilds after step 0' <<<"$a"); b=$(grep 'rebuilds after step 0' <<<"$b")
    echo "gpu-layer:  $a"; echo "gpu-onchip: $b"
    [ -n "$a" ] && [ "$a" = "$b" ]
}
oc_replay_same() {   # AMPLE ARGS...: AMPLE a hard capacity with room to spare (and within a block)
    local grown ample e1 e2 room=$1; shift
    grown=$("$@" --grow-from 15) || { echo "$grown"; return 1; }
    ample=$("$@" --max-nbr "$room") || { echo "$ample"; return 1; }
    grep -Eq 'grows = [1-9]' <<<"$grown" || { echo "$grown"; echo "no capacity grew"; return 1; }
    e1=$(grep 'energy E/N' <<<"$grown" | awk '{ for (k = 1; k < NF; k++) if ($k == "end") v = $(k + 1) } END { print v }')
    e2=$(grep 'energy E/N' <<<"$ample" | awk '{ for (k = 1; k < NF; k++) if ($k == "end") v = $(k + 1) } END { print v }')
    awk -v a="$e1" -v b="$e2" "$awk_rel"' BEGIN { d = rel(b, a, 0)
        printf "E/N at the end: replayed %s, ample %s, relative difference %.3g (bound 1e-9)\n", a, b, d; exit !(a != "" && d <= 1e-9) }'
}
oc_drift() {
    local out
    out=$("$@") || { echo "$out"; return 1; }
    echo "$out"
    awk '/energy E\/N:.*drift/ { for (k = 1; k < NF; k++) if ($k == "drift") { d = $(k + 1); seen = 1 } }
        END { if (!seen) exit 1; if (d < 0) d = -d; printf "|drift| %.3g, bound 3e-4\n", d; exit !(d < 3e-4) }' <<<"$out"
}
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
            t_grep "onchip-check-$prec-$1-$2-every$every" "$oc_pass" $b --system $2 $lat --ne $3 $dev --tier $1 \
                --sample-every $every --steps 600 --equil 100 --stage-reps 0 --check --quiet
        done
        t_grep "onchip-check-$prec-$1-$2-tp8" "$oc_pass" $b --system $2 $lat --ne $3 $dev --tier $1 --tp 8 \
            --steps 300 --equil 100 --stage-reps 0 --check --quiet
        t_grep "onchip-check-$prec-$1-$2-tp1" "$oc_pass" $b --system $2 $lat --ne $3 $dev --tier $1 --tp 1 \
            --steps 300 --equil 100 --stage-reps 0 --check --quiet
    done
    for C in 1 3 8; do
        t_grep "onchip-check-$prec-cluster-sp-c$C" "$oc_pass" $b --ne 8 $dev --tier cluster --cluster $C \
            --sample-every 10 --steps 300 --equil 100 --stage-reps 0 --check --quiet
    done
    t_grep "onchip-check-$prec-cluster-salt" "$oc_pass" $b --system salt --ne 12 --rc 4 $dev --tier cluster --steps 200 \
        --equil 100 --stage-reps 0 --check --quiet
    t_grep "onchip-check-$prec-grid-salt" "$oc_pass" $b --system salt --ne 16 $dev --tier grid --steps 200 \
        --equil 100 --stage-reps 0 --check --quiet
    if [ $prec = double ]; then
        layer=$BUILD/double/gpu-layer
        for c in "block sp 8" "block lammps-lj 8" "grid sp 16" "grid lammps-lj 16" "cluster sp 8" \
            "cluster lammps-lj 8" "cluster lammps-lj 12"; do
            set -- $c
            lat=""; [ $2 = lammps-lj ] && lat="--lattice sc"
            if [ -x "$layer" ]; then
                t_ok "onchip-same-rebuilds-$1-$2" oc_same_as_layer $layer $b $1 --system $2 $lat --ne $3 \
                    --steps 500 --equil 0 --sample-every 50 --stage-reps 0 --quiet
            else
                t_skip "onchip-same-rebuilds-$1-$2" "$layer not built"
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
done
