# gpu-dd (issue 13): domain decomposition over several GPUs, one MPI rank each.
#   dd-model-*     the pulse rules on a CPU model (tests/dd_pulse_model.py), with planted faults
#   dd-refuse-*    bad geometry refused before any GPU is touched (so these run on CI too):
#                  a domain thinner than r_n (6 slabs of an ne 8 SP box, mpirun -np 6), a box
#                  not above 2 r_n, a --dd-grid whose product is not the number of ranks, an
#                  unknown --comm: exit 2, a message naming the limit
#   dd-fault-*     a failing rank stops every rank, never a hang: a planted failure of rank 1
#                  while rank 0 waits in a collective (CPU, mpirun -np 2) and, on GPUs, in the
#                  middle of a run for each backend; non-zero exit within the time limit and a
#                  message naming rank 1
#   dd-sort-*      one rank: --reorder's sort by cell changes nothing but the order of summation
#                  (same rebuild steps and end energy as unsorted); a planted fault fails it
#   dd-check-*     one rank (any GPU): --check (per-atom forces and energies against the O(N^2)
#                  reference, W against the brute-force pair set), SP, LJ and salt (charges
#                  ride in r.w, to the ghosts too), float and
#                  double, every backend flag (one rank exchanges only with itself)
#   dd-lose-*      the conservation check can fail: one atom dropped at a rebuild (planted)
#                  stops the run with the count and checksum message
#   dd-row-halo-*  the halo and force replays (--dd-halo-reps) in the row's pairs, as the console
#                  line says them (one rank on a GPU; dd-multi-row-halo-*: 2 ranks)
#   dd-multi-*     2 ranks (every backend built) and 4 ranks on 2 GPUs (a 2x2x1 grid; all but
#                  nccl: NCCL refuses two ranks on one GPU) and 8 ranks as 2x2x2 (mpi): --check
#                  passes (rank 0's row) after a run in which atoms migrated (count and id checksum checked at
#                  every rebuild by the program itself); --dd-overlap on (inner atoms' forces
#                  while the remote halo is in flight) with 2 ranks per backend and 4 z-slabs;
#                  --dd-graph on (the step's halo as a CUDA graph) with 2 ranks per backend but mpi.
#                  Need >= 2 GPUs, or NBR_DD_MULTI=1
#                  (several ranks per GPU); else SKIP lines.
#   dd-device-*    --decide device (the rebuild test on the devices, v^2 combined over ranks on
#                  the device; nccl, p2p, nvshmem): refused with --comm mpi (exit 2, CPU); on a GPU
#                  one rank per backend --check passes, overlap too; on 2 ranks per backend the
#                  device decision rebuilds at exactly the steps of the host decision over the
#                  first 500 steps from the same start (the summary hashes the rebuild steps),
#                  --check passes after migrations (overlap too, and 2x2x1 on 4 ranks but nccl), and a
#                  rank failing at a rebuild stops every rank (the others wait in the device vote);
#                  the same steps with the stopped device's forces ungated (--dd-force-gate off)
#   dd-newton-*    --dd-newton on (half-shell ghosts, each pair across a boundary on one domain,
#                  the force halo back in reverse pulse order; mpi, nccl, p2p): the CPU model
#                  (every pair once, forces and energies equal to the full lists on 8 grids, 3
#                  planted faults fail it); refused with nvshmem and with --dd-overlap on (CPU);
#                  on a GPU, one rank per backend, SP/LJ/salt, float and double: --check passes (W's
#                  pairs: each on one domain, both rows: multiplicity 2); the same rebuild steps,
#                  end energy (1e-6) and pressure (2e-5) as --dd-newton off (double); --decide
#                  device; on 2+ GPUs (or NBR_DD_MULTI=1) 2 ranks per backend, 3x1x1 (distinct
#                  neighbours below and above), 2x2x1 and 2x2x2: --check passes after migrations,
#                  on vs off the same steps and energies, --decide device, a failing rank
# Every --check verdict is read from the run's row (the row's check columns: check_passes and
# check_row in tests/lib.sh; rank 0 writes it), not from the lines printed.
# Without mpirun or without a built gpu-dd, one SKIP line per group; without a GPU the GPU
# groups SKIP.
# the pulse rules themselves, on a CPU model (tests/dd_pulse_model.py): every pair within r_n
# found once per direction on 8 grids, no inner atom with remote neighbours; and planted
# faults (a wrong periodic shift, the same axis's ghosts offered again) fail it
if command -v python3 >/dev/null 2>&1; then
    t_grep "dd-model-pulses" 'model: ok' python3 tests/dd_pulse_model.py 1
    for plant in wrong-shift same-axis-candidates; do
        t_grep "dd-model-catches-$plant" 'model: FAIL' bash -c "python3 tests/dd_pulse_model.py 1 --plant $plant; [ \$? -eq 1 ]"
    done
    # --dd-newton on: half shell, eighth-shell zone rule, the force halo in reverse pulse order
    t_grep "dd-newton-model" 'model: ok' python3 tests/dd_pulse_model.py 1 --newton
    for plant in skip-force-forward-y no-zone-rule local-ghost-only; do
        t_grep "dd-newton-model-catches-$plant" 'model: FAIL' \
            bash -c "python3 tests/dd_pulse_model.py 1 --newton --plant $plant; [ \$? -eq 1 ]"
    done
else
    t_skip "dd-model" "python3 not found"
    t_skip "dd-newton-model" "python3 not found"
fi
dd_groups="refuse fault check lose sort multi"
dd=$BUILD/double/gpu-dd
ddf=$BUILD/float/gpu-dd
if [ ! -x "$dd" ]; then
    for grp in $dd_groups; do t_skip "dd-$grp" "$dd not built (mpi.h missing? see make's message)"; done
    return 0 2>/dev/null || exit 0
fi
if ! command -v mpirun >/dev/null 2>&1; then
    for grp in $dd_groups; do t_skip "dd-$grp" "mpirun not found"; done
    return 0 2>/dev/null || exit 0
fi
export NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1
# the backends this gpu-dd was built with (NCCL where nccl.h was found, NVSHMEM where it was)
dd_comms=$("$dd" --help 2>/dev/null | sed -n 's/^compiled backends: //p')
[ -n "$dd_comms" ] || dd_comms="mpi p2p"
# 120 s: a hang shows as the timeout's exit 124 (p2p/nvshmem waits give up by themselves after 20 s)
dd_mpirun() { timeout 120 mpirun --allow-run-as-root --oversubscribe --bind-to none "$@"; }

