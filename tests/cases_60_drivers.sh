# tests/cases_60_drivers.sh - the drivers (runs/), their CSV reader, figures and report.
# Sourced by tests/run.sh (tests/lib.sh is loaded). Needs bash, python3; the figure, report
# and pandas tests run in the project's python environment (plots/venv.sh: build/venv from
# plots/requirements.txt) and are skipped with a SKIP line where it cannot be set up.
# Everything writes under a temporary directory, never under results/.

T60=$(mktemp -d "${TMPDIR:-/tmp}/nbrlab-t60.XXXXXX")
T60_PY=$(plots/venv.sh 2>"$T60/venv.log") || T60_PY=""
export NBR_LOCK=none   # a test times nothing: it must not wait for a benchmark holding the lock

# Data rows of a CSV (header excluded).
_t60_rows() { [ -f "$1" ] && echo $(($(wc -l <"$1") - 1)) || echo 0; }
_t60_csvq() { python3 runs/csvq.py "$@"; }

# sweep.sh through run_point: a second run adds nothing, REDO=1 adds every point again.
_t60_resume() (
    export OUT_DIR=$T60/resume
    local csv=$OUT_DIR/sweep.csv sweep=(runs/sweep.sh "$BUILD/double/cpu-grouped" sp --ne 8
                                         --delta 0.5,0.6 --steps 20 --equil 0)
    "${sweep[@]}" || return 1
    [ "$(_t60_rows "$csv")" = 2 ] || { echo "first run: $(_t60_rows "$csv") rows, expected 2"; return 1; }
    "${sweep[@]}" >"$OUT_DIR/log" 2>&1 || return 1
    grep "skip sweep-cpu-grouped-double-sp-ne=8-delta=0.5" "$OUT_DIR/log" || { echo "no skip line"; return 1; }
    [ "$(_t60_rows "$csv")" = 2 ] || { echo "second run added rows: $(_t60_rows "$csv")"; return 1; }
    REDO=1 "${sweep[@]}" || return 1
    [ "$(_t60_rows "$csv")" = 4 ] || { echo "REDO=1: $(_t60_rows "$csv") rows, expected 4"; return 1; }
    _t60_csvq check --need tag,delta,git_rev "$csv"
)

# A row measured at another revision is not a measurement of this code: run_point runs the
# point again (the old row stays), unless KEEP_OLD=1.
_t60_other_revision() (
    export OUT_DIR=$T60/rev
    local csv=$OUT_DIR/sweep.csv rev sweep=(runs/sweep.sh "$BUILD/double/cpu-grouped" sp --ne 8 --steps 20 --equil 0)
    rev=$("$BUILD/double/cpu-grouped" --print-config | _t60_csvq config-get git_rev) || { echo "no git_rev"; return 1; }
    "${sweep[@]}" || return 1
    # the same row, as if an older build had measured it
    python3 - "$csv" <<'EOF' || return 1
import csv, sys
rows = list(csv.reader(open(sys.argv[1], newline="")))
k = rows[0].index("git_rev")
for r in rows[1:]:
    r[k] = "0000000"
csv.writer(open(sys.argv[1], "w", newline=""), lineterminator="\n").writerows(rows)
EOF
    local log=$OUT_DIR/log
    KEEP_OLD=1 "${sweep[@]}" >"$log" 2>&1 || return 1
    grep "skip .*at 0000000, not $rev: kept, KEEP_OLD=1" "$log" || { echo "KEEP_OLD=1 ran it"; return 1; }
    [ "$(_t60_rows "$csv")" = 1 ] || { echo "KEEP_OLD=1 added a row"; return 1; }
    "${sweep[@]}" >"$log" 2>&1 || return 1
    grep "again .*measured at 0000000, this program is $rev" "$log" || { echo "no 'again' line"; return 1; }
    [ "$(_t60_rows "$csv")" = 2 ] || { echo "other revision: $(_t60_rows "$csv") rows, expected 2"; return 1; }
    _t60_csvq has "$csv" git_rev="$rev" status=ok || { echo "no row at $rev"; return 1; }
    "${sweep[@]}" >"$log" 2>&1 || return 1
    grep "skip .*at $rev" "$log" || { echo "the new row is not taken as measured"; return 1; }
    [ "$(_t60_rows "$csv")" = 2 ] || { echo "third run added a row"; return 1; }
)

