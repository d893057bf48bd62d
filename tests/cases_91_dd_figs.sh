# gpu-dd's measurement driver, figures and report section (issue 13, item 3), on a machine
# without a GPU:
#  - runs/dd_scaling.sh --print-plan: the points and their commands (mpirun with --bind-to none
#    for P > 1, every compiled backend, overlap off/on, graph only where allowed), the env knobs,
#    bad knobs refused in one line, exit 2;
#  - runs/dd_scaling.sh end to end with stand-ins (a python gpu-dd/gpu-layer
#    that writes a row, gpu-dd's with the halo pairs, and an mpirun that drops -np; NOT a benchmark):
#    every tagged row, the halo rows from the rows' pairs (not the console) joined by tag and
#    revision, none without pairs (--dd-halo-reps 0), a second run skips;
#  - plots/dd.py: figures and section with no CSV ("not yet measured"), from the stand-in rows,
#    from a runs/device/dd.sh-style CSV + log (ranks/backend/mode from the tag), and a damaged
#    CSV stops with file and line;
#  - runs/ddprof_table.py on the committed side-by-side phase logs (results/h200/ddprof-*).
tmp=$TEST_LOG_DIR/dd_figs
rm -rf "$tmp"
mkdir -p "$tmp/bin" "$tmp/res/h200-x2" "$tmp/none"
export NBR_LOCK=none