# dd_refused NP REGEX ARGS...: exit 2 from every rank, each with the same one-line message.
dd_refused() {
    local np=$1 regex=$2 out rc; shift 2
    out=$(dd_mpirun -np "$np" "$@" 2>&1 >/dev/null); rc=$?
    echo "$out"
    [ $rc -eq 2 ] || { echo "exit code $rc, expected 2"; return 1; }
    local lines
    lines=$(echo "$out" | grep -E '^gpu-dd: rank [0-9]+: ' | grep -Ev 'stopped with exit code' | sed 's/rank [0-9]*/rank R/' | sort -u)
    [ "$(echo "$lines" | grep -c .)" -eq 1 ] || { echo "expected one message, the same from every rank"; return 1; }
    echo "$lines" | grep -Eq -- "$regex" || { echo "message lacks /$regex/"; return 1; }
}

# dd_shared_refusal -np NP ARGS...: with NBR_DD_MULTI=1 and more ranks than GPUs, the message
# a backend that needs a GPU per rank must stop with (nccl; nvshmem with --decide device);
# nothing when the run is allowed
dd_shared_refusal() {
    local np=$2 comm=mpi dec=host prev=
    for a in "$@"; do
        [ "$prev" = --comm ] && comm=$a; [ "$prev" = --decide ] && dec=$a; prev=$a
    done
    [ "$np" -gt "${ngpu:-$(nvidia-smi -L 2>/dev/null | grep -c '^GPU')}" ] || return 0
    [ $comm = nccl ] && echo 'comm nccl needs one rank per GPU'
    [ $comm = nvshmem ] && [ $dec = device ] && echo 'nvshmem --decide device needs one rank per GPU'
    return 0
}
# the multi-rank checks, where ranks share a GPU that the backend cannot share: refused
# with that backend's one-line message on every rank instead (exit 2)
dd_or_refused() {
    local why; why=$(dd_shared_refusal "$@")
    [ -n "$why" ] || return 1
    shift; local np=$1; shift
    echo "$np ranks on ${ngpu:-?} GPU(s): expecting the refusal /$why/"
    dd_refused "$np" "$why" "$@" --steps 0 --equil 0
}

# dd_stops_all ARGS...: non-zero exit (not the timeout's 124), a message naming rank 1.
dd_stops_all() {
    local out rc
    [ -n "$(dd_shared_refusal "$@")" ] && { dd_or_refused "$@"; return; }
    out=$(dd_mpirun "$@" 2>&1); rc=$?
    echo "$out" | tail -20
    [ $rc -ne 0 ] || { echo "exit code 0"; return 1; }
    [ $rc -ne 124 ] || { echo "hung: stopped by the 120 s timeout"; return 1; }
    echo "$out" | grep -Eq 'gpu-dd: rank 1: planted failure' || { echo "no message naming rank 1"; return 1; }
}

t_ok "dd-refuse-thin-domain" dd_refused 6 'domains along x are .* thinner than r_n = 1.722.*at most 5 domains' \
    "$dd" --ne 8 --steps 0 --equil 0 --quiet
t_ok "dd-refuse-thin-domain-z" dd_refused 3 'domains along z are .* thinner than r_n' \
    "$dd" --system lj --ne 8 --dd-grid 1x1x3 --steps 0 --equil 0 --quiet
# the harness refuses r_n >= L/2 for every program (md_loop.c), before gpu-dd's own L <= 2 r_n
t_error "dd-refuse-small-box" 2 'r_n = --rc \+ --delta = 1.722 must be below half the box edge' "$dd" --ne 3 --steps 0 \
    --equil 0 --quiet
