# gpu-rumd (RUMD 2017's methods, variants/gpu-rumd.cu) beyond the GPU groups every gpu-*
# program gets (tests/cases_50_gpu.sh): each of its code paths checked against the O(N^2)
# reference per atom (--check: forces and energies, and the stored list against brute force),
# the verdict read from the run's row (the row's check columns: check_passes and check_row in
# tests/lib.sh, one CSV per test under $TEST_LOG_DIR/rumd-rows), not from the lines printed.
#   rumd-matrix-*   every list method (none, n2, sort) x t_p in {1, 4, 32} x read mode
#                   (texture, ldg, plain) x prefetch (on, off), SP ne 12 (1728 atoms), both
#                   precisions: each a kernel instantiation or layout
#   rumd-sys-*      SP, LJ and lammps-lj for every list method x t_p in {1, 4, 32}; the charged
#                   salt (q in r.w, moved by the sorts) per list method, t_p 1 and 4, host and
#                   device decisions
#   rumd-layout-*   t_p that do not divide 32 (3, 12: idle lanes), t_p 64 (two warps per
#                   particle, sums through shared memory), p_b 16 / 96 / 192
#   rumd-device-*   the device decision per list method, graphs off and on (the gated counting
#                   sort for --list sort and for n2's --sort-every)
#   rumd-sort-every-* n2 with a sort every 20 steps (host decision: cub::DeviceRadixSort)
#   rumd-verify-*   --verify-lists per list method (SP, LJ): no stale list misses a pair; --list
#                   none (no list) refuses it
#   rumd-grow-*     the list capacity grown (--grow-from 10: room for 13, the sc start needs 18,
#                   the liquid more), per method, and the check still passes
#   rumd-err-*      bad combinations stop with one line and exit 2: p_b x t_p over 1024
#                   threads, t_p above 32 not a multiple of 32, --list sort in a box under
#                   5 cells of r_n/2
#   rumd-chunk-*    --launch chunk (every step between two sample points in one cooperative launch,
#                   kernels/cuda/rumd_chunk.cuh): --check per list method (none, n2) x t_p {1, 4,
#                   64}, SP, lammps-lj and salt; rumd-chunk-same-*: double, no rescaling, from the same
#                   start, the chunk ends where --launch stage ends (the same rebuild steps, hashed
#                   in the summary, the same reorders, E/N within 1e-9), with --sort-every 20 (the
#                   launch that stops to reorder and the one that resumes) and with fewer resident
#                   blocks than force blocks (lammps-lj 16 384 atoms, 1024 threads a block).
#                   Planted faults (test builds -DRUMD_CHUNK_PLANT=K, built here on demand): 1 the
#                   largest v^2 of block 0's atoms alone, 2 no list build after a resume, 3 no list
#                   build: rumd-chunk-plant-K must fail the same comparison. rumd-chunk-err-*: a
#                   chunk with host decisions or a graph (no GPU needed), with --read texture or
#                   --list sort: exit 2, one line
#   tune-cpu-*      (no GPU needed) the autotuner as a harness service (common/tune.c) through
#                   cpu-grouped, the one CPU program that declares knobs: trials in one process
#                   from the stored start, each a CSV row tagged autotune-*, then one final row
#                   with the cache's values; a second run takes the cache and runs no trial; a
#                   search whose every trial fails (unstable) ends with exit 1, not the trial's 4
#   tune-*-skin     the search from --delta 0.05 (its lower end, so the tuned skin is larger), the
#                   final run under --verify-lists: a run that kept the start's r_n after a knob
#                   changed (lists of the old r_n, rebuilds at the new skin) misses pairs; so does
#                   a trial (then unstable, and the search is steered by wrong rows)
#   rumd-autotune-* gpu-layer, gpu-old and gpu-rumd --autotune at N = 4096 (SP ne 16): the same
#                   checks, and the harness's device bytes (gpu_alloc) after the search equal to those
#                   before it (# autotune-memory:; cudaMemGetInfo moved with the other tests on the GPU)
# Without a GPU nothing else runs: one SKIP line per group, never a pass.
# _tune_check PROGRAM FLAGS...: --autotune twice with a fresh cache (see the header)
_tune_check() (
    local d prog=$1 out
    shift
    d=$(mktemp -d) && trap 'rm -rf "$d"' EXIT
    out=$("$prog" --autotune --autotune-cache "$d/cache" --csv "$d/t.csv" --quiet "$@" 2>&1) ||
        { echo "$out" | tail -5; return 1; }
    echo "$out" | grep '^# autotune\(-memory\)\?:'
    python3 - "$d/t.csv" "$d/cache" "$(echo "$out" | grep '^# autotune-memory:')" <<'PY' || return 1
import csv, sys
sys.path.insert(0, "runs"); import csvq  # the rows with knobs expanded (docs/csv.md)
rows = list(csvq.read(sys.argv[1]).rows)
trials = [r for r in rows if r["tag"].startswith("autotune-")]
final = [r for r in rows if not r["tag"].startswith("autotune-")]
line = open(sys.argv[2]).read().splitlines()[-1]
key, vals = line.split("|")
vals = vals.split()
print(f"{len(trials)} trial rows, {len(final)} final; cache {line}")
assert len(trials) >= 8 and all(float(r["us_per_step"]) > 0 for r in trials if r["status"] == "ok"), "trial rows"
assert len(final) == 1 and final[0]["status"] == "ok" and final[0]["autotune"] in ("1", "on"), "one final row"
assert key.startswith("program=" + final[0]["variant"] + ";") or final[0]["variant"] == "gpu-rumd", "cache key"
assert f"precision={final[0]['precision']};n={final[0]['n']};" in key, "cache key"
# the loop's settings that are not searched are part of the key (common/tune.c cache_key)
for flag in ("decide", "graph", "leapfrog"):
    if final[0].get(flag, "-") != "-":
        assert f";{flag}={final[0][flag]}" in key, f"cache key lacks {flag}"
# the final row runs the cached values (skin and, where tuned, threads / reorder / list)
assert abs(float(final[0]["delta"]) - float(vals[0 if final[0]["variant"] != "gpu-rumd" else 1])) < 1e-9, "final skin"
mem = dict(w.split("=") for w in sys.argv[3].split()[2:]) if sys.argv[3] else {}
if mem:
    grown = float(mem["after_bytes"]) - float(mem["before_bytes"])
    print(f"device memory: {grown / 2**20:.3f} MiB more after {mem['trials']} trials")
    assert grown == 0, "device memory grew across the trials"
PY
    local rows
    rows=$(grep -c '' "$d/t.csv")
    out=$("$prog" --autotune --autotune-cache "$d/cache" --csv "$d/t.csv" --quiet "$@" 2>&1) ||
        { echo "$out" | tail -5; return 1; }
    echo "$out" | grep -q "^# autotune: from $d/cache:" || { echo "cache not used"; return 1; }
    [ "$(grep -c '' "$d/t.csv")" -eq $((rows + 1)) ] || { echo "trials ran despite the cache"; return 1; }
)
# the tuned skin in the lists: PROGRAM FLAGS... (see tune-*-skin in the header)
_tune_skin() (
    local d prog=$1 out
    shift
    d=$(mktemp -d) && trap 'rm -rf "$d"' EXIT
    out=$("$prog" --autotune --autotune-cache '' --delta 0.05 --verify-lists --csv "$d/t.csv" --quiet "$@" 2>&1) ||
        { echo "$out" | grep -v '^# autotune ' | tail -3; return 1; }
    echo "$out" | grep -E '^# autotune:|^verify-lists'
    python3 - "$d/t.csv" <<'PY'
import sys
sys.path.insert(0, "runs"); import csvq
rows = [r for r in csvq.read(sys.argv[1]).rows if not r["tag"].startswith("autotune-")]
assert len(rows) == 1 and rows[0]["status"] == "ok", "one final row, ok"
assert float(rows[0]["delta"]) > 0.05, "the search kept the start's skin: this case proves nothing"
PY
)
# every trial unstable (--drift-limit 1e-12): each fails alone, the search ends with exit 1
_tune_all_fail() {
    local out rc
    out=$("$@" 2>&1); rc=$?
    echo "$out" | tail -3
    [ $rc -eq 1 ] && echo "$out" | grep -q 'failed (exit 4)' && echo "$out" | grep -q "search's first trial did not run"
}
if [ -x "$BUILD/double/cpu-grouped" ]; then
    t_ok tune-cpu-grouped _tune_check "$BUILD/double/cpu-grouped" --ne 5 --steps 600
    t_ok tune-cpu-grouped-skin _tune_skin "$BUILD/double/cpu-grouped" --ne 5 --steps 600
    t_ok tune-cpu-all-fail _tune_all_fail "$BUILD/double/cpu-grouped" --ne 5 --steps 600 --autotune \
        --autotune-cache '' --drift-limit 1e-12 --quiet