if [ -x "$BUILD/float/gpu-dd" ] && [ -x "$BUILD/float/gpu-layer" ]; then
    # per system and size: gpu-layer, gpu-dd one rank (host; device with p2p), and 2 ranks: mpi
    # overlap off/on (host), p2p overlap off/on x host/device
    t_grep dd-plan-count '^# dd_scaling: 144 points .*backends: mpi p2p' env DD_BACKENDS='mpi p2p' runs/dd_scaling.sh --print-plan
    t_grep dd-plan-quick '^# dd_scaling: 36 points .*backends: mpi p2p' env QUICK=1 DD_BACKENDS='mpi p2p' \
        runs/dd_scaling.sh --print-plan
    t_grep dd-plan-device '^dd-sp-2gpu-p2p-overlap-dev-ne36-s500: .*-np 2 .*/gpu-dd .*--comm p2p --dd-overlap on --decide device --csv' \
        env DD_BACKENDS='mpi p2p' runs/dd_scaling.sh --print-plan
    t_grep dd-plan-no-mpi-device '^0$' bash -c "DD_BACKENDS='mpi p2p' runs/dd_scaling.sh --print-plan | grep -c '^dd-[a-z]*-2gpu-mpi[^:]*-dev-' || true"
    t_error dd-plan-bad-decide 2 "DD_DECIDE takes host and device, not 'often'" env DD_DECIDE=often runs/dd_scaling.sh --print-plan
    t_error dd-plan-bad-budget 2 "DD_BUDGET: 'soon' is not a number of seconds" env DD_BUDGET=soon runs/dd_scaling.sh --print-plan
    t_grep dd-plan-mpirun '^dd-lj-2gpu-mpi-overlap-ne200-s500: timeout 300 mpirun --allow-run-as-root --bind-to none -np 2 .*/gpu-dd --system lj --ne 200 .*--comm mpi --dd-overlap on --csv .*dd_scaling.csv --tag dd-lj-2gpu-mpi-overlap-ne200-s500$' \
        runs/dd_scaling.sh --print-plan
    # DD_GRAPH="off on": a graph point for p2p, none for mpi (its pulses wait on the host)
    t_grep dd-plan-graph '^7 1 0$' bash -c "out=\$(DD_SYSTEMS=sp DD_NE=36 DD_GRAPH='off on' DD_RANKS=2 DD_BACKENDS='mpi p2p' \
        runs/dd_scaling.sh --print-plan); echo \$(grep -c '^dd-sp-2gpu-' <<<\"\$out\") \$(grep -c '^dd-sp-2gpu-p2p-graph-.*--dd-graph on' <<<\"\$out\") \$(grep -c 'mpi-graph' <<<\"\$out\")"
    # DD_NEWTON="off on": --dd-newton on points (tag -newton) for mpi (host) and p2p (host, device), 1 and 2 ranks
    t_grep dd-plan-newton '^5 5 0$' bash -c "out=\$(DD_SYSTEMS=sp DD_NE=36 DD_NEWTON='off on' DD_RANKS='1 2' DD_LAYER=0 \
        DD_OVERLAP=off DD_BACKENDS='mpi p2p' runs/dd_scaling.sh --print-plan); echo \$(grep -c '^dd-sp-[12]gpu-.*newton.*--dd-newton on' <<<\"\$out\") \$(grep -c -- '--dd-newton on' <<<\"\$out\") \$(grep -c 'mpi-newton-dev' <<<\"\$out\")"
    # DD_GRIDS: the slab and each grid of P domains at P ranks (--dd-grid, tag -g<grid>), none at other P
    t_grep dd-plan-grids '^2 1 1 0$' bash -c "out=\$(DD_SYSTEMS=sp DD_NE=36 DD_RANKS='1 4 8' DD_GRIDS='2x2x1 4x1x1 2x2x2' DD_LAYER=0 \
        DD_OVERLAP=off DD_DECIDE=host DD_BACKENDS=p2p runs/dd_scaling.sh --print-plan); echo \$(grep -c '^dd-sp-4gpu-' <<<\"\$out\") \
        \$(grep -c '^dd-sp-4gpu-g2x2x1-p2p-ne36-s500: .*-np 4 .*--dd-grid 2x2x1 ' <<<\"\$out\") \
        \$(grep -c '^dd-sp-8gpu-g2x2x2-p2p-ne36-s500: .*-np 8 .*--dd-grid 2x2x2 ' <<<\"\$out\") \$(grep -c 'g4x1x1' <<<\"\$out\")"
    t_error dd-plan-bad-grid 2 "DD_GRIDS: '2x2' is not a grid AxBxC" env DD_GRIDS=2x2 runs/dd_scaling.sh --print-plan
    t_error dd-plan-grid-no-ranks 2 "DD_GRIDS: 2x2x2 has 8 domains, and DD_RANKS \(1 2\) has no 8" \
        env DD_GRIDS=2x2x2 runs/dd_scaling.sh --print-plan
    t_error dd-plan-bad-newton 2 "DD_NEWTON takes on and off, not 'maybe'" env DD_NEWTON=maybe runs/dd_scaling.sh --print-plan
    t_error dd-plan-bad-overlap 2 "DD_OVERLAP/DD_GRAPH take on and off, not 'maybe'" \
        env DD_OVERLAP=maybe runs/dd_scaling.sh --print-plan
    t_error dd-plan-bad-backend 2 "DD_BACKENDS names 'carrier-pigeon'" \
        env DD_BACKENDS=carrier-pigeon runs/dd_scaling.sh --print-plan
    t_error dd-plan-bad-size 2 "size 'big' is not a lattice edge" env DD_NE=big runs/dd_scaling.sh --print-plan
else
    t_skip dd-plan "gpu-dd or gpu-layer not built ($BUILD/float)"
fi

# stand-ins: a program that answers --help/--print-config like gpu-dd and writes one row per run
cat >"$tmp/bin/fake.py" <<'PY'
#!/usr/bin/env python3
import os, sys
a = sys.argv[1:]
name = os.path.basename(sys.argv[0])
if "--help" in a:
    print("compiled backends: mpi p2p"); sys.exit(0)
if "--print-config" in a:
    print("git_rev=fakefakefake"); sys.exit(0)
def opt(k, d=""):
    return a[a.index(k) + 1] if k in a else d
ne, system, comm = int(opt("--ne")), opt("--system"), opt("--comm", "mpi")
n = ne ** 3
two = "--comm" in a and os.environ.get("FAKE_NP") == "2"
halo = {"mpi": 30.0, "p2p": 4.0}[comm]
t = 25 + n * 0.01 if not two else 25 + halo + n * 0.0052
if name == "gpu-layer":
    t *= 0.9