t_error "dd-refuse-grid-mismatch" 2 'dd-grid 2x1x1 has 2 domains, but 1 rank' "$dd" --dd-grid 2x1x1 --ne 8
t_error "dd-refuse-bad-comm" 2 "comm must be one of mpi\|nccl\|p2p\|nvshmem \(got 'shmem'\)" "$dd" --comm shmem --ne 8
t_error "dd-refuse-bad-overlap" 2 "dd-overlap must be one of off\|on \(got 'yes'\)" "$dd" --dd-overlap yes --ne 8
t_error "dd-refuse-bad-grid" 2 'dd-grid 2x1: expected PXxPYxPZ' "$dd" --dd-grid 2x1 --ne 8
# gpu-dd's switches that were environment variables (issue 26): flags, refused when bad (exit 2, one
# line), named in --help and --print-config with their defaults, and (on a GPU, below) recorded in the row
t_error "dd-refuse-bad-halo-reps" 2 "dd-halo-reps needs a number \(got '10x'\)" "$dd" --dd-halo-reps 10x --ne 8
t_error "dd-refuse-negative-halo-reps" 2 "dd-halo-reps = -2 is outside its limits \[-1, 1e\+06\]" "$dd" --dd-halo-reps -2 --ne 8
t_error "dd-refuse-bad-horizon" 2 "dd-horizon must be one of off\|on \(got '0'\)" "$dd" --dd-horizon 0 --ne 8
t_error "dd-refuse-bad-force-gate" 2 "dd-force-gate must be one of off\|on \(got 'no'\)" "$dd" --dd-force-gate no --ne 8
t_error "dd-refuse-bad-profile" 2 "dd-profile must be one of off\|on \(got '1'\)" "$dd" --dd-profile 1 --ne 8
t_error "dd-refuse-zero-timeout" 2 "dd-timeout = 0 is outside its limits" "$dd" --dd-timeout 0 --ne 8
t_error "dd-refuse-flags-elsewhere" 2 "cpu-grouped: --dd-horizon: unknown flag" "$BUILD/double/cpu-grouped" --dd-horizon off
dd_flags_open() {   # every former environment switch in --help and in --print-config, with its default
    local help cfg f
    help=$("$dd" --help 2>&1) || { echo "--help failed"; return 1; }
    cfg=$("$dd" --print-config 2>&1) || { echo "--print-config failed: $cfg"; return 1; }
    for f in dd-horizon dd-force-gate dd-halo-reps dd-profile dd-timeout; do
        grep -q -- "--$f" <<<"$help" || { echo "--help lacks --$f"; return 1; }
    done
    for f in dd-horizon=on dd-force-gate=on dd-halo-reps=-1 dd-profile=off dd-timeout=20; do
        grep -qx -- "$f" <<<"$cfg" || { echo "--print-config lacks $f"; return 1; }
    done
    cfg=$("$dd" --print-config --dd-horizon off --dd-halo-reps 3 --dd-timeout 7.5)
    for f in dd-horizon=off dd-halo-reps=3 dd-timeout=7.5; do
        grep -qx -- "$f" <<<"$cfg" || { echo "--print-config lacks $f"; return 1; }
    done
    grep -E 'NBR_DD_(HORIZON|FORCE_GATE|HALO_REPS|PROFILE|TIMEOUT_S|FAIL_|LOSE_|SORT_)' <<<"$help" &&
        { echo "--help still names a former (or planted) NBR_DD_ variable"; return 1; }
    echo "dd flags in --help and --print-config"
}
t_grep "dd-flags-help-print-config" 'dd flags in --help and --print-config' dd_flags_open
# the planted faults live in the test build only (-DNBR_PLANT_DD): with NBR_DD_FAIL_RANK=0 the
# test build stops at start (before any GPU), the program does not (it runs, or stops for want of a GPU)
ddp=$BUILD/double/test-dd-plant
dd_plant_only_in_test_build() {
    local out
    [ -x "$ddp" ] || { echo "$ddp not built"; return 1; }
    out=$(NBR_DD_FAIL_RANK=0 "$ddp" --ne 8 --steps 0 --equil 0 --quiet 2>&1) && { echo "the test build ran"; return 1; }
    grep -q 'rank 0: planted failure (NBR_DD_FAIL_RANK=0) during initialisation' <<<"$out" || { echo "$out"; return 1; }
    out=$(NBR_DD_FAIL_RANK=0 "$dd" --ne 8 --steps 0 --equil 0 --quiet 2>&1)
    grep -q 'planted' <<<"$out" && { echo "gpu-dd reacted: $out"; return 1; }
    echo "planted in the test build only"
}
t_grep "dd-plant-only-in-test-build" 'planted in the test build only' dd_plant_only_in_test_build
# the CPU programs have none of gpu-dd's switches: their rows say "-" in those columns
dd_cols_elsewhere() {
    local f=$TEST_LOG_DIR/dd-cols-cpu.csv
    rm -f "$f"
    "$BUILD/double/cpu-grouped" --ne 6 --steps 10 --equil 0 --csv "$f" --quiet >/dev/null || return 1
    python3 -c 'import sys
sys.path.insert(0, "runs"); import csvq  # knobs expanded: a knob no row has reads "-"
c = ["dd_horizon", "dd_force_gate", "dd_halo_reps", "dd_profile"]
t = csvq.read(sys.argv[1])
v = [t.rows[-1].get(k, t.missing(k)) for k in c]
sys.exit(0 if v == ["-"] * 4 else f"{c}: {v}")' "$f" && echo "dd columns - elsewhere"
}
t_grep "dd-columns-dash-in-cpu-rows" 'dd columns - elsewhere' dd_cols_elsewhere
t_error "dd-refuse-graph-mpi" 2 'dd-graph on needs a backend without host steps' "$dd" --dd-graph on --comm mpi --ne 8
t_error "dd-device-refuse-mpi" 2 'decide device needs a backend without host steps' "$dd" --decide device --comm mpi --ne 8
t_ok "dd-device-refuse-mpi-2ranks" dd_refused 2 'decide device needs a backend without host steps' \
    "$dd" --decide device --comm mpi --ne 8 --steps 0 --equil 0 --quiet
t_error "dd-newton-refuse-nvshmem" 2 'dd-newton on: the force halo is not written for --comm nvshmem' \
    "$dd" --dd-newton on --comm nvshmem --ne 8
t_error "dd-newton-refuse-overlap" 2 'dd-newton on with --dd-overlap on: not supported' \
    "$dd" --dd-newton on --dd-overlap on --ne 8
t_error "dd-newton-refuse-bad-value" 2 "dd-newton must be one of off\|on \(got 'yes'\)" "$dd" --dd-newton yes --ne 8
t_ok "dd-fault-rank1-at-init" env NBR_DD_FAIL_RANK=1 bash -c "$(declare -f dd_mpirun dd_stops_all dd_shared_refusal dd_or_refused dd_refused); dd_stops_all -np 2 $ddp --ne 8 --steps 10 --equil 0 --quiet"

if ! have_gpu; then
    for grp in check lose sort multi device-check device-multi newton-check newton-multi row-halo-pairs; do
        t_skip "dd-$grp" "no GPU found"
    done
    t_skip "dd-fault-gpu" "no GPU found"
    return 0 2>/dev/null || exit 0