# A program's refusal (a dirty or unknown revision appending under results/) reaches the user
# as its own one line; ALLOW_DIRTY=1 passes --allow-dirty. The stand-in refuses as the
# programs do (the real ones refuse only in a dirty tree, which CI's clean clone is not).
_t60_refusal_prog() {
    cat >"$T60/refuser" <<'EOF'
#!/usr/bin/env bash
csv="" tag="" allow=0
while [ $# -gt 0 ]; do
    case "$1" in
        --print-config) echo "variant=refuser"; echo "git_rev=1234567-dirty"; exit 0 ;;
        --csv) csv=$2; shift 2 ;; --tag) tag=$2; shift 2 ;; --allow-dirty) allow=1; shift ;;
        *) shift ;;
    esac
done
if [ $allow = 0 ]; then
    echo "refuser: refusing to add rows to $csv (under results/) from a build of revision 1234567-dirty" >&2
    exit 2
fi
[ -s "$csv" ] || echo "tag,git_rev,status" >"$csv"
echo "$tag,1234567-dirty,ok" >>"$csv"
EOF
    chmod +x "$T60/refuser"
}
_t60_refused() (
    mkdir -p "$T60/ref/results/m"
    . runs/lib.sh
    local rc=0
    run_point "$T60/ref/results/m/x.csv" k1 -- "$T60/refuser" --ne 8 2>"$T60/ref/err" || rc=$?
    cat "$T60/ref/err"
    [ $rc = 2 ] || { echo "run_point returned $rc, expected the program's 2"; return 1; }
    [ ! -s "$T60/ref/results/m/x.csv" ] || { echo "a row was written"; return 1; }
)
_t60_allowed() (
    . runs/lib.sh
    ALLOW_DIRTY=1 run_point "$T60/ref/results/m/x.csv" k1 -- "$T60/refuser" --ne 8 2>/dev/null &&
        _t60_csvq get "$T60/ref/results/m/x.csv" git_rev tag=k1
)
# a run whose points were all refused leaves no settings block beside an existing CSV (issue 39)
_t60_refused_no_record() (
    local csv=$T60/ref2/results/m/x.csv
    rm -rf "$T60/ref2"; mkdir -p "$(dirname "$csv")"
    printf 'tag,git_rev,status\nold,abc1234,ok\n' >"$csv"
    touch -d '1 hour ago' "$csv"
    . runs/lib.sh
    run_point "$csv" k1 -- "$T60/refuser" --ne 8 2>/dev/null && { echo "not refused"; return 1; }
    [ ! -e "$csv.settings" ] || { echo "a settings block for a refused run:"; cat "$csv.settings"; return 1; }
    echo "no record of a refused run"
)
# A driver whose every point was refused prints no table: the rows in its CSV are older runs'
# (issue 39), so stdout stays empty and the exit is non-zero; once its points run (ALLOW_DIRTY=1)
# the table is printed, with this run's rows
_t60_all_refused() (
    local fb=$T60/refbuild out=$T60/ref3/results/m rc=0
    rm -rf "$T60/ref3" "$fb"; mkdir -p "$fb/float" "$out"
    cp "$T60/refuser" "$fb/float/cpu-layer"
    printf 'tag,git_rev,status\nt2-old-row,abc1234,ok\n' >"$out/table2.csv"
    local t2=(runs/table2.sh --build "$fb" --out-dir "$out" --quick --hyper-runs 0)
    "${t2[@]}" >"$T60/ref3/out" 2>"$T60/ref3/err" || rc=$?
    [ $rc != 0 ] || { echo "exit 0 with every point refused"; return 1; }
    [ ! -s "$T60/ref3/out" ] || { echo "a table from a run that measured nothing:"; cat "$T60/ref3/out"; return 1; }
    "${t2[@]}" --allow-dirty >"$T60/ref3/out" 2>"$T60/ref3/err" || { echo "ALLOW_DIRTY run: exit $?"; return 1; }
    # its table: the quick plan's 3 points, at the stand-in's revision (the git_rev column)
    [ "$(grep -c ' 1234567-dirty ' "$T60/ref3/out")" = 3 ] || { echo "the table lacks this run's 3 rows:"; cat "$T60/ref3/out"; return 1; }
    echo "no table of older rows"
)
# the rule for rows the drivers write themselves (hyperfine, LAMMPS)
_t60_dirty_rule() (
    . runs/lib.sh
    dirty_refused "$T60/results/h200/t.csv" abc-dirty x 2>/dev/null || { echo "dirty under results/ not refused"; return 1; }
    dirty_refused "$T60/results/h200/t.csv" unknown x 2>/dev/null || { echo "unknown not refused"; return 1; }
    ! dirty_refused "$T60/results/h200/t.csv" abc1234 x || { echo "committed refused"; return 1; }
    ! dirty_refused "$T60/other/t.csv" abc-dirty x || { echo "outside results/ refused"; return 1; }
    ! ALLOW_DIRTY=1 dirty_refused "$T60/results/h200/t.csv" abc-dirty x || { echo "ALLOW_DIRTY=1 refused"; return 1; }
    echo "dirty rule ok"
)

