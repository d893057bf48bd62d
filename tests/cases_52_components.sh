# Device components on their own (tests/test_components.cu): each wrapped in a small kernel and
# compared with its host counterpart, both precisions, one case per group (test-components GROUP).
#   components-*-rebuild   the rebuild rule (kernels/rebuild_rule.h) on crafted steps
#                          (tests/rebuild_cases.h: a threshold met exactly, one ulp short, a sum
#                          that a fused multiply-add would round onto the threshold), a run to its
#                          first rebuild, the build hash and the prune test; the host side of the
#                          same cases is tests/test_core.c's
#   components-*-cells     cell_of_position and cell_bin (gpu_sim.cuh) against kernels/cpu/cells.c:
#                          every atom's cell, every cell's count and row, exactly (tests/comp_cells.cuh)
#   components-*-scan      the counting sort's gated scan of cell counts (cell_scan.cuh), one block
#                          and three launches, gated and not, against the host's scan, exactly, and
#                          nothing written with the gate off (tests/comp_scan.cuh)
#   components-*-pair      pair_force_add (pair_force.cuh) against the reference's pair_u_double for
#                          every preset's potential, from 0.85 to r_c and beyond it (exactly 0 there);
#                          tolerance 1e-13 (double), 1e-4 (float) of the pair's magnitudes (tests/comp_pair.cuh)
#   components-*-reduce    warp_reduce and block_reduce (reduce.cuh), sum and maximum, against host
#                          sums, exactly (tests/comp_reduce.cuh)
#   components-*-list      the n2 list build (rumd_lists.cuh) and the 16- and 32-bit per-atom rows
#                          (atom_rows.cuh: n2 and cell builds, t_p 1-32) against an O(N^2) host list,
#                          as sorted sets per atom, and the build status (tests/comp_list.cuh, comp_rows.cuh)
#   components-*-sync      the chunk kernels' sync and reduce policies (chunk_sync.cuh: block, grid,
#                          cluster): each step's largest value in every thread, the chunk's totals,
#                          exactly (tests/comp_sync.cuh)
#   components-plant-K     test-components built with planted fault K (-DCOMPONENT_PLANT=K,
#                          kernels/component_plant.h; docs/mutants.md) must fail its group (exit 1,
#                          a FAIL line), not crash; double only, built here where a GPU is
# Without a GPU: SKIP (CI compiles the programs).
_t52_groups="rebuild cells scan pair reduce list sync"
for prec in double float; do
    b=$BUILD/$prec/test-components
    for grp in $_t52_groups; do
        if [ ! -x "$b" ]; then t_skip "components-$prec-$grp" "$b not built (nvcc missing?)"
        elif ! have_gpu; then t_skip "components-$prec-$grp" "no GPU found"
        else t_ok "components-$prec-$grp" "$b" "$grp"
        fi
    done
done

# planted fault K -> the group that must catch it (docs/mutants.md, "The components' planted faults")
_t52_plant_group=(- cells cells pair pair pair pair pair reduce reduce reduce list list list list list sync scan scan list)
# _t52_caught BINARY GROUP: exit 0 when BINARY GROUP exits 1 with a FAIL line (the fault caught)
_t52_caught() {
    local out rc=0
    out=$("$@" 2>&1) || rc=$?
    printf '%s\n' "$out"
    if [ $rc -ne 1 ]; then echo "exit $rc, expected 1 (a check failed)"; return 1; fi
    grep -q '^FAIL ' <<<"$out" || { echo "no FAIL line"; return 1; }
}
_t52_nvcc=$(grep -qx 'cuda=yes' "$BUILD/features" 2>/dev/null && echo yes)
if have_gpu && [ -n "$_t52_nvcc" ]; then
    _t52_bins=()
    for k in $(seq 1 $((${#_t52_plant_group[@]} - 1))); do _t52_bins+=("$BUILD/double/test-components-plant-$k"); done
    _t_wanted components-plant- && make --no-print-directory -s -j8 BUILD="$BUILD" "${_t52_bins[@]}" \
        >"$TEST_LOG_DIR/components-plant-build.log" 2>&1
fi
for k in $(seq 1 $((${#_t52_plant_group[@]} - 1))); do
    _t52_name=components-plant-$k
    pb=$BUILD/double/test-components-plant-$k
    if ! have_gpu; then t_skip "$_t52_name" "no GPU found"
    elif [ -z "$_t52_nvcc" ]; then t_skip "$_t52_name" "nvcc missing: $pb not built"
    elif [ ! -x "$pb" ]; then
        _t_wanted "$_t52_name" && _t_fail "$_t52_name" "$pb not built ($TEST_LOG_DIR/components-plant-build.log)"
    else t_ok "$_t52_name" _t52_caught "$pb" "${_t52_plant_group[$k]}"
    fi
done