fi
# --check's verdicts are read from each run's row (check_passes, check_row: tests/lib.sh), one CSV
# per test; rank 0 alone writes the row (dd_stages.cu takes --csv out of the other ranks' argv),
# with the verdict of the check over every rank's atoms (gathered by id)
dd_rows=$TEST_LOG_DIR/dd-rows
mkdir -p "$dd_rows"
# the former environment switches recorded in the row (one rank): the flags given, and
# --dd-halo-reps -1 written back as the --stage-reps count it used
dd_row_records() {
    local d=$TEST_LOG_DIR/dd-row out
    rm -rf "$d"; mkdir -p "$d"
    out=$("$dd" --comm p2p --decide device --ne 12 --steps 60 --equil 0 --stage-reps 3 --csv "$d/a.csv" --quiet 2>&1) ||
        { echo "$out" | tail; return 1; }
    out=$("$dd" --comm p2p --decide device --ne 12 --steps 60 --equil 0 --stage-reps 3 --dd-horizon off \
        --dd-force-gate off --dd-halo-reps 2 --dd-profile on --dd-timeout 9 --csv "$d/b.csv" --quiet 2>&1) ||
        { echo "$out" | tail; return 1; }
    grep -q 'rebuild phases (' <<<"$out" || { echo "--dd-profile on printed no phases"; return 1; }
    grep -q '; 2 replays' <<<"$out" || { echo "--dd-halo-reps 2: not 2 replays"; return 1; }
    python3 - "$d/a.csv" "$d/b.csv" <<'PY'
import csv, sys
sys.path.insert(0, "runs"); import csvq  # the rows with knobs expanded (docs/csv.md)
want = [dict(dd_horizon="on", dd_force_gate="on", dd_halo_reps="3", dd_profile="off"),
        dict(dd_horizon="off", dd_force_gate="off", dd_halo_reps="2", dd_profile="on")]
for path, w in zip(sys.argv[1:], want):
    row = csvq.read(path).rows[-1]
    got = {k: row.get(k) for k in w}
    if got != w:
        sys.exit(f"{path}: {got}, expected {w}")
print("rows record the dd switches")
PY
}
t_grep "dd-row-records-switches" 'rows record the dd switches' dd_row_records
# the halo and force kernel replayed alone (--dd-halo-reps) as the row's pairs halo_us, force_us,
# halo_us_rank0, force_us_rank0, replays: the numbers of the console line "# dd: halo exchange",
# the largest over ranks at least rank 0's; no pairs with --dd-halo-reps 0. With several ranks,
# rank 0 times them while writing its row and the others in dd_finish: no hang (dd_mpirun's timeout)
dd_halo_pairs() {   # NAME [dd_mpirun -np P] PROGRAM ARGS...
    local d=$TEST_LOG_DIR/$1 out; shift
    rm -rf "$d"; mkdir -p "$d"
    out=$("$@" --dd-halo-reps 4 --csv "$d/a.csv" --quiet 2>&1) || { echo "$out" | tail -20; return 1; }
    echo "$out" | grep '^# dd: halo exchange'
    "$@" --dd-halo-reps 0 --csv "$d/a.csv" --quiet >"$d/none.log" 2>&1 || { tail -20 "$d/none.log"; return 1; }
    grep -q '^# dd: halo exchange' "$d/none.log" && { echo "--dd-halo-reps 0 printed a halo line"; return 1; }
    python3 - "$d/a.csv" "$out" <<'PY'
import re, sys
sys.path.insert(0, "runs"); import csvq  # the pairs read as columns (docs/csv.md)
rows = csvq.read(sys.argv[1]).rows
cols = ["halo_us", "force_us", "halo_us_rank0", "force_us_rank0", "replays"]
m = re.search(r"# dd: halo exchange (\S+) us/step, force kernel (\S+) us/call \(largest over ranks; rank 0: ([^,]+), "
              r"([^;]+); (\d+) replays", sys.argv[2])
if not m:
    sys.exit("no halo line on the console")
got = [rows[0].get(c, "-") for c in cols]
if got != list(m.groups()):
    sys.exit(f"the row's {dict(zip(cols, got))}, the console's {list(m.groups())}")
h, f, h0, f0 = map(float, got[:4])
if got[4] != "4" or not (h >= h0 > 0 and f >= f0 > 0):
    sys.exit(f"expected 4 replays, the largest at least rank 0's, all > 0: {dict(zip(cols, got))}")
none = [rows[1].get(c, "-") for c in cols]
if none != ["-"] * 5:
    sys.exit(f"--dd-halo-reps 0: {dict(zip(cols, none))}, expected no pairs")
print("halo pairs in the row: " + " ".join(f"{c}={v}" for c, v in zip(cols, got)))
PY
}
t_grep "dd-row-halo-pairs" 'halo pairs in the row' dd_halo_pairs dd-row-halo-pairs "$dd" --comm p2p --ne 12 --steps 60 --equil 0
t_grep "dd-row-halo-pairs-device" 'halo pairs in the row' dd_halo_pairs dd-row-halo-pairs-device "$dd" --comm p2p \
    --decide device --ne 12 --steps 60 --equil 0
# the bytes the halo reports (dd_halo_bytes): on one rank every pulse is a periodic image, a
# copy on the device, so none travel between ranks (both halo directions with --dd-newton on)
for _dd_nt in off on; do
    t_grep "dd-halo-bytes-one-rank-newton-$_dd_nt" '^# dd: the halo \(--comm p2p\) moves 0 bytes per step' \
        "$dd" --comm p2p --dd-newton $_dd_nt --ne 12 --steps 20 --equil 0
done
for prec in double float; do
    b=$BUILD/$prec/gpu-dd
    for comm in $dd_comms; do
        t_grep "dd-check-$prec-sp-$comm" '^check pass ' check_passes "$dd_rows/dd-check-$prec-sp-$comm.csv" \
            $b --comm $comm --ne 16 --steps 300 --equil 100 --check --quiet
    done
    t_grep "dd-check-$prec-lj" '^check pass ' check_passes "$dd_rows/dd-check-$prec-lj.csv" \
        $b --system lj --ne 12 --steps 300 --equil 100 --check --quiet
    t_grep "dd-check-$prec-salt" '^check pass ' check_passes "$dd_rows/dd-check-$prec-salt.csv" \
        $b --system salt --ne 12 --steps 200 --equil 100 --check --quiet
    t_grep "dd-check-$prec-sp-overlap" '^check pass ' check_passes "$dd_rows/dd-check-$prec-sp-overlap.csv" \
        $b --dd-overlap on --ne 16 --steps 300 --equil 100 --check --quiet
    t_grep "dd-check-$prec-sp-graph-p2p" '^check pass ' check_passes "$dd_rows/dd-check-$prec-sp-graph-p2p.csv" \
        $b --dd-graph on --comm p2p --ne 16 --steps 300 --equil 100 --check --quiet
    t_grep "dd-check-$prec-sp-random" '^check pass ' check_passes "$dd_rows/dd-check-$prec-sp-random.csv" \
        $b --ne 10 --config random --steps 0 --equil 0 --check --quiet
    t_grep "dd-check-$prec-sp-ldg-col" '^check pass ' check_passes "$dd_rows/dd-check-$prec-sp-ldg-col.csv" \
        $b --ne 14 --read ldg --wlayout col --steps 200 --equil 50 --check --quiet