# BLOCKS_CSV makes run_point pass --blocks-csv: one row per averaging block, joined to the
# run's row by tag and revision.
_t60_blocks() (
    export OUT_DIR=$T60/blocks
    CSV=$OUT_DIR/b.csv TAG=tb BLOCKS_CSV=$OUT_DIR/blocks.csv runs/sweep.sh "$BUILD/double/cpu-grouped" sp \
        --ne 8 --steps 40 --equil 10 --avg-block 10 || return 1
    [ "$(_t60_rows "$OUT_DIR/blocks.csv")" = 4 ] || { echo "$(_t60_rows "$OUT_DIR/blocks.csv") block rows, expected 4"; return 1; }
    [ "$(_t60_rows "$OUT_DIR/b.csv")" = 1 ] || { echo "run CSV: $(_t60_rows "$OUT_DIR/b.csv") rows, expected 1"; return 1; }
    local tag rev
    tag=$(_t60_csvq get "$OUT_DIR/b.csv" tag status=ok) && rev=$(_t60_csvq get "$OUT_DIR/b.csv" git_rev tag="$tag") || return 1
    [ "$(_t60_csvq values "$OUT_DIR/blocks.csv" block tag="$tag" git_rev="$rev" | tr '\n' ' ')" = "1 2 3 4 " ] ||
        { echo "blocks of $tag at $rev: not 1..4"; return 1; }
    _t60_csvq get "$OUT_DIR/blocks.csv" timed_steps tag="$tag" block=1 | grep -qx 0 || { echo "block 1 is timed"; return 1; }
)

