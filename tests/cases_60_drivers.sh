# tests/cases_60_drivers.sh - the paper-table drivers, the CSV reader, figures and report.
# Sourced by tests/run.sh (tests/lib.sh is loaded). Needs bash, awk, python3 (stdlib); the
# figure test needs matplotlib or gnuplot and is skipped with a SKIP line without them.
# Everything writes under a temporary directory, never under results/.

T60=$(mktemp -d "${TMPDIR:-/tmp}/nbrlab-t60.XXXXXX")

# Data rows of a CSV (header excluded).
_t60_rows() { [ -f "$1" ] && echo $(($(wc -l <"$1") - 1)) || echo 0; }

# sweep.sh through run_point: a second run adds nothing, REDO=1 adds every point again.
# NBR_LOCK=none: a test times nothing, so it must not wait for a benchmark holding the lock.
_t60_resume() (
    export NBR_LOCK=none
    export OUT_DIR=$T60/resume
    local csv=$OUT_DIR/sweep.csv sweep=(runs/sweep.sh "$BUILD/double/cpu-grouped" sp --ne 8
                                         --delta 0.5,0.6 --steps 20 --equil 0)
    "${sweep[@]}" || return 1
    [ "$(_t60_rows "$csv")" = 2 ] || { echo "first run: $(_t60_rows "$csv") rows, expected 2"; return 1; }
    "${sweep[@]}" 2>&1 | grep -q "skip sweep-cpu-grouped-double-sp-ne=8-delta=0.5" || { echo "no skip line"; return 1; }
    [ "$(_t60_rows "$csv")" = 2 ] || { echo "second run added rows: $(_t60_rows "$csv")"; return 1; }
    REDO=1 "${sweep[@]}" || return 1
    [ "$(_t60_rows "$csv")" = 4 ] || { echo "REDO=1: $(_t60_rows "$csv") rows, expected 4"; return 1; }
    python3 plots/nbrcsv.py --need tag,delta --numeric us_per_atom_step "$csv"
)