done
# the neighbour capacity grows when a build needs more (--grow-from 5: room for ~7 of the ~18
# neighbours at the start), and the check still passes (dd_grows_and_passes CSV CMD...: the
# growth from the summary, the verdict from the row in CSV)
dd_grows_and_passes() {
    local csv=$1 out; shift
    rm -f "$csv"
    out=$("$@" --csv "$csv" 2>&1) || { echo "$out"; return 1; }
    echo "$out"
    echo "$out" | grep -Eq 'grows = [1-9]' || { echo "no capacity grew"; return 1; }
    check_row "$csv"
}
# the device decision on one rank (every backend exchanges with itself); SP and LJ, overlap
dd_dev_comms=$(echo $dd_comms | tr ' ' '\n' | grep -vx mpi | tr '\n' ' ')
for prec in double float; do
    b=$BUILD/$prec/gpu-dd
    for comm in $dd_dev_comms; do
        t_grep "dd-device-check-$prec-sp-$comm" '^check pass ' check_passes \
            "$dd_rows/dd-device-check-$prec-sp-$comm.csv" \
            $b --comm $comm --decide device --ne 16 --steps 300 --equil 100 --check --quiet
        [ $prec = double ] && t_grep "dd-device-check-$prec-lj-$comm" '^check pass ' check_passes \
            "$dd_rows/dd-device-check-$prec-lj-$comm.csv" \
            $b --comm $comm --decide device --system lj --ne 12 --steps 300 --equil 100 --check --quiet
        [ $prec = double ] && t_grep "dd-device-check-$prec-sp-overlap-$comm" '^check pass ' check_passes \
            "$dd_rows/dd-device-check-$prec-sp-overlap-$comm.csv" $b --comm $comm --decide device \
            --dd-overlap on --ne 16 --steps 300 --equil 100 --sample-every 7 --check --quiet
    done
done
t_ok "dd-grow-nbr" dd_grows_and_passes "$dd_rows/dd-grow-nbr.csv" "$dd" --grow-from 5 --ne 14 --steps 200 --equil 50 \
    --check --quiet
t_error "dd-lose-one-atom" 1 'rank 0: step [0-9]+: atoms not conserved at the rebuild: 4095 atoms' \
    env NBR_DD_LOSE_STEP=50 "$ddp" --ne 16 --steps 300 --equil 100 --quiet

# --dd-newton on, one rank (every axis exchanges with itself: the half shell, the ghosts' rows
# and the force halo all run): --check, every backend with the force halo, both precisions
dd_newton_comms=$(echo $dd_comms | tr ' ' '\n' | grep -vx nvshmem | tr '\n' ' ')
# dd_same_end TOL_E TOL_P "FLAGS A" "FLAGS B" CMD...: CMD with A and with B, from the same start,
# rebuilds at the same steps and ends at the same energy and pressure within TOL_E and TOL_P (relative;
# absolute below magnitude 1, where E/N's 8 printed decimals are the resolution)
dd_same_end() {
    local te=$1 tp=$2 fa=$3 fb=$4 outa outb; shift 4
    outa=$("$@" $fa 2>&1) || { echo "$outa" | tail -20; return 1; }
    outb=$("$@" $fb 2>&1) || { echo "$outb" | tail -20; return 1; }
    local ra rb ea eb
    ra=$(echo "$outa" | grep 'rebuilds after step 0'); rb=$(echo "$outb" | grep 'rebuilds after step 0')
    ea=$(echo "$outa" | sed -n 's/.*energy E\/N: start [^ ]* end \([^ ]*\) .*pressure \([^ ]*\).*/\1 \2/p' | tail -1)
    eb=$(echo "$outb" | sed -n 's/.*energy E\/N: start [^ ]* end \([^ ]*\) .*pressure \([^ ]*\).*/\1 \2/p' | tail -1)
    echo "$fa: $ra; E/N end, pressure: $ea"
    echo "$fb: $rb; E/N end, pressure: $eb"
    [ -n "$ra" ] && [ "$ra" = "$rb" ] || { echo "different rebuild steps"; return 1; }
    [ -n "$ea" ] || { echo "no energy or pressure in the summary"; return 1; }
    awk -v a="$ea" -v b="$eb" -v te="$te" -v tp="$tp" "$awk_rel"'
        BEGIN { split(a, x, " "); split(b, y, " ")
                if (rel(x[1], y[1], 1) > te || rel(x[2], y[2], 1) > tp) { print "energy or pressure differ beyond " te " / " tp; exit 1 } }'
}
# dd_newton_same CMD...: --dd-newton off and on from the same start: the same rebuild steps,
# end energy within 1e-6 relative and pressure within 2e-5 (printed to 6 digits; the sums differ in
# order only: a pair or a virial counted twice or lost shows far above)
dd_newton_same() {
    [ "$1" = dd_mpirun ] && [ -n "$(dd_shared_refusal "${@:2}")" ] && { dd_or_refused "${@:2}"; return; }
    dd_same_end 1e-6 2e-5 "--dd-newton off" "--dd-newton on" "$@"
}
# --reorder: the local atoms sorted by cell at rebuilds (every 10 steps here) change only the order
# of summation, so from the same start (double, no rescaling) the run rebuilds at the same steps
# and ends at the same energy (2e-8: two steps of the 8th printed decimal) and pressure (2e-5: 6 digits) as one never sorted; planted: velocities not
# moved with their positions (NBR_DD_SORT_SKIP_V, the test build) must fail it
dd_sort_same() { dd_same_end 2e-8 2e-5 "--reorder 0" "--reorder 10" "$@"; }
t_ok "dd-sort-same-as-unsorted-sp" dd_sort_same "$dd" --ne 16 --steps 300 --equil 0 --stage-reps 0
t_ok "dd-sort-same-as-unsorted-lj" dd_sort_same "$dd" --system lj --ne 12 --steps 300 --equil 0 --stage-reps 0
dd_sort_planted() {
    local out rc
    out=$(NBR_DD_SORT_SKIP_V=1 dd_sort_same "$@"); rc=$?
    echo "$out"
    [ $rc -ne 0 ] && echo "$out" | grep -Eq 'differ beyond|different rebuild steps'
}
t_ok "dd-sort-planted-velocities-left" dd_sort_planted "$ddp" --ne 16 --steps 300 --equil 0 --stage-reps 0
# float ids past 2^24 (SP, 258^3 = 17.2M atoms): they ride in v.w as the int's bits, since a float
# value tells only 2^24 ids apart; the id checksum at every rebuild (the first build included) must
# match the host's sum over every id (as float values, ids above 2^24 would collide; before 345fce3 float gpu-dd refused this N)
t_ok "dd-float-ids-past-2p24" "$ddf" --ne 258 --steps 40 --equil 0 --stage-reps 0 --quiet
for prec in double float; do
    b=$BUILD/$prec/gpu-dd
    for comm in $dd_newton_comms; do
        t_grep "dd-newton-check-$prec-sp-$comm" '^check pass ' check_passes \
            "$dd_rows/dd-newton-check-$prec-sp-$comm.csv" \
            $b --dd-newton on --comm $comm --ne 16 --steps 300 --equil 100 --check --quiet
    done
    t_grep "dd-newton-check-$prec-lj" '^check pass ' check_passes "$dd_rows/dd-newton-check-$prec-lj.csv" \
        $b --dd-newton on --system lj --ne 12 --steps 300 --equil 100 --check --quiet
    t_grep "dd-newton-check-$prec-salt" '^check pass ' check_passes "$dd_rows/dd-newton-check-$prec-salt.csv" \
        $b --dd-newton on --system salt --ne 12 --steps 200 --equil 100 --check --quiet
    t_grep "dd-newton-check-$prec-sp-random" '^check pass ' check_passes \
        "$dd_rows/dd-newton-check-$prec-sp-random.csv" \
        $b --dd-newton on --ne 10 --config random --steps 0 --equil 0 --check --quiet
    t_grep "dd-newton-check-$prec-sp-ldg-col" '^check pass ' check_passes \
        "$dd_rows/dd-newton-check-$prec-sp-ldg-col.csv" \
        $b --dd-newton on --ne 14 --read ldg --wlayout col --steps 200 --equil 50 --check --quiet