# Every GPU table driver end to end (QUICK), with tests/fake_gpu.sh standing in for the GPU
# programs: arguments, tags, revisions, CSV rows, block rows, the printed summaries (table3's
# has one line per cutoff and setting, old/new filled in); the step loop (GPU_LOOP=device, the
# default: every row's flags and tag are the device loop's, but table3's paper setting); then
# the figure data of each table, and the report's loop lines.
_t60_fake_build() {
    local fb=$T60/fakebuild d
    for d in float double; do
        mkdir -p "$fb/$d"
        ln -sf "$PWD/tests/fake_gpu.sh" "$fb/$d/gpu-layer"
        ln -sf "$PWD/tests/fake_gpu.sh" "$fb/$d/gpu-old"
    done
}
# _t60_loop_rows DIR LOOP CSV-NAMES...: every row of DIR/NAME.csv ran LOOP, flags and tag alike;
# table3's paper setting runs the paper loop in any case (its host layer assignment)
_t60_loop_rows() {
    python3 - "$@" <<'EOF'
import csv, sys
sys.path.insert(0, "runs"); import csvq  # the rows with knobs expanded (docs/csv.md)
d, loop, *names = sys.argv[1:]
DEVICE = dict(decide="device", graph="cond", sample_every="100", layer_assign="device", reduce="device",
              reorder_at="device")
bad, n = [], 0
for name in names:
    for r in csvq.read(f"{d}/{name}.csv").rows:
        n += 1
        want = "paper" if loop == "paper" or (name == "table3" and "-paper" in r["tag"]) else "device"
        flags = "device" if all(r[k] == v for k, v in DEVICE.items()) else \
                "paper" if r["decide"] != "device" and r["graph"] != "cond" else "mixed"
        tag = "device" if "-loop=device" in r["tag"] else "paper" if "loop=" not in r["tag"] else "other"
        if (flags, tag) != (want, want):
            bad.append(f"{name}: {r['tag']}: flags {flags}, tag {tag}, expected {want} (decide {r['decide']} "
                       f"graph {r['graph']} sample_every {r['sample_every']} layers {r['layer_assign']})")
print("\n".join(bad[:5]) if bad else f"{n} rows, each of its loop")
sys.exit(1 if bad or not n else 0)
EOF
}
_t60_gpu_drivers() (
    local real=$BUILD   # the programs the stand-in runs
    _t60_fake_build
    mkdir -p "$T60/fake"
    BUILD=$T60/fakebuild NBR_REAL_BUILD=$real OUT_DIR=$T60/fake/h200 QUICK=1 HYPER_RUNS=0 \
        ONLY="table1 table3 table4 table5 table6 table7 table8 texture layout gpu_layer" runs/gpu_tables.sh \
        >"$T60/fake/gpu_tables.log" 2>&1 || { tail -5 "$T60/fake/gpu_tables.log"; return 1; }
    # table3's summary: 5 cutoffs x 2 settings (the paper's in the paper loop, all on the device
    # in the device loop), each with both times, both list builds and their ratios
    # (numbers as %g prints them: 1.158e+04 once a list build takes 10 ms on a loaded machine)
    local t3 g='[0-9.]+(e[-+][0-9]+)?' nums
    nums=" +$g +$g +$g +$g +$g +$g "
    t3=$(grep -cE "^[0-9.]+ +(sp|lj) +(paper +paper|device +device)$nums" "$T60/fake/gpu_tables.log") || true
    [ "$t3" = 10 ] || { echo "table3 summary: $t3 complete lines, expected 10"; grep -A12 '^Table 3' "$T60/fake/gpu_tables.log"; return 1; }
    for f in table1:7 table3:20 table4:1 table5:3 table6:3 table7:4 table8:2 texture:6 layout:4 gpu_layer:5; do
        [ "$(_t60_rows "$T60/fake/h200/${f%:*}.csv")" = "${f#*:}" ] ||
            { echo "${f%:*}.csv: $(_t60_rows "$T60/fake/h200/${f%:*}.csv") rows, expected ${f#*:}"; return 1; }
    done
    _t60_loop_rows "$T60/fake/h200" device table1 table3 table4 table5 table6 table7 table8 texture layout gpu_layer ||
        return 1
    [ "$(_t60_rows "$T60/fake/h200/table4_blocks.csv")" -ge 10 ] || { echo "table4_blocks.csv: too few blocks"; return 1; }
    [ "$(_t60_rows "$T60/fake/h200/table8_blocks.csv")" -ge 10 ] || { echo "table8_blocks.csv: too few blocks"; return 1; }
    _t60_csvq has "$T60/fake/h200/table8_blocks.csv" variant=gpu-layer step=10000 || { echo "block steps not scaled"; return 1; }
    [ -z "$T60_PY" ] && { echo "layout ok (figure data not checked: no pandas)"; return 0; }
    # every series of the device loop has points, but those QUICK leaves out (table4's double,
    # table8's Ne=160)
    NBR_RESULTS=$T60/fake "$T60_PY" -c '
import sys; sys.path.insert(0, "plots"); import figdata, tables
for t in tables.TABLES:
    if t["machine"] != "gpu":
        continue
    td = figdata.table_data(t)
    empty = [s["label"] for p in td["panels"] for s in p["series"]
             if s["label"].endswith(tables.DEVICE_SUFFIX) and not s["points"] and not s["label"].startswith(("double", "Ne=160"))]
    assert not empty, (t["id"], empty)
    print(t["id"], "ok")' || return 1
    NBR_RESULTS=$T60/fake NBR_PLOTS_OUT=$T60/noplots "$T60_PY" plots/report.py "$T60/fake/REPORT.md" >/dev/null || return 1
    grep -q '^\*\*Step loops\.\*\* device loop: .*GPU_LOOP=device): [0-9]* rows, revision' "$T60/fake/REPORT.md" ||
        { echo "report: no device-loop rows named"; grep -m3 'Step loops' "$T60/fake/REPORT.md"; return 1; }
    echo "layout ok"
)