# gpu-dd's halo and force replays as its row's pairs (rank 0's a little below the largest); the
# console line says other numbers: the driver must take the row's, not scrape the log
knobs = f"comm={comm}" if name == "gpu-dd" else "decide=device"
if name == "gpu-dd" and opt("--dd-halo-reps", "0") != "0":
    knobs += (f" halo_us={halo:.4g} force_us={n * 0.004:.4g} halo_us_rank0={halo - 0.5:.4g}"
              f" force_us_rank0={n * 0.004 - 0.1:.4g} replays={opt('--dd-halo-reps')}")
csv = opt("--csv")
new = not os.path.exists(csv)
with open(csv, "a") as f:
    if new:
        f.write("git_rev,host,variant,tag,system,ne,n,us_per_step,status,knobs\n")
    f.write(f"fakefakefake,fakehost,{name},{opt('--tag')},{system},{ne},{n},{t:.6g},ok,{knobs}\n")
print(f"{name} float {system} ne={ne} N={n}: ... us/atom-step")
if name == "gpu-dd":
    print("# dd: halo exchange 999 us/step, force kernel 999 us/call (largest over ranks; rank 0: 999, 999; 7 replays)")
PY
for p in gpu-dd gpu-layer; do ln -sf fake.py "$tmp/bin/$p"; done
printf '#!/bin/sh\n# a gpu-layer that takes 2 s (the budget test)\nsleep 2\nexec "%s" "$@"\n' "$tmp/bin/gpu-layer" >"$tmp/bin/slow-layer"
chmod +x "$tmp/bin/slow-layer"
printf '#!/bin/sh\n# a stand-in mpirun: -np N dropped, one process\n[ "$1" = -np ] && { export FAKE_NP=$2; shift 2; }\nexec "$@"\n' >"$tmp/bin/mpirun"
chmod +x "$tmp/bin/mpirun" "$tmp/bin/fake.py"
dd_env=(env OUT_DIR="$tmp/res/h200-x2" LOGDIR="$tmp/logs" DD_PROG="$tmp/bin/gpu-dd" LAYER_PROG="$tmp/bin/gpu-layer"
        DD_MPIRUN="$tmp/bin/mpirun -np" DD_SYSTEMS="sp lj" DD_NE="8 10" DD_TIMEOUT=60)
t_grep dd-scaling-run 'dd_scaling: 36 points' "${dd_env[@]}" runs/dd_scaling.sh
t_grep dd-scaling-rows '^36 32$' sh -c "echo \$((\$(wc -l <'$tmp/res/h200-x2/dd_scaling.csv') - 1)) \
    \$((\$(wc -l <'$tmp/res/h200-x2/dd_scaling_halo.csv') - 1))"
# the halo row: the gpu-dd row's pairs (halo_us, force_us, halo_us_rank0, force_us_rank0, replays),
# not the console line's 999s
t_grep dd-scaling-halo-row '^dd-lj-2gpu-p2p-overlap-ne10-s500,fakefakefake,fakehost,4,4,3.5,3.9,100$' \
    cat "$tmp/res/h200-x2/dd_scaling_halo.csv"
t_grep dd-scaling-halo-header '^tag,git_rev,host,halo_us,force_us,halo_us_rank0,force_us_rank0,replays$' \
    head -1 "$tmp/res/h200-x2/dd_scaling_halo.csv"