else
    t_skip tune-cpu "cpu-grouped not built"
fi
# _chunk_same PROG FLAGS...: --launch stage and chunk from the same start (see rumd-chunk-same-*)
_chunk_same() (
    local d prog=$1 launch
    shift
    d=$(mktemp -d) && trap 'rm -rf "$d"' EXIT
    for launch in stage chunk; do
        "$prog" --decide device --read plain --launch $launch --equil 0 --rescale-every 100000 --stage-reps 0 \
            --csv "$d/t.csv" --tag $launch "$@" >"$d/$launch.out" 2>&1 || { tail -3 "$d/$launch.out"; return 1; }
    done
    python3 - "$d" <<'PY'
import re, sys
sys.path.insert(0, "runs"); import csvq
d = sys.argv[1]
rows = {r["tag"]: r for r in csvq.read(d + "/t.csv").rows}
built = {t: re.search(r"rebuilds after step 0: (\d+), their steps hashed (\w+)", open(f"{d}/{t}.out").read()).groups()
         for t in ("stage", "chunk")}
s, c = rows["stage"], rows["chunk"]
rel = abs(float(s["e_end"]) - float(c["e_end"])) / abs(float(s["e_end"]))
print(f"stage: rebuilds {built['stage']}, reorders {s['reorders']}, E/N {s['e_end']}, {s['us_per_step']} us/step")
print(f"chunk: rebuilds {built['chunk']}, reorders {c['reorders']}, E/N {c['e_end']}, {c['us_per_step']} us/step")
assert s["status"] == "ok" and c["status"] == "ok", "a run failed"
assert built["stage"] == built["chunk"], "the rebuild steps differ"
assert s["reorders"] == c["reorders"], "the reorders differ"
assert rel < 1e-9, f"E/N differs by {rel:.3g} (relative)"
PY
)
# _chunk_check PROG FLAGS...: the run's row holds --check's pass (check_row, tests/lib.sh)
_chunk_check() (
    local d prog=$1
    shift
    d=$(mktemp -d) && trap 'rm -rf "$d"' EXIT
    "$prog" --csv "$d/t.csv" --check --quiet "$@" || return 1
    check_row "$d/t.csv" pass
)
_chunk_caught() { ! _chunk_same "$@"; }
# RUMD_TEST_PRECISIONS: the precisions to run (default both)
rumd_precs=${RUMD_TEST_PRECISIONS:-double float}
rumd_groups="autotune matrix sys layout device sort-every verify grow err chunk"
# --launch chunk's combinations refused before any device is looked for: these run everywhere
rb=$BUILD/double/gpu-rumd
if [ -x "$rb" ]; then
    t_error rumd-chunk-err-host 2 'launch chunk needs --decide device' $rb --launch chunk --steps 0 --equil 0
    t_error rumd-chunk-err-graph 2 'graph applies to --launch stage' $rb --launch chunk --decide device --graph on \
        --steps 0 --equil 0
