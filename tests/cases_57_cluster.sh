# gpu-cluster's list shapes and its planted faults (kernels/cuda/cluster_list.cuh). The common GPU
# groups (tests/cases_50_gpu.sh) run it at its default shape; here every shape the force kernel
# has, on every system, and the faults each check must catch. Verdicts are read from the row
# (status ok / check-failed, and the row's check columns: check_row in tests/lib.sh), not from
# the console.
#   cluster-shape-*   --check after MD steps (per atom against O(N^2), the covered pairs within
#                     r_n, each once per row through its own shift) at 4x1, 8x1, 4x4, 8x4, 8x8,
#                     lammps-lj, SP, LJ and the charged salt, host and device decisions
#   cluster-plant-*   a test build with one fault (Makefile test-cluster-plant-K, built here on
#                     demand): a dropped candidate, a wrong shift, a wrong mask bit, a padding slot
#                     read as an atom; each run's row must say check-failed (or the run stop
#                     unstable), where the same run of the real program says ok
#   cluster-refuse-*  a shape the kernel has no instance for: one line, exit 2
#   cluster-prune-*   --prune (inner rows cut to r_c + a buffer, rewritten by the rebuild rule's
#                     bound): --check at every shape, host and device decisions, graphs, the fused
#                     leapfrog; faults 5-7 (no buffer, no prune between rebuilds, an entry lost in
#                     the copy) caught; a buffer not below delta refused (also without a GPU)
# Without a GPU nothing else runs: one SKIP line per group, never a pass.
if [ -x "$BUILD/double/gpu-cluster" ]; then
    t_error "cluster-prune-refuse-buffer" 2 'prune.*must be below --delta' \
        $BUILD/double/gpu-cluster --system lammps-lj --ne 5 --prune 0.3
fi
if ! have_gpu || [ ! -x "$BUILD/double/gpu-cluster" ]; then
    why="no GPU found"
    have_gpu && why="gpu-cluster not built (nvcc missing?)"
    for grp in shape plant refuse prune; do t_skip "cluster-$grp" "$why"; done
    return 0 2>/dev/null || exit 0
fi

# each run's row in a file of its own (kept beside the logs)
_t57_dir=$TEST_LOG_DIR/cluster-rows
rm -rf "$_t57_dir"; mkdir -p "$_t57_dir"
# _t57_row CSV BIN ARGS...: BIN ARGS... appends its row to CSV (a fresh file); the row's status
_t57_row() {
    local csv=$1; shift
    rm -f "$csv"
    "$@" --csv "$csv" --quiet >/dev/null 2>&1
    [ -s "$csv" ] && python3 runs/csvq.py get "$csv" status || echo "no-row"
}
# the row's check columns say pass (check_row) and its status ok
_t57_ok() {
    local csv=$_t57_dir/$RANDOM$RANDOM.csv st
    st=$(_t57_row "$csv" "$@"); echo "status: $st"
    [ "$st" = ok ] && check_row "$csv"
}
# the row's check says fail (an unstable run's check fails without comparing) and its status
# check-failed or unstable
_t57_caught() {
    local csv=$_t57_dir/$RANDOM$RANDOM.csv st
    st=$(_t57_row "$csv" "$@"); echo "status: $st"
    case "$st" in check-failed | unstable) check_row "$csv" fail ;; *) return 1 ;; esac
}

for prec in double float; do
    b=$BUILD/$prec/gpu-cluster
    for shape in 4x1 8x1 4x4 8x4 8x8; do
        for sys in "lammps-lj 5" "sp 12" "lj 10" "salt 12"; do
            set -- $sys
            for path in host device; do
                dev=""; [ $path = device ] && dev="--decide device --graph on"
                t_ok "cluster-shape-$prec-$shape-$1-$path" _t57_ok $b --system $1 --ne $2 --steps 300 --equil 100 \
                    --icluster ${shape%x*} --jcluster ${shape#*x} $dev --check
            done
        done
    done
done
t_error "cluster-refuse-jcluster" 2 'jcluster 2 with --icluster 4' $BUILD/double/gpu-cluster --icluster 4 --jcluster 2 --ne 8
t_error "cluster-refuse-icluster" 2 'icluster 2: the force kernel has i-clusters of 4 or 8' \
    $BUILD/double/gpu-cluster --icluster 2 --ne 8

# --prune: every shape, both decisions, graphs and the fused leapfrog; a wide outer shell (delta
# 0.8) so that inner rows are used for several steps between rebuilds
for prec in double float; do
    b=$BUILD/$prec/gpu-cluster
    for shape in 4x1 8x1 8x4; do
        for path in host device cond; do
            case $path in
            host) dev="" ;;
            device) dev="--decide device --graph on" ;;
            cond) dev="--decide device --graph cond --leapfrog fused" ;;
            esac
            t_ok "cluster-prune-$prec-$shape-lammps-lj-$path" _t57_ok $b --system lammps-lj --ne 5 --steps 300 \
                --equil 100 --delta 0.8 --prune 0.1 --icluster ${shape%x*} --jcluster ${shape#*x} $dev --check
        done
    done
    t_ok "cluster-prune-$prec-salt-device" _t57_ok $b --system salt --ne 12 --steps 300 --equil 100 \
        --prune 0.2 --decide device --graph on --check
done

# each fault: the real program passes the same run (so a failure is the fault's)
plants=()
for k in 1 2 3 4 5 6 7; do plants+=("$BUILD/double/test-cluster-plant-$k"); done
make --no-print-directory -s -j8 BUILD="$BUILD" "${plants[@]}" >"$TEST_LOG_DIR/cluster-plant-build.log" 2>&1
# NAME: the real program passes the run ARGS (OK, a function) and the test build PB fails it
# (CAUGHT)
_t57_plant() {
    local name=$1 pb=$2 ok=$3 caught=$4; shift 4
    if [ ! -x "$pb" ]; then
        _t_fail "$name" "$pb not built ($TEST_LOG_DIR/cluster-plant-build.log)"
        return
    fi
    t_ok "$name-real-passes" "$ok" $BUILD/double/gpu-cluster "$@"
    t_ok "$name-caught" "$caught" "$pb" "$@"
}
for k in 1 2 3 4; do
    name=(- dropped-candidate wrong-shift wrong-mask padding-counted)
    shape="--icluster 8 --jcluster 1"; [ $k = 4 ] && shape="--icluster 8 --jcluster 4"
    # NVE: no temperature verdict
    _t57_plant "cluster-plant-$k-${name[$k]}" "${plants[$((k - 1))]}" _t57_ok _t57_caught \
        --system lammps-lj --ne 5 --steps 200 --equil 0 $shape --check
done
# --prune's faults: four consecutive lengths (tests/lib.sh: at_some_length) and each decision path
_t57_caught_any() { at_some_length _t57_caught "$@"; }
_t57_ok_all() { at_every_length _t57_ok "$@"; }
for k in 5 6 7; do
    name=(- - - - - no-buffer no-prune-between-rebuilds entry-lost)
    for path in host device; do
        dev=""; [ $path = device ] && dev="--decide device --graph on"
        _t57_plant "cluster-plant-$k-${name[$k]}-$path" "${plants[$((k - 1))]}" _t57_ok_all _t57_caught_any \
            --system lammps-lj --ne 5 --equil 0 --delta 1.0 --prune 0.05 $dev --check
    done
done