# GPU_LOOP=paper: the programs' defaults (no loop flag), the tags of before the device loop
_t60_gpu_paper_loop() (
    local real=$BUILD
    _t60_fake_build
    BUILD=$T60/fakebuild NBR_REAL_BUILD=$real OUT_DIR=$T60/paper/h200 QUICK=1 GPU_LOOP=paper ONLY=table5 \
        runs/gpu_tables.sh >"$T60/paper.log" 2>&1 || { tail -5 "$T60/paper.log"; return 1; }
    ! grep -E -- '--(decide|graph|sample-every) ' "$T60/paper.log" || { echo "a loop flag was passed"; return 1; }
    _t60_csvq has "$T60/paper/h200/table5.csv" tag=t5-gpu-layer-float-sp-ne=48-delta=0.3-steps=2000-equil=500 ||
        { echo "not the tag of before the device loop"; _t60_csvq values "$T60/paper/h200/table5.csv" tag; return 1; }
    _t60_loop_rows "$T60/paper/h200" paper table5 || return 1
    [ -z "$T60_PY" ] && return 0
    NBR_RESULTS=$T60/paper "$T60_PY" -c '
import sys; sys.path.insert(0, "plots"); import figdata, tables
td = figdata.table_data(tables.BY_ID["table5"])
got = {s["label"]: len(s["points"]) for s in td["panels"][0]["series"]}
assert got == {"S": 3, "S" + tables.DEVICE_SUFFIX: 0}, got
print("paper-loop series only:", got)'
)

# The LAMMPS cross-check's pressure: runs/lammps_row.py turns the committed small log
# (tests/data/lammps_sp6.log: reference/lammps/in.nbrlab, SP Ne 6, 50 + 200 steps, thermo 10)
# into a row whose pressure column is the mean of Press over the timed run after its step 0,
# computed here independently from the log's last thermo block. The schema is a built program's.
_t60_lammps_pressure() (
    local d=$T60/lmp log=tests/data/lammps_sp6.log got want
    mkdir -p "$d"
    "$BUILD/double/cpu-cells" --system sp --ne 4 --steps 0 --equil 0 --csv "$d/header.csv" --quiet >/dev/null ||
        { echo "no header from $BUILD/double/cpu-cells"; return 1; }
    python3 runs/lammps_row.py "$log" "$d/header.csv" "$d/lammps.csv" t-lmp sp 6 abc1234 || return 1
    got=$(_t60_csvq get "$d/lammps.csv" pressure tag=t-lmp) || { echo "no pressure column"; return 1; }
    want=$(awk '/^Step / { for (k = 1; k <= NF; k++) if ($k == "Press") c = k; on = 1; s = n = 0; next }
                /^Loop time/ { on = 0 } on && $1 > 0 { s += $c; n++ } END { if (n) printf "%.10g", s / n }' "$log")
    awk -v g="$got" -v w="$want" 'BEGIN { printf "row pressure %s, log Press mean %s\n", g, w
                                         exit !(w != "" && g + 0 > 0 && (g - w) ^ 2 <= 1e-14 * w * w) }'
)
_t60_no_press_log() {
    sed 's/^Step Temp PotEng KinEng TotEng Press/Step Temp PotEng KinEng TotEng/' tests/data/lammps_sp6.log >"$T60/nopress.log"
    python3 runs/lammps_row.py "$T60/nopress.log" "$T60/lmp/header.csv" "$T60/lmp/nopress.csv" t-np sp 6 abc1234
}