done
t_grep "dd-newton-check-double-sp-graph-p2p" '^check pass ' check_passes \
    "$dd_rows/dd-newton-check-double-sp-graph-p2p.csv" \
    $dd --dd-newton on --dd-graph on --comm p2p --ne 16 --steps 300 --equil 100 --check --quiet
t_ok "dd-newton-check-double-grow-nbr" dd_grows_and_passes "$dd_rows/dd-newton-check-double-grow-nbr.csv" \
    "$dd" --dd-newton on --grow-from 5 --ne 14 --steps 200 --equil 50 --check --quiet
t_ok "dd-newton-check-same-as-off-sp" dd_newton_same "$dd" --ne 16 --steps 500 --equil 0 --stage-reps 0
t_ok "dd-newton-check-same-as-off-lj" dd_newton_same "$dd" --system lj --ne 12 --steps 500 --equil 0 --stage-reps 0
for comm in $dd_dev_comms; do
    [ $comm = nvshmem ] && continue
    for prec in double float; do
        t_grep "dd-newton-check-device-$prec-sp-$comm" '^check pass ' check_passes \
            "$dd_rows/dd-newton-check-device-$prec-sp-$comm.csv" $BUILD/$prec/gpu-dd --dd-newton on --comm $comm \
            --decide device --ne 16 --steps 300 --equil 100 --check --quiet
    done
done

ngpu=$(nvidia-smi -L 2>/dev/null | grep -c GPU)
if [ "$ngpu" -lt 2 ] && [ "${NBR_DD_MULTI:-0}" != 1 ]; then
    t_skip "dd-newton-multi" "$ngpu GPU(s): needs 2 (or NBR_DD_MULTI=1)"
    t_skip "dd-multi" "$ngpu GPU(s): needs 2 (or NBR_DD_MULTI=1 for several ranks per GPU)"
    t_skip "dd-fault-gpu" "$ngpu GPU(s): needs 2 (or NBR_DD_MULTI=1)"
    t_skip "dd-device-multi" "$ngpu GPU(s): needs 2 (or NBR_DD_MULTI=1)"
    return 0 2>/dev/null || exit 0
fi
# dd_multi_pass CSV MPIRUN-ARGS...: moved atoms (the summary counts them); the check passes after
# they moved (rank 0's row in CSV: check_row)
dd_multi_pass() {
    local csv=$1 out; shift
    [ -n "$(dd_shared_refusal "$@")" ] && { dd_or_refused "$@"; return; }
    rm -f "$csv"
    out=$(dd_mpirun "$@" --csv "$csv" 2>&1) || { echo "$out" | tail -20; return 1; }
    echo "$out"
    check_row "$csv" || return 1
    echo "$out" | grep -Eq '# dd: [1-9][0-9]* atoms migrated' || { echo "no atom migrated"; return 1; }
}
# every backend with 2 ranks in both precisions (SP), LJ and salt in double; the 2D and 3D grids in double
# with the backends that allow two ranks on one GPU (NCCL does not)
for prec in double float; do
    b=$BUILD/$prec/gpu-dd
    for comm in $dd_comms; do
        t_ok "dd-multi-$prec-2ranks-sp-$comm" dd_multi_pass "$dd_rows/dd-multi-$prec-2ranks-sp-$comm.csv" \
            -np 2 $b --comm $comm --ne 20 --steps 400 --equil 100 --check
        # other potentials change no exchange: LJ on two backends, salt on one
        [ $prec = double ] && [ $comm = mpi -o $comm = p2p ] && t_ok "dd-multi-$prec-2ranks-lj-$comm" dd_multi_pass \
            "$dd_rows/dd-multi-$prec-2ranks-lj-$comm.csv" \
            -np 2 $b --comm $comm --system lj --ne 14 --steps 400 --equil 100 --check
        [ $prec = double ] && [ $comm = mpi ] && t_ok "dd-multi-$prec-2ranks-salt-$comm" dd_multi_pass \
            "$dd_rows/dd-multi-$prec-2ranks-salt-$comm.csv" \
            -np 2 $b --comm $comm --system salt --ne 16 --steps 300 --equil 100 --check
        [ $prec = double ] && t_ok "dd-multi-$prec-2ranks-sp-overlap-$comm" dd_multi_pass \
            "$dd_rows/dd-multi-$prec-2ranks-sp-overlap-$comm.csv" \
            -np 2 $b --comm $comm --dd-overlap on --ne 20 --steps 400 --equil 100 --check
        [ $prec = double ] && [ $comm != mpi ] && t_ok "dd-multi-$prec-2ranks-sp-graph-$comm" dd_multi_pass \
            "$dd_rows/dd-multi-$prec-2ranks-sp-graph-$comm.csv" \
            -np 2 $b --comm $comm --dd-graph on --ne 20 --steps 400 --equil 100 --check
    done