# --dd-halo-reps 0: nothing timed, no pairs, no halo row (the gpu-dd rows are there)
dd_no_halo_reps() {
    local out=$tmp/res/noreps
    "${dd_env[@]}" OUT_DIR="$out" LOGDIR="$tmp/logs-noreps" DD_SYSTEMS=sp DD_NE=8 DD_HALO_REPS=0 DD_LAYER=0 \
        DD_BACKENDS=mpi DD_DECIDE=host runs/dd_scaling.sh || return 1
    echo "rows, halo rows: $(($(wc -l <"$out/dd_scaling.csv") - 1)) $(cat "$out/dd_scaling_halo.csv" 2>/dev/null | wc -l)"
}
t_grep dd-scaling-no-halo-reps '^rows, halo rows: 3 0$' dd_no_halo_reps
t_grep dd-scaling-resume 'skip dd-sp-2gpu-mpi-ne8-s500' "${dd_env[@]}" runs/dd_scaling.sh
t_grep dd-scaling-resume-rows '^36 32$' sh -c "echo \$((\$(wc -l <'$tmp/res/h200-x2/dd_scaling.csv') - 1)) \
    \$((\$(wc -l <'$tmp/res/h200-x2/dd_scaling_halo.csv') - 1))"

# DD_BUDGET: no run starts once it is spent (1 s: the first run only), and the next call goes on
t_grep dd-scaling-budget 'budget of 1 s is spent after 1 of 9 points' env OUT_DIR="$tmp/res/budget" LOGDIR="$tmp/logs-b" \
    DD_PROG="$tmp/bin/gpu-dd" LAYER_PROG="$tmp/bin/slow-layer" DD_MPIRUN="$tmp/bin/mpirun -np" DD_SYSTEMS=sp DD_NE=8 \
    DD_BUDGET=1 DD_TIMEOUT=60 runs/dd_scaling.sh

if [ -n "${T80_NO_PLOTS:-}" ]; then
    t_skip dd-plots "T80_NO_PLOTS set (a machine without PyPI: plots/venv.sh would try pip)"