# The molten salt's LAMMPS row (runs/salt_mats.sh): the committed log tests/data/lammps_salt8_np2.log
# (reference/lammps/in.salt, ne 8, 20 + 40 steps, thermo 2, mpirun -np 2) gives a row with
# lj/cut/coul/dsf's cutoff 6 and variant lammps-mpi2 (a run on 2 MPI processes).
_t60_lammps_salt() (
    local d=$T60/lmp
    mkdir -p "$d"
    "$BUILD/double/cpu-cells" --system sp --ne 4 --steps 0 --equil 0 --csv "$d/header.csv" --quiet >/dev/null ||
        { echo "no header from $BUILD/double/cpu-cells"; return 1; }
    python3 runs/lammps_row.py tests/data/lammps_salt8_np2.log "$d/header.csv" "$d/salt.csv" t-salt salt 8 abc1234 ||
        return 1
    echo "salt row: variant $(_t60_csvq get "$d/salt.csv" variant tag=t-salt) rc $(_t60_csvq get "$d/salt.csv" rc tag=t-salt)" \
        "n $(_t60_csvq get "$d/salt.csv" n tag=t-salt) steps $(_t60_csvq get "$d/salt.csv" steps tag=t-salt)"
)

# Test CSVs for the readers' command lines.
_t60_csvs() {
    local src=$T60/resume/sweep.csv
    head -3 "$src" >"$T60/good.csv"
    { head -2 "$src"; sed -n 3p "$src" | sed 's/$/,extra/'; } >"$T60/malformed.csv"
    head -3 "$src" | head -c -25 >"$T60/truncated.csv"
}

if [ -x "$BUILD/double/cpu-grouped" ]; then
    t_ok drivers_sweep_resume _t60_resume
    t_ok drivers_rerun_other_revision _t60_other_revision
    t_ok drivers_block_rows _t60_blocks
    if [ -x "$BUILD/float/cpu-layer" ] && [ -x "$BUILD/double/cpu-layer" ]; then
        t_grep drivers_gpu_tables_fake 'layout ok' _t60_gpu_drivers
        t_grep drivers_gpu_tables_paper_loop '^3 rows, each of its loop' _t60_gpu_paper_loop
        t_error drivers_gpu_loop_bad 2 'GPU_LOOP=host: expected device or paper' env GPU_LOOP=host OUT_DIR="$T60/badloop" runs/table5.sh
    else
        t_skip drivers_gpu_tables_fake "cpu-layer (the GPU programs' stand-in) not built"
    fi
    _t60_csvs
    t_grep csvq_good '2 rows' python3 runs/csvq.py check "$T60/good.csv"
    t_error csvq_malformed 2 'malformed\.csv line 3: [0-9]+ fields, the header has [0-9]+' \
        python3 runs/csvq.py get "$T60/malformed.csv" us_per_atom_step
    t_error csvq_truncated 2 'truncated\.csv line 3: .*truncated' python3 runs/csvq.py has "$T60/truncated.csv" tag=x
    t_error table_sh_malformed 2 'malformed\.csv line 3: [0-9]+ fields' runs/table.sh "$T60/malformed.csv"
    if [ -n "$T60_PY" ]; then
        t_grep csv_reader_good '2 rows' "$T60_PY" plots/nbrcsv.py "$T60/good.csv"
        t_error csv_reader_malformed 2 'malformed\.csv line 3: [0-9]+ fields, the header has [0-9]+' \
            "$T60_PY" plots/nbrcsv.py "$T60/malformed.csv"
        t_error csv_reader_truncated 2 'truncated\.csv line 3: .*truncated' "$T60_PY" plots/nbrcsv.py "$T60/truncated.csv"
        t_error csv_reader_no_column 2 'good\.csv line 1: no column .speed.' \
            "$T60_PY" plots/nbrcsv.py --need speed "$T60/good.csv"
        mkdir -p "$T60/damaged/h200"
        cp "$T60/malformed.csv" "$T60/damaged/h200/table5.csv"
        t_error plots_damaged_csv 2 'table5\.csv line 3: [0-9]+ fields' \
            env NBR_RESULTS="$T60/damaged" NBR_PLOTS_OUT="$T60/dplots" plots/all.sh table5
        t_error report_damaged_csv 2 'table5\.csv line 3: [0-9]+ fields' \
            env NBR_RESULTS="$T60/damaged" "$T60_PY" plots/report.py "$T60/DREPORT.md"
        # plots/salt.py (runs/salt_mats.sh's figure and section) with no salt_mats.csv: says so
        t_grep salt_plots_no_rows '^\*\*No rows yet\*\*: runs/salt_mats.sh' env NBR_RESULTS="$T60/damaged" sh -c \
            "'$T60_PY' plots/salt.py --figures '$T60/saltfig' && ls '$T60/saltfig/salt_mats.svg' >/dev/null && '$T60_PY' plots/salt.py --section '$T60/S.md'"
    fi
    t_error sweep_bad_usage 2 'expected --flag' env OUT_DIR="$T60/sweep" runs/sweep.sh "$BUILD/double/cpu-grouped" sp ne 8
    if [ -x "$BUILD/double/cpu-cells" ]; then
        t_grep lammps_row_pressure '^row pressure [0-9.]+, log Press mean' _t60_lammps_pressure
        t_error lammps_row_needs_press 2 'thermo has no Press column' _t60_no_press_log
        t_grep lammps_row_salt_mpi '^salt row: variant lammps-mpi2 rc 6 n 512 steps 60$' _t60_lammps_salt
    fi