done
for comm in $dd_comms; do
    [ $comm = nccl ] && continue
    t_ok "dd-multi-double-4ranks-2x2x1-$comm" dd_multi_pass "$dd_rows/dd-multi-double-4ranks-2x2x1-$comm.csv" \
        -np 4 $dd --comm $comm --dd-grid 2x2x1 --ne 20 --steps 400 --equil 100 --check
done
t_ok "dd-multi-double-8ranks-2x2x2-mpi" dd_multi_pass "$dd_rows/dd-multi-double-8ranks-2x2x2-mpi.csv" \
    -np 8 $dd --dd-grid 2x2x2 --ne 20 --steps 300 --equil 100 --check
# float ids past 2^24 across a migration (17.2M atoms, too many for --check's O(N^2) reference):
# the checksum at every rebuild after atoms moved between the ranks
dd_big_ids_migrate() {
    local out
    out=$(dd_mpirun "$@" 2>&1) || { echo "$out" | tail -20; return 1; }
    echo "$out" | tail -4
    echo "$out" | grep -Eq '# dd: [1-9][0-9]* atoms migrated' || { echo "no atom migrated"; return 1; }
}
t_ok "dd-multi-float-2ranks-ids-past-2p24" dd_big_ids_migrate -np 2 $ddf --comm mpi --ne 258 --steps 60 --equil 0 \
    --stage-reps 0
t_ok "dd-multi-double-4ranks-1x1x4-overlap-mpi" dd_multi_pass "$dd_rows/dd-multi-double-4ranks-1x1x4-overlap-mpi.csv" \
    -np 4 $dd --dd-grid 1x1x4 --dd-overlap on --ne 28 --steps 300 --equil 100 --check
# the halo pairs of the row with 2 ranks (rank 0 replays while writing the row, rank 1 in dd_finish)
t_grep "dd-multi-row-halo-pairs-mpi" 'halo pairs in the row' dd_halo_pairs dd-multi-row-halo-pairs-mpi dd_mpirun -np 2 \
    $dd --comm mpi --ne 20 --steps 200 --equil 0
t_grep "dd-multi-row-halo-pairs-p2p-device" 'halo pairs in the row' dd_halo_pairs dd-multi-row-halo-pairs-p2p-device \
    dd_mpirun -np 2 $dd --comm p2p --decide device --ne 20 --steps 200 --equil 0
# --decide device on 2 ranks: the same rebuild steps as the host decision (same start, no
# rescaling: --equil 0; the summary hashes the steps of the rebuilds after step 0); --check after
# migrations; a failing rank stops the others, which wait in the device vote
dd_same_rebuilds() {
    local host dev
    [ -n "$(dd_shared_refusal "$@" --decide device)" ] && { dd_or_refused "$@" --decide device; return; }
    host=$(dd_mpirun "$@" --decide host 2>&1) || { echo "$host" | tail -20; return 1; }
    dev=$(dd_mpirun "$@" --decide device 2>&1) || { echo "$dev" | tail -20; return 1; }
    host=$(echo "$host" | grep 'rebuilds after step 0'); dev=$(echo "$dev" | grep 'rebuilds after step 0')
    echo "host:   $host"; echo "device: $dev"
    [ -n "$host" ] && [ "$host" = "$dev" ]
}
for comm in $dd_dev_comms; do
    t_ok "dd-device-same-rebuilds-2ranks-sp-$comm" dd_same_rebuilds -np 2 $dd --comm $comm --ne 20 --steps 500 --equil 0 \
        --stage-reps 0 --quiet
    t_ok "dd-device-same-rebuilds-2ranks-lj-$comm" dd_same_rebuilds -np 2 $dd --comm $comm --system lj --ne 14 \
        --steps 500 --equil 0 --stage-reps 0 --quiet
    t_ok "dd-device-same-rebuilds-2ranks-sp-overlap-$comm" dd_same_rebuilds -np 2 $dd --comm $comm --dd-overlap on \
        --ne 20 --steps 500 --equil 0 --sample-every 13 --stage-reps 0 --quiet
    # the forces of a stopped device ungated (--dd-force-gate off: the path where the driver
    # refuses conditional nodes): slower, the same steps
    [ $comm = p2p ] && t_ok "dd-device-same-rebuilds-2ranks-sp-p2p-ungated" dd_same_rebuilds -np 2 $dd --comm p2p \
        --dd-force-gate off --ne 20 --steps 500 --equil 0 --stage-reps 0 --quiet
    for prec in double float; do
        t_ok "dd-device-multi-$prec-2ranks-sp-$comm" dd_multi_pass \
            "$dd_rows/dd-device-multi-$prec-2ranks-sp-$comm.csv" \
            -np 2 $BUILD/$prec/gpu-dd --comm $comm --decide device --ne 20 --steps 400 --equil 100 --check
    done
    t_ok "dd-device-multi-double-2ranks-sp-overlap-$comm" dd_multi_pass \
        "$dd_rows/dd-device-multi-double-2ranks-sp-overlap-$comm.csv" \
        -np 2 $dd --comm $comm --decide device --dd-overlap on --ne 20 --steps 400 --equil 100 --check
    # NVSHMEM's on-stream reduction (the vote) is refused with several ranks per GPU (limited MPG)
    if [ $comm = nvshmem ] && [ "$(nvidia-smi -L 2>/dev/null | grep -c '^GPU')" -lt 4 ]; then
        t_ok "dd-device-refuse-nvshmem-4ranks-shared-gpus" dd_refused 4 'nvshmem --decide device needs one rank per GPU' \
            $dd --comm nvshmem --decide device --dd-grid 2x2x1 --ne 20 --steps 0 --equil 0 --quiet
    elif [ $comm != nccl ]; then
        t_ok "dd-device-multi-double-4ranks-2x2x1-$comm" dd_multi_pass \
            "$dd_rows/dd-device-multi-double-4ranks-2x2x1-$comm.csv" \
            -np 4 $dd --comm $comm --decide device --dd-grid 2x2x1 --ne 20 --steps 400 --equil 100 --check
    fi
    t_ok "dd-device-fault-rank1-step100-$comm" env NBR_DD_FAIL_RANK=1 NBR_DD_FAIL_STEP=100 \
        bash -c "$(declare -f dd_mpirun dd_stops_all dd_shared_refusal dd_or_refused dd_refused); dd_stops_all -np 2 $ddp --comm $comm --decide device --ne 20 --steps 400 --equil 100 --dd-timeout 10 --quiet"