elif py91=$(plots/venv.sh 2>"$tmp/venv.log"); then
    t_grep dd-plots-no-data '^\| SP, N = 8,000,000: 2 GPUs over one \| >= 1.85x \| not yet measured \| not yet measured \|$' \
        env NBR_RESULTS="$tmp/none" sh -c "'$py91' plots/dd.py --figures '$tmp/np' && ls '$tmp/np/dd_sp.png' '$tmp/np/dd_lj.svg' >/dev/null && '$py91' plots/dd.py --section '$tmp/R.md'"
    # runs/device/dd.sh's files: tags without the system, halo lines in the log
    mkdir -p "$tmp/res/h200-x2b"
    { echo "git_rev,host,variant,tag,system,ne,n,us_per_step,status"
      echo "abc,h,gpu-layer,layer-1gpu-ne100,sp,100,1000000,400,ok"
      echo "abc,h,gpu-dd,dd-1gpu-ne100,sp,100,1000000,420,ok"
      echo "abc,h,gpu-dd,dd-2gpu-nccl-graph-ne100,sp,100,1000000,230,ok"
      echo "abc,h,gpu-dd,dd-2gpu-mpi-ne100,sp,100,1000000,260,failed"; } >"$tmp/res/h200-x2b/dd_timing.csv"
    printf '== dd-2gpu-nccl-graph-ne100\n# dd: halo exchange 6.5 us/step, force kernel 150 us/call (largest over ranks; rank 0: 6, 149; 100 replays)\n' \
        >"$tmp/res/h200-x2b/dd_timing.log"
    t_grep dd-plots-rows '^\| h200-x2b \| 1,000,000 \| 2 GPUs nccl graph \| 230 \| 1.83 \| 1.74 \| 0.87 \| 20 \| 6.5 \| 150 \| abc \|$' \
        env NBR_RESULTS="$tmp/res" sh -c "'$py91' plots/dd.py --figures '$tmp/figs' && '$py91' plots/dd.py --section '$tmp/R.md'"
    t_grep dd-plots-stand-in '^\| h200-x2 \| 1,000 \| 2 GPUs p2p overlap \| ' env NBR_RESULTS="$tmp/res" "$py91" plots/dd.py --section "$tmp/R.md"
    # DD_GRIDS rows: a 2x2x1 grid at 4 ranks is a case beside the slab (4x1x1), not a repeat of it
    mkdir -p "$tmp/grid/h200-x4"
    { echo "git_rev,host,variant,tag,system,ne,n,ranks,comm,dd_grid,us_per_step,status"
      echo "abc,h,gpu-dd,dd-sp-1gpu-ne100-s500,sp,100,1000000,1,-,1x1x1,400,ok"
      echo "abc,h,gpu-dd,dd-sp-4gpu-p2p-ne100-s500,sp,100,1000000,4,p2p,4x1x1,200,ok"
      echo "abc,h,gpu-dd,dd-sp-4gpu-g2x2x1-p2p-ne100-s500,sp,100,1000000,4,p2p,2x2x1,160,ok"; } >"$tmp/grid/h200-x4/dd_scaling.csv"
    t_grep dd-plots-grid '^200 160$' sh -c "env NBR_RESULTS='$tmp/grid' '$py91' plots/dd.py --section '$tmp/G.md' >'$tmp/G.out' &&
        echo \$(grep -E '^\| h200-x4 \| 1,000,000 \| 4 GPUs p2p plain \|' '$tmp/G.out' | cut -d'|' -f5) \
             \$(grep -E '^\| h200-x4 \| 1,000,000 \| 4 GPUs p2p plain grid 2x2x1 \|' '$tmp/G.out' | cut -d'|' -f5)"
    # more than 2 GPUs (issue 14): a column per P in the pay table and the strong-scaling table,
    # speed-ups over the single GPU of the same machine and revision
    mkdir -p "$tmp/p8/h200-x8"
    { echo "git_rev,host,variant,tag,system,ne,n,ranks,comm,dd_grid,us_per_step,status"
      echo "abc1234,h,gpu-dd,dd-sp-1gpu-ne200-s500,sp,200,8000000,1,-,1x1x1,1200,ok"
      echo "abc1234,h,gpu-dd,dd-sp-2gpu-p2p-ne200-s500,sp,200,8000000,2,p2p,2x1x1,700,ok"
      echo "abc1234,h,gpu-dd,dd-sp-4gpu-p2p-ne200-s500,sp,200,8000000,4,p2p,4x1x1,400,ok"
      echo "abc1234,h,gpu-dd,dd-sp-8gpu-g2x2x2-p2p-ne200-s500,sp,200,8000000,8,p2p,2x2x2,240,ok"; } >"$tmp/p8/h200-x8/dd_scaling.csv"
    t_grep dd-plots-strong-scaling '^1 1$' sh -c "env NBR_RESULTS='$tmp/p8' '$py91' plots/dd.py --section '$tmp/S.md' >'$tmp/S.out' &&
        echo \$(grep -c '^| backend | 2 GPUs pay | 4 GPUs pay | 8 GPUs pay |$' '$tmp/S.out') \
             \$(grep -c '^| 8,000,000 | p2p | 1.71x (700 us, plain) | 3x (400 us, plain) | 5x (240 us, plain grid 2x2x2) |$' '$tmp/S.out')"
    # results/<machine>/dd_report_revs: only the named revision's rows reach the section; a name
    # that is not a revision stops it with the file's name
    mkdir -p "$tmp/revs/h200-x2"
    { echo "git_rev,host,variant,tag,system,ne,n,ranks,comm,dd_grid,us_per_step,status"
      for rev in abc1234 def5678; do
          echo "$rev,h,gpu-dd,dd-sp-1gpu-ne100-s500,sp,100,1000000,1,-,1x1x1,400,ok"
          echo "$rev,h,gpu-dd,dd-sp-2gpu-p2p-ne100-s500,sp,100,1000000,2,p2p,2x1x1,250,ok"
      done; } >"$tmp/revs/h200-x2/dd_scaling.csv"
    echo "def5678   # the run the report shows" >"$tmp/revs/h200-x2/dd_report_revs"
    t_grep dd-plots-report-revs '^0 2 1$' sh -c "env NBR_RESULTS='$tmp/revs' '$py91' plots/dd.py --section '$tmp/R.md' >'$tmp/R.out' &&
        echo \$(grep -c '| abc1234 |' '$tmp/R.out') \$(grep -c '| def5678 |' '$tmp/R.out') \$(grep -c 'revisions that .results/<machine>/dd_report_revs. names only (h200-x2: def5678)' '$tmp/R.out')"
    echo "tuesday" >"$tmp/revs/h200-x2/dd_report_revs"
    t_error dd-plots-report-revs-bad 1 "dd_report_revs: 'tuesday' is not a revision" \
        env NBR_RESULTS="$tmp/revs" "$py91" plots/dd.py --section "$tmp/R2.md"
    mkdir -p "$tmp/bad/h200-x2"
    head -2 "$tmp/res/h200-x2/dd_scaling.csv" | sed '2s/$/,extra/' >"$tmp/bad/h200-x2/dd_scaling.csv"
    t_error dd-plots-damaged-csv 2 'dd_scaling\.csv line 2: [0-9]+ fields' \
        env NBR_RESULTS="$tmp/bad" "$py91" plots/dd.py --figures "$tmp/bf"
    # the rebuild by phase: a folder of ddprof logs per machine, the revision from the log's name
    # or (older logs) the folder's, ranks sharing a GPU said so
    mkdir -p "$tmp/prof/h200-x2/ddprof-0c39b7584559-logs" "$tmp/prof/h200/ddprof-96df8a0b6be5-58b17da53500"
    cp results/h200-x2/ddprof-0c39b7584559-logs/ddprof-sp-2gpu-p2p.log "$tmp/prof/h200-x2/ddprof-0c39b7584559-logs/"
    cp results/h200/ddprof-96df8a0b6be5-58b17da53500/ddprof-sp-2rank-p2p-58b17da53500-r*.log "$tmp/prof/h200/ddprof-96df8a0b6be5-58b17da53500/"
    t_grep dd-plots-ddprof '^1 1$' sh -c "env NBR_RESULTS='$tmp/prof' '$py91' plots/dd.py --section '$tmp/P.md' >'$tmp/P.out' &&
        echo \$(grep -c '^| SP | 2 | p2p | 0c39b7584559 | 1 | 3293 | ' '$tmp/P.out') \
             \$(grep -c '^| SP | 2 on 1 GPU (shared) | p2p | 58b17da53500 | 2 | 1524 | .* | 2496 | 14435 | 27 | 6854 |$' '$tmp/P.out')"