# LOGDIR makes run_point keep each run's block lines (--quiet drops them); blocks.py reads them.
_t60_blocks() (
    export NBR_LOCK=none
    export OUT_DIR=$T60/blocks
    CSV=$OUT_DIR/b.csv TAG=tb LOGDIR=$OUT_DIR/logs runs/sweep.sh "$BUILD/double/cpu-grouped" sp \
        --ne 8 --steps 40 --equil 10 --avg-block 10 || return 1
    python3 runs/blocks.py "$OUT_DIR/blocks.csv" "$OUT_DIR"/logs/*.log || return 1
    [ "$(_t60_rows "$OUT_DIR/blocks.csv")" = 4 ] || { echo "$(_t60_rows "$OUT_DIR/blocks.csv") block rows, expected 4"; return 1; }
    [ "$(_t60_rows "$OUT_DIR/b.csv")" = 1 ] || { echo "run CSV: $(_t60_rows "$OUT_DIR/b.csv") rows, expected 1"; return 1; }
)

# Every GPU table driver end to end (QUICK), with tests/fake_gpu.sh standing in for the GPU
# programs: arguments, tags, CSV rows, block lines; then the figure data of each table.
_t60_gpu_drivers() (
    export NBR_LOCK=none
    local fb=$T60/fakebuild real=$BUILD d
    for d in float double; do
        mkdir -p "$fb/$d"
        ln -sf "$PWD/tests/fake_gpu.sh" "$fb/$d/gpu-layer"
    done
    mkdir -p "$T60/fake"
    BUILD=$fb NBR_REAL_BUILD=$real OUT_DIR=$T60/fake/h200 QUICK=1 HYPER_RUNS=0 \
        ONLY="table1 table4 table5 table6 table7 table8 texture layout" runs/gpu_tables.sh || return 1
    for f in table1:7 table4:1 table5:3 table6:3 table7:4 table8:2 texture:6 layout:4; do
        [ "$(_t60_rows "$T60/fake/h200/${f%:*}.csv")" = "${f#*:}" ] ||
            { echo "${f%:*}.csv: $(_t60_rows "$T60/fake/h200/${f%:*}.csv") rows, expected ${f#*:}"; return 1; }
    done
    [ "$(_t60_rows "$T60/fake/h200/table8_blocks.csv")" -ge 10 ] || { echo "table8_blocks.csv: too few blocks"; return 1; }
    NBR_RESULTS=$T60/fake python3 -c '
import sys; sys.path.insert(0, "plots"); import figdata, tables
for t in ("table1", "table4", "table5", "table6", "table7", "table8", "texture", "layout"):
    td = figdata.table_data(tables.BY_ID[t])
    empty = [s["label"] for p in td["panels"] for s in p["series"] if not s["points"] and not s["spec"].get("optional")]
    assert not empty, (t, empty)
    print(t, "ok")'
)

# Test CSVs for the reader's command line.
_t60_csvs() {
    local src=$T60/resume/sweep.csv
    head -3 "$src" >"$T60/good.csv"
    { head -2 "$src"; sed -n 3p "$src" | sed 's/$/,extra/'; } >"$T60/malformed.csv"
    head -3 "$src" | head -c -25 >"$T60/truncated.csv"
}

if [ -x "$BUILD/double/cpu-grouped" ]; then
    t_ok drivers_sweep_resume _t60_resume
    t_ok drivers_block_lines _t60_blocks
    if [ -x "$BUILD/float/cpu-layer" ] && [ -x "$BUILD/double/cpu-layer" ]; then
        t_grep drivers_gpu_tables_fake 'layout ok' _t60_gpu_drivers
    else
        t_skip drivers_gpu_tables_fake "cpu-layer (the GPU programs' stand-in) not built"
    fi
    _t60_csvs
    t_grep csv_reader_good '2 rows' python3 plots/nbrcsv.py "$T60/good.csv"
    t_error csv_reader_malformed 2 'malformed\.csv line 3: [0-9]+ fields, the header has [0-9]+' \
        python3 plots/nbrcsv.py "$T60/malformed.csv"
    t_error csv_reader_truncated 2 'truncated\.csv line 3: .*truncated' python3 plots/nbrcsv.py "$T60/truncated.csv"
    t_error csv_reader_no_column 2 'good\.csv line 1: no column .speed.' \
        python3 plots/nbrcsv.py --need speed "$T60/good.csv"
    t_error sweep_bad_usage 2 'expected --flag' runs/sweep.sh "$BUILD/double/cpu-grouped" sp ne 8
else
    t_skip drivers_sweep_resume "$BUILD/double/cpu-grouped not built"
fi
t_ok csv_figdata_report_unit python3 tests/test_csv.py
t_grep report_without_data 'Not measured yet' \
    env NBR_RESULTS="$T60/empty" NBR_PLOTS_OUT="$T60/noplots" sh -c "python3 plots/report.py '$T60/REPORT.md' && cat '$T60/REPORT.md'"

# The figures: one table from the resume test's rows, relabelled as table5 of the GPU machine.
if python3 -c 'import matplotlib' 2>/dev/null || command -v gnuplot >/dev/null 2>&1; then
    if [ -f "$T60/resume/sweep.csv" ]; then
        mkdir -p "$T60/res/h200"
        sed 's/,cpu-grouped,/,gpu-layer,/; s/,double,/,float,/; s/,sp,lattice,8,/,sp,lattice,48,/' \
            "$T60/resume/sweep.csv" >"$T60/res/h200/table5.csv"
        t_grep plots_table5 'matplotlib|gnuplot' env NBR_RESULTS="$T60/res" NBR_PLOTS_OUT="$T60/plots" \
            sh -c "plots/all.sh table5 && ls $T60/plots/*/table5.png $T60/plots/*/table5.svg"
    fi
else
    t_skip plots_table5 "neither matplotlib nor gnuplot installed (CI: apt-get install gnuplot-nox python3-matplotlib)"
fi
rm -rf "$T60"
unset T60