else
    t_skip drivers_sweep_resume "$BUILD/double/cpu-grouped not built"
fi
_t60_refusal_prog
t_grep drivers_refusal_shown '^refuser: refusing to add rows to .*results/m/x\.csv' _t60_refused
t_grep drivers_allow_dirty '^1234567-dirty$' _t60_allowed
t_grep drivers_dirty_rule 'dirty rule ok' _t60_dirty_rule
t_grep drivers_refused_no_record '^no record of a refused run$' _t60_refused_no_record
t_grep drivers_all_refused_no_table '^no table of older rows$' _t60_all_refused

if [ -n "$T60_PY" ]; then
    t_ok csv_figdata_report_unit "$T60_PY" tests/test_csv.py
    # the committed rows' figures as a reader sees them (issue 39 point 7), about 30 s
    t_ok figures_as_seen "$T60_PY" tests/test_figures.py
    t_grep report_without_data 'Not measured yet' \
        env NBR_RESULTS="$T60/empty" NBR_PLOTS_OUT="$T60/noplots" sh -c "'$T60_PY' plots/report.py '$T60/REPORT.md' && cat '$T60/REPORT.md'"
    # The figures: one table from the resume test's rows, relabelled as table5 of the GPU machine.
    if [ -f "$T60/resume/sweep.csv" ]; then
        mkdir -p "$T60/res/h200"
        sed 's/,cpu-grouped,/,gpu-layer,/; s/,double,/,float,/; s/,sp,lattice,8,/,sp,lattice,48,/' \
            "$T60/resume/sweep.csv" >"$T60/res/h200/table5.csv"
        t_grep plots_table5 'matplotlib' env NBR_RESULTS="$T60/res" NBR_PLOTS_OUT="$T60/plots" \
            sh -c "plots/all.sh table5 && ls $T60/plots/mpl/table5.png $T60/plots/mpl/table5.svg"
        if command -v gnuplot >/dev/null 2>&1; then
            t_ok plots_table5_gnuplot ls "$T60/plots/gp/table5.png" "$T60/plots/gp/table5.svg"
        else
            t_skip plots_table5_gnuplot "gnuplot not installed (apt-get install gnuplot-nox)"
        fi
    fi
else
    t_skip csv_figdata_report_unit "no python environment for the plots: $(tail -1 "$T60/venv.log")"
fi
rm -rf "$T60"
unset T60 T60_PY NBR_LOCK