else
    t_skip dd-plots "no python with pandas and matplotlib (plots/venv.sh: $(tail -1 "$tmp/venv.log"))"
fi

# runs/ddprof_table.py (stdlib): the committed side-by-side phase logs give B/A per phase (the
# migration's count and the rank skew named), a log with no phase line is left out with a word,
# and a file not named as the ddprof part names them stops it
ab=results/h200/ddprof-96df8a0b6be5-58b17da53500
t_grep ddprof-table-ratio '^\| migrate \| 9806 \| 1524 \| 0.1554 \|$' \
    bash -c "python3 runs/ddprof_table.py $ab/ddprof-sp-2rank-p2p-96df8a0b6be5-r*.log $ab/ddprof-sp-2rank-p2p-58b17da53500-r*.log"
t_grep ddprof-table-skew '^\| skew \| - \| 2496 \| - \|$' \
    bash -c "python3 runs/ddprof_table.py $ab/ddprof-sp-2rank-p2p-96df8a0b6be5-r*.log $ab/ddprof-sp-2rank-p2p-58b17da53500-r*.log"
echo "mpirun: rank 1 failed" >"$tmp/ddprof-sp-2rank-p2p-abc-r1.log"
t_grep ddprof-table-failed-run 'ddprof-sp-2rank-p2p-abc-r1.log: no phase line .*left out' \
    bash -c "python3 runs/ddprof_table.py $tmp/ddprof-sp-2rank-p2p-abc-r1.log $ab/ddprof-lj-1rank-mpi-58b17da53500-r1.log 2>&1"
t_error ddprof-table-bad-name 1 'not a ddprof log name' python3 runs/ddprof_table.py "$tmp/ddprof.log"