fi
if ! have_gpu || [ ! -x "$BUILD/double/gpu-rumd" ]; then
    why="no GPU found"
    have_gpu && why="gpu-rumd not built (nvcc missing?)"
    for grp in $rumd_groups; do t_skip "rumd-$grp" "$why"; done
    return 0 2>/dev/null || exit 0
fi
for prec in $rumd_precs; do
    for prog in gpu-layer gpu-old gpu-rumd; do
        t_ok "rumd-autotune-$prec-$prog" _tune_check "$BUILD/$prec/$prog" --ne 16 \
            --steps 2000 --autotune-budget 120
    done
done
for prog in gpu-layer gpu-old gpu-rumd; do
    t_ok "tune-$prog-skin" _tune_skin "$BUILD/double/$prog" --ne 12 --steps 1000 --autotune-budget 60
done
# --check's verdicts are read from each run's row (check_passes: tests/lib.sh), one CSV per test
rumd_rows=$TEST_LOG_DIR/rumd-rows
mkdir -p "$rumd_rows"
for prec in $rumd_precs; do
    b=$BUILD/$prec/gpu-rumd
    # no rescaling within the 50 steps before production (--rescale-every beyond --equil): LJ
    # from its lattice is not at --temp after 50 steps (1.43 for 1.2), which the loop refuses as
    # wrong-temp; these cases check forces and lists, not the state point
    short="--steps 200 --equil 50 --rescale-every 1000 --stage-reps 0 --check --quiet"
    for list in none n2 sort; do
        for tp in 1 4 32; do
            for read in texture ldg plain; do
                for pre in on off; do
                    t_grep "rumd-matrix-$prec-$list-tp$tp-$read-prefetch-$pre" '^check pass ' check_passes \
                        "$rumd_rows/rumd-matrix-$prec-$list-tp$tp-$read-prefetch-$pre.csv" \
                        $b --ne 12 --list $list --tp $tp --read $read --prefetch $pre $short
                done
            done
            for sys in "sp 14" "lj 12" "lammps-lj 6" "lammps-lj 10"; do
                set -- $sys
                t_grep "rumd-sys-$prec-$1-ne$2-$list-tp$tp" '^check pass ' check_passes \
                    "$rumd_rows/rumd-sys-$prec-$1-ne$2-$list-tp$tp.csv" \
                    $b --system $1 --ne $2 --list $list --tp $tp $short
            done
        done
        for tp in 1 4; do
            t_grep "rumd-sys-$prec-salt-$list-tp$tp" '^check pass ' check_passes \
                "$rumd_rows/rumd-sys-$prec-salt-$list-tp$tp.csv" $b --system salt --ne 12 --list $list --tp $tp $short
        done
        t_grep "rumd-sys-$prec-salt-$list-device" '^check pass ' check_passes \
            "$rumd_rows/rumd-sys-$prec-salt-$list-device.csv" $b --system salt --ne 12 --list $list --decide device \
            --graph on --sort-every 20 --steps 300 --equil 50 --stage-reps 0 --check --quiet
        for lay in "3 32" "12 32" "64 16" "4 16" "4 96" "1 192" "2 192"; do
            set -- $lay
            t_grep "rumd-layout-$prec-$list-tp$1-pb$2" '^check pass ' check_passes \
                "$rumd_rows/rumd-layout-$prec-$list-tp$1-pb$2.csv" \
                $b --system lj --ne 12 --list $list --tp $1 --pb $2 $short
        done
        for graph in off on; do
            t_grep "rumd-device-$prec-$list-graph-$graph" '^check pass ' check_passes \
                "$rumd_rows/rumd-device-$prec-$list-graph-$graph.csv" $b --ne 14 --list $list --decide device \
                --graph $graph --sort-every 20 --reduce device --steps 600 --equil 100 --stage-reps 0 --check --quiet
            t_grep "rumd-device-$prec-lammps-lj-$list-graph-$graph" '^check pass ' check_passes \
                "$rumd_rows/rumd-device-$prec-lammps-lj-$list-graph-$graph.csv" \
                $b --system lammps-lj --ne 8 --list $list \
                --decide device --graph $graph --steps 600 --equil 0 --stage-reps 0 --check --quiet
        done
        if [ $list = none ]; then   # no stored list: nothing a stale one could miss
            t_error "rumd-verify-$prec-refused-none" 2 'keeps none .* nothing to verify' $b --ne 14 --list none \
                --steps 100 --equil 0 --verify-lists --stage-reps 0 --quiet
            continue
        fi
        for sys in "sp 14" "lj 14"; do
            set -- $sys
            t_verified "rumd-verify-$prec-$1-$list" $b --system $1 --ne $2 --list $list \
                --steps 1000 --equil 100 --verify-lists --stage-reps 0 --quiet
        done
        # the growth from the summary's line, the check's verdict from the row (check_passes prints both)
        t_grep "rumd-grow-$prec-$list" "grows = [1-9]" check_passes "$rumd_rows/rumd-grow-$prec-$list.csv" \
            $b --ne 14 --list $list --grow-from 10 --steps 300 --equil 0 --stage-reps 0 --check
    done
    t_grep "rumd-sort-every-$prec-n2" '^check pass ' check_passes "$rumd_rows/rumd-sort-every-$prec-n2.csv" \
        $b --ne 14 --list n2 --sort-every 20 --steps 400 --equil 100 --stage-reps 0 --check --quiet
    t_grep "rumd-sort-every-$prec-none" '^check pass ' check_passes "$rumd_rows/rumd-sort-every-$prec-none.csv" \
        $b --ne 10 --list none --sort-every 20 --steps 400 --equil 100 --stage-reps 0 --check --quiet
    t_error "rumd-err-$prec-threads" 2 'over CUDA.s 1024' $b --ne 8 --tp 32 --pb 64 --steps 0 --equil 0
    t_error "rumd-err-$prec-tp" 2 'multiple of 32' $b --ne 8 --tp 40 --steps 0 --equil 0
    t_error "rumd-err-$prec-sort-box" 2 'use --list n2' $b --system lammps-lj --ne 4 --list sort --steps 0 --equil 0
    chunk="--decide device --launch chunk --read plain --steps 300 --equil 50 --rescale-every 1000 --stage-reps 0"
    for list in none n2; do
        for tp in 1 4 64; do
            pb=$([ $tp = 64 ] && echo 8 || echo 32)
            t_ok "rumd-chunk-$prec-$list-tp$tp" _chunk_check $b --ne 12 --list $list --tp $tp --pb $pb $chunk
        done
        for sys in "lammps-lj 8" "salt 12"; do
            set -- $sys
            t_ok "rumd-chunk-$prec-$1-$list" _chunk_check $b --system $1 --ne $2 --list $list $chunk --sort-every 20
        done
    done
    t_error "rumd-chunk-err-$prec-read" 2 'needs --read plain' $b --decide device --launch chunk --steps 0 --equil 0
    t_error "rumd-chunk-err-$prec-sort" 2 'use --list n2' $b --decide device --launch chunk --read plain --list sort \
        --system lammps-lj --ne 8 --steps 0 --equil 0
done
b=$BUILD/double/gpu-rumd
for list in none n2; do
    t_ok "rumd-chunk-same-$list" _chunk_same $b --ne 14 --list $list --sort-every 20 --steps 500
done
t_ok rumd-chunk-same-many-blocks _chunk_same $b --system lammps-lj --ne 16 --list n2 --tp 32 --pb 32 --sort-every 40 \
    --steps 300
plants=()
for k in 1 2 3; do plants+=("$BUILD/double/test-rumd-chunk-plant-$k"); done
make --no-print-directory -s -j8 BUILD="$BUILD" "${plants[@]}" >"$TEST_LOG_DIR/rumd-chunk-plant-build.log" 2>&1
for k in 1 2 3; do   # the real program passes the same comparison: rumd-chunk-same-n2
    pb=${plants[$((k - 1))]}
    if [ -x "$pb" ]; then
        t_ok "rumd-chunk-plant-$k-caught" _chunk_caught "$pb" --ne 14 --list n2 --sort-every 20 --steps 500
    else
        _t_fail "rumd-chunk-plant-$k-caught" "$pb not built ($TEST_LOG_DIR/rumd-chunk-plant-build.log)"
    fi
done