done
# --dd-newton on over several ranks: --check after migrations (the program checks the count and
# id checksum at every rebuild); 2 ranks per backend in both precisions; 3x1x1 (the lower and
# upper neighbours differ: the force halo goes to one, comes from the other); 2x2x1 and 2x2x2
# (edge and corner ghosts, their forces home through the domain that forwarded them); nccl
# refuses two ranks on one GPU, so its multi-rank cases are the 2-rank ones
for prec in double float; do
    b=$BUILD/$prec/gpu-dd
    for comm in $dd_newton_comms; do
        t_ok "dd-newton-multi-$prec-2ranks-sp-$comm" dd_multi_pass \
            "$dd_rows/dd-newton-multi-$prec-2ranks-sp-$comm.csv" \
            -np 2 $b --dd-newton on --comm $comm --ne 20 --steps 400 --equil 100 --check
    done
done
t_ok "dd-newton-multi-double-2ranks-lj-p2p" dd_multi_pass "$dd_rows/dd-newton-multi-double-2ranks-lj-p2p.csv" \
    -np 2 $dd --dd-newton on --comm p2p --system lj --ne 14 --steps 400 --equil 100 --check
t_ok "dd-newton-multi-double-2ranks-salt-mpi" dd_multi_pass "$dd_rows/dd-newton-multi-double-2ranks-salt-mpi.csv" \
    -np 2 $dd --dd-newton on --comm mpi --system salt --ne 16 --steps 300 --equil 100 --check
for comm in $dd_newton_comms; do
    [ $comm = nccl ] && continue
    t_ok "dd-newton-multi-double-3ranks-3x1x1-$comm" dd_multi_pass \
        "$dd_rows/dd-newton-multi-double-3ranks-3x1x1-$comm.csv" \
        -np 3 $dd --dd-newton on --comm $comm --dd-grid 3x1x1 --ne 20 --steps 400 --equil 100 --check
    t_ok "dd-newton-multi-double-4ranks-2x2x1-$comm" dd_multi_pass \
        "$dd_rows/dd-newton-multi-double-4ranks-2x2x1-$comm.csv" \
        -np 4 $dd --dd-newton on --comm $comm --dd-grid 2x2x1 --ne 20 --steps 400 --equil 100 --check
    t_ok "dd-newton-multi-float-4ranks-2x2x1-$comm" dd_multi_pass \
        "$dd_rows/dd-newton-multi-float-4ranks-2x2x1-$comm.csv" \
        -np 4 $ddf --dd-newton on --comm $comm --dd-grid 2x2x1 --ne 20 --steps 400 --equil 100 --check
done
t_ok "dd-newton-multi-double-8ranks-2x2x2-mpi" dd_multi_pass "$dd_rows/dd-newton-multi-double-8ranks-2x2x2-mpi.csv" \
    -np 8 $dd --dd-newton on --dd-grid 2x2x2 --ne 20 --steps 300 --equil 100 --check
t_ok "dd-newton-multi-double-2ranks-sp-graph-p2p" dd_multi_pass \
    "$dd_rows/dd-newton-multi-double-2ranks-sp-graph-p2p.csv" \
    -np 2 $dd --dd-newton on --dd-graph on --comm p2p --ne 20 --steps 400 --equil 100 --check
# on vs off over ranks: the same rebuild steps, energy (1e-6) and pressure (2e-5), double
for comm in $dd_newton_comms; do
    t_ok "dd-newton-multi-same-as-off-2ranks-sp-$comm" dd_newton_same dd_mpirun -np 2 $dd --comm $comm --ne 20 \
        --steps 500 --equil 0 --stage-reps 0
done
t_ok "dd-newton-multi-same-as-off-4ranks-2x2x1-mpi" dd_newton_same dd_mpirun -np 4 $dd --dd-grid 2x2x1 --ne 20 \
    --steps 500 --equil 0 --stage-reps 0
# --decide device with the force halo (its kernels gated): --check after migrations, the host's
# rebuild steps, a failing rank stops every rank
for comm in $dd_dev_comms; do
    [ $comm = nvshmem ] && continue
    t_ok "dd-newton-multi-device-double-2ranks-sp-$comm" dd_multi_pass \
        "$dd_rows/dd-newton-multi-device-double-2ranks-sp-$comm.csv" \
        -np 2 $dd --dd-newton on --comm $comm --decide device --ne 20 --steps 400 --equil 100 --check
    t_ok "dd-newton-multi-device-same-rebuilds-2ranks-sp-$comm" dd_same_rebuilds -np 2 $dd --dd-newton on --comm $comm \
        --ne 20 --steps 500 --equil 0 --stage-reps 0 --quiet
    [ $comm = p2p ] && t_ok "dd-newton-multi-device-double-3ranks-3x1x1-p2p" dd_multi_pass \
        "$dd_rows/dd-newton-multi-device-double-3ranks-3x1x1-p2p.csv" \
        -np 3 $dd --dd-newton on --comm p2p --decide device --dd-grid 3x1x1 --ne 20 --steps 400 --equil 100 --check
done
for comm in $dd_newton_comms; do
    t_ok "dd-newton-multi-fault-rank1-step100-$comm" env NBR_DD_FAIL_RANK=1 NBR_DD_FAIL_STEP=100 \
        bash -c "$(declare -f dd_mpirun dd_stops_all dd_shared_refusal dd_or_refused dd_refused); dd_stops_all -np 2 $ddp --dd-newton on --comm $comm --ne 20 --steps 400 --equil 100 --dd-timeout 10 --quiet"
done
for comm in $dd_comms; do
    t_ok "dd-fault-gpu-rank1-step100-$comm" env NBR_DD_FAIL_RANK=1 NBR_DD_FAIL_STEP=100 \
        bash -c "$(declare -f dd_mpirun dd_stops_all dd_shared_refusal dd_or_refused dd_refused); dd_stops_all -np 2 $ddp --comm $comm --ne 20 --steps 400 --equil 100 --dd-timeout 10 --quiet"
done
