# No row is ever half-written (issue 24, item 4), and a refused CSV says why (issue 25).
#  - a full disk (an 8 KB tmpfs; root only, else SKIP): a row that does not fit leaves the file
#    byte-identical (exit 3, one line naming the file), so do later runs; once space is freed the
#    next row is whole; a new file that cannot take its header and row (run CSV, block CSV,
#    coulomb's CSV) is not left behind, empty or header-only;
#  - SIGINT / SIGTERM mid-run: the block rows written so far get a run row, status interrupted,
#    with the steps done; the program then dies of the signal (128 + its number);
#  - another program's file and a changed schema are refused, each with its own reason.
#  - one header for every program: the knobs column holds exactly its own option columns; the
#    wide rows of before migrate back exactly (runs/migrate_csv.py).
b=$BUILD/double
rows=$TEST_LOG_DIR/rows
rm -rf "$rows"; mkdir -p "$rows"
_t33_md=($b/cpu-grouped --ne 8 --steps 20 --equil 0 --quiet)

# every line of CSV $1 has as many fields as its header
_t33_whole() { awk -F, 'NR == 1 { n = NF } NF != n { print FILENAME ":" NR ": " NF " fields, header " n; bad = 1 } END { exit bad }' "$1"; }

# one run that must fail on the full disk: exit 3, one line naming the file, the CSV unchanged
# (or, where there was none, none left)
_t33_refused() {   # CSV CMD...
    local csv=$1 rc lines; shift
    rm -f "$rows/before.csv"
    [ -e "$csv" ] && cp "$csv" "$rows/before.csv"
    "$@" >/dev/null 2>"$rows/err"; rc=$?
    lines=$(grep -c '' "$rows/err")
    cat "$rows/err"
    [ $rc -eq 3 ] || { echo "exit code $rc, expected 3"; return 1; }
    [ "$lines" -eq 1 ] || { echo "stderr has $lines lines"; return 1; }
    grep -q "cannot append a row to --.*csv $csv: No space left on device" "$rows/err" || { echo "message"; return 1; }
    if [ -e "$rows/before.csv" ]; then cmp "$rows/before.csv" "$csv" || { echo "the CSV changed"; return 1; }
    else [ ! -e "$csv" ] || { echo "$csv was left behind ($(wc -c <"$csv") bytes)"; return 1; }; fi
}

# rows until the disk is full: one page for the CSV (the other held by a filler); the run whose
# row crosses the page boundary (part of it would fit) must be refused as above
_t33_fill_until_refused() {
    local csv=$1 k
    for k in $(seq 30); do
        _t33_refused "$csv" "${_t33_md[@]}" --csv "$csv" >"$rows/fill.log" && { cat "$rows/fill.log"; return 0; }
        grep -q '^exit code 0, expected 3$' "$rows/fill.log" || { cat "$rows/fill.log"; return 1; }
    done
    echo "30 rows fitted on an 8 KB disk"; return 1
}

mnt=$rows/mnt
mkdir -p "$mnt"
if mount -t tmpfs -o size=8k nbrlab-rows "$mnt" 2>"$rows/mount.err"; then
    head -c 4096 /dev/zero >"$mnt/filler"
    t_ok csv-fulldisk-row-unchanged _t33_fill_until_refused "$mnt/r.csv"
    t_ok csv-fulldisk-rows-whole _t33_whole "$mnt/r.csv"
    # a later row 60 bytes longer (its tag): the refused row's length varies with its timings by
    # some bytes, so a later row of the same flags could fit the slack the refused one did not
    long=$(printf 'x%.0s' $(seq 63))   # --tag's most
    t_ok csv-fulldisk-later-run-1 _t33_refused "$mnt/r.csv" "${_t33_md[@]}" --csv "$mnt/r.csv" --tag "$long"
    t_ok csv-fulldisk-later-run-2 _t33_refused "$mnt/r.csv" "${_t33_md[@]}" --csv "$mnt/r.csv" --tag "$long"
    rm -f "$mnt/filler"
    _t33_freed() {
        local before; before=$(grep -c '' "$mnt/r.csv")
        "${_t33_md[@]}" --csv "$mnt/r.csv" || return 1
        _t33_whole "$mnt/r.csv" || return 1
        [ "$(grep -c '' "$mnt/r.csv")" -eq $((before + 1)) ] || { echo "not one row more"; return 1; }
        [ "$(python3 runs/csvq.py get "$mnt/r.csv" status)" = ok ] || { echo "the new row's status is not ok"; return 1; }
    }
    t_ok csv-fulldisk-freed-next-row-whole _t33_freed
    # the disk quite full: new files get no page at all
    head -c 8192 /dev/zero >"$mnt/filler" 2>/dev/null
    t_ok csv-fulldisk-new-run-csv-not-left _t33_refused "$mnt/new.csv" "${_t33_md[@]}" --csv "$mnt/new.csv"
    t_ok csv-fulldisk-new-blocks-csv-not-left _t33_refused "$mnt/blocks.csv" "${_t33_md[@]}" --avg-block 5 \
        --blocks-csv "$mnt/blocks.csv"
    t_ok csv-fulldisk-coulomb-not-left _t33_refused "$mnt/coulomb.csv" $b/coulomb --random 30 --reps 1 --quiet \
        --csv "$mnt/coulomb.csv"
    umount "$mnt"
else
    t_skip csv-fulldisk "cannot mount an 8 KB tmpfs here ($(head -n 1 "$rows/mount.err")): needs root"
fi

# a signal mid-run (started in the background with job control, and SIGINT at its default
# (T_SIGDFL) even where the suite runs as a background job), sent once the first block row is there
_t33_interrupt() (   # SIG
    set -m
    local sig=$1 csv=$rows/int-$1.csv blocks=$rows/int-$1-blocks.csv pid rc k
    rm -f "$csv" "$blocks"
    "${T_SIGDFL[@]}" $b/cpu-grouped --ne 12 --steps 1000000 --equil 100 --avg-block 50 --quiet --csv "$csv" --blocks-csv "$blocks" \
        2>"$rows/int-$sig.err" &
    pid=$!
    for k in $(seq 400); do [ -s "$blocks" ] && [ "$(grep -c "" "$blocks")" -ge 3 ] && break; sleep 0.05; done
    kill -"$sig" $pid
    for k in $(seq 200); do kill -0 $pid 2>/dev/null || break; sleep 0.05; done
    kill -0 $pid 2>/dev/null && { kill -KILL $pid; echo "still running 10 s after SIG$sig"; return 1; }
    wait $pid; rc=$?
    cat "$rows/int-$sig.err"
    [ $rc -eq $((128 + $(kill -l "$sig"))) ] || { echo "exit code $rc, not death by SIG$sig"; return 1; }
    [ -s "$blocks" ] || { echo "no block rows"; return 1; }
    [ -s "$csv" ] || { echo "$(($(grep -c '' "$blocks") - 1)) block rows, no run row"; return 1; }
    _t33_whole "$blocks" && _t33_whole "$csv" || return 1
    # one run row, interrupted, its steps done at or after the last block row's step, short of --steps
    awk -F, 'FNR == 1 { for (k = 1; k <= NF; k++) c[FILENAME, $k] = k; next }
             FILENAME ~ /blocks/ { last = $c[FILENAME, "step"]; nb++; next }
             { nr++; st = $c[FILENAME, "status"]; done = $c[FILENAME, "steps_done"] }
             END { printf "%d block rows (last at step %s), %d run rows: status %s, steps_done %s\n", nb, last, nr, st, done
                   exit !(nb >= 2 && nr == 1 && st == "interrupted" && done + 0 >= last + 0 && done + 0 < 1000000) }' \
        "$blocks" "$csv" || return 1
    [ "$(grep -c '' "$rows/int-$sig.err")" -eq 1 ] || { echo "stderr is not one line"; return 1; }
)
t_ok csv-interrupt-sigint _t33_interrupt INT
t_ok csv-interrupt-sigterm _t33_interrupt TERM
# the same with SIGINT ignored on entry, as in a suite started from a background job (make test
# &): T_SIGDFL must restore its default in the program whatever the suite inherited (issue 38,
# class 8; the suite from the foreground could not tell)
_t33_interrupt_ignored() ( trap '' INT; _t33_interrupt INT )
t_ok csv-interrupt-sigint-ignored _t33_interrupt_ignored
# T_SIGDFL itself, in no time: under it, a shell that sends itself SIGINT dies of it (exit 130)
# though SIGINT was ignored on entry (without it: ignored, the shell exits 0 a second later)
_t33_sigdfl() {
    local rc=0
    ( trap '' INT; "${T_SIGDFL[@]}" sh -c 'kill -INT $$; sleep 1; exit 0' ) || rc=$?
    echo "exit $rc"
    [ $rc = 130 ]
}
t_grep sigdfl-restores-default '^exit 130$' _t33_sigdfl

# inside one long step (issue 39): cpu-allpairs at 864 000 atoms, one force call about 6 minutes
# here; SIGTERM a second into it (SIGINT is ignored where the suite runs as a background job, as
# make mutants runs it) ends the run within a second (the O(N^2) loop polls per row):
# exit 143, an interrupted row with 0 steps done; the estimate line came first, naming --steps
_t33_interrupt_mid_step() (
    set -m
    local csv=$rows/int-step.csv err=$rows/int-step.err pid rc k t0 t1
    rm -f "$csv"
    $b/cpu-allpairs --ne 60 --steps 2 --equil 0 --quiet --csv "$csv" 2>"$err" &
    pid=$!
    for k in $(seq 100); do [ -s "$err" ] && break; sleep 0.05; done
    sleep 1
    t0=$EPOCHREALTIME
    kill -TERM $pid
    for k in $(seq 20); do kill -0 $pid 2>/dev/null || break; sleep 0.05; done
    t1=$EPOCHREALTIME
    kill -0 $pid 2>/dev/null && { kill -KILL $pid; echo "still running 1 s after SIGTERM"; return 1; }
    wait $pid; rc=$?
    cat "$err"
    echo "stopped $(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", b - a }') s after SIGTERM"
    [ $rc -eq 143 ] || { echo "exit code $rc, not death by SIGTERM"; return 1; }
    head -1 "$err" | grep -q 'estimated .* --steps' || { echo "no estimate line first"; return 1; }
    _t33_whole "$csv" || return 1
    python3 - "$csv" <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
assert len(rows) == 1 and rows[0]["status"] == "interrupted" and rows[0]["steps_done"] == "0", rows
print("mid-step interrupt ok")
PY
)
t_grep csv-interrupt-inside-step '^mid-step interrupt ok$' _t33_interrupt_mid_step

# refused appends name the real reason
"${_t33_md[@]}" --csv "$rows/md.csv" --blocks-csv "$rows/md-blocks.csv" --avg-block 10 >/dev/null
$b/coulomb --random 30 --reps 1 --quiet --csv "$rows/coulomb.csv" >/dev/null
t_error csv-refuse-md-into-coulomb 2 "coulomb.csv has another header: it is another program's file \\(rows of coulomb;" \
    "${_t33_md[@]}" --csv "$rows/coulomb.csv"
t_error csv-refuse-coulomb-into-md 2 "md.csv has another header: it is another program's file \\(rows of cpu-grouped;" \
    $b/coulomb --random 30 --reps 1 --quiet --csv "$rows/md.csv"
t_error csv-refuse-run-into-blocks 2 "md-blocks.csv has another header: it is another program's file \\(cpu-grouped's rows, but of another kind than --csv's" \
    "${_t33_md[@]}" --csv "$rows/md-blocks.csv"
t_error csv-refuse-blocks-into-run 2 "md.csv has another header: it is another program's file \\(cpu-grouped's rows, but of another kind than --blocks-csv's" \
    "${_t33_md[@]}" --blocks-csv "$rows/md.csv"
# the same program's file from before a schema change: a column dropped (drift) or added
awk -F, -v OFS=, 'NR == 1 { for (k = 1; k <= NF; k++) if ($k == "drift") d = k }
    { s = ""; for (k = 1; k <= NF; k++) if (k != d) s = s (s == "" ? "" : OFS) $k; print s }' "$rows/md.csv" >"$rows/old.csv"
sed '1 s/$/,retired/; 2,$ s/$/,-/' "$rows/coulomb.csv" >"$rows/old-coulomb.csv"
t_error csv-refuse-schema-added 2 "old.csv has another header: the CSV schema changed \\(this build adds 1 column: drift, drops 0\\)" \
    "${_t33_md[@]}" --csv "$rows/old.csv"
t_error csv-refuse-schema-dropped 2 "old-coulomb.csv has another header: the CSV schema changed \\(this build adds 0 columns, drops 1: retired\\)" \
    $b/coulomb --random 30 --reps 1 --quiet --csv "$rows/old-coulomb.csv"

# One header for every program (docs/csv.md): the options every program has are columns, each
# program's own knobs are its row's knobs pairs, exactly the option columns --print-options
# names beyond the core ones, in table order, with the values it prints for the same flags.
# The GPU programs join where a GPU is (exit 6: none here); they write back some knobs they
# resolve (gpu-onchip's tier), so theirs are checked by name only.
_t33_knobs() {
    local v rc progs=() flags=(--ne 6 --steps 20 --equil 0 --stage-reps 0)
    for v in cpu-grouped cpu-cells cpu-layer cpu-pairlist cpu-full gpu-layer gpu-old gpu-rumd gpu-onchip; do
        [ -x "$b/$v" ] || continue
        rm -f "$rows/schema-$v.csv"
        rc=0; $b/$v "${flags[@]}" $([ "${v#cpu-}" != "$v" ] && echo --reorder 7) --quiet --csv "$rows/schema-$v.csv" \
            >"$rows/schema-$v.out" 2>&1 || rc=$?
        if [ $rc = 6 ] && [ "${v#gpu-}" != "$v" ]; then continue; fi
        [ $rc = 0 ] || { echo "$v did not run (exit $rc): $(tail -n 1 "$rows/schema-$v.out")"; return 1; }
        $b/$v "${flags[@]}" $([ "${v#cpu-}" != "$v" ] && echo --reorder 7) --print-options >"$rows/schema-$v.opts" || return 1
        progs+=("$v")
    done
    python3 - "$rows" "${progs[@]}" <<'PY'
import csv, sys
sys.path.insert(0, "runs"); import csvq
d, *progs = sys.argv[1:]
heads = set()
for v in progs:
    head, row = list(csv.reader(open(f"{d}/schema-{v}.csv")))
    heads.add(",".join(head))
    raw = dict(zip(head, row))
    core = [c for c in head if c != "knobs"]
    opts = [l.split("\t") for l in open(f"{d}/schema-{v}.opts").read().splitlines()[1:]]
    want = [(o[4], o[3]) for o in opts if o[4] != "-" and o[4] not in core]
    got = list(csvq.knob_pairs(raw["knobs"], v, core).items())
    if v.startswith("gpu-"):   # by name: a GPU program may write back what it resolved
        got, want = [k for k, _ in got], [k for k, _ in want]
    if got != want:
        sys.exit(f"{v}: knobs {got}, --print-options says {want}")
    print(f"{v}: {len(core)} core columns, knobs {raw['knobs']}")
if len(heads) != 1:
    sys.exit(f"{len(heads)} different headers among {progs}")
PY
}
t_ok csv-knobs-one-header _t33_knobs
# a knob no row of the file has reads "-" (a program without it); a pair reads as its column
rm -f "$rows/cells.csv"
$b/cpu-cells --ne 6 --steps 20 --equil 0 --stage-reps 0 --reorder 7 --quiet --csv "$rows/cells.csv" >/dev/null
t_grep csv-knobs-absent-reads-dash '^-$' python3 runs/csvq.py get "$rows/cells.csv" list_method
t_grep csv-knobs-pair-read '^7$' python3 runs/csvq.py get "$rows/cells.csv" reorder variant=cpu-cells

# the wide rows of before (one column per option, "-" where a program lacks it) are refused by
# the programs with the migration's name, and migrate back exactly (tests/fixtures/wide_rows.csv:
# rows of cpu-grouped, gpu-dd on 1 and 2 ranks, gpu-rumd and gpu-onchip from the committed CSVs)
cp tests/fixtures/wide_rows.csv "$rows/wide.csv"
t_error csv-refuse-wide-schema 2 "wide.csv has another header: the CSV schema changed \\(this build adds 8 columns: check check_f_err check_u_err check_e_rel \\.\\.\\., drops 32: threads read reorder reorder_at \\.\\.\\.\\).*runs/migrate_csv.py" \
    "${_t33_md[@]}" --csv "$rows/wide.csv"
_t33_migrate() {
    cp tests/fixtures/wide_rows.csv "$rows/wide.csv"
    python3 runs/migrate_csv.py "$rows/md.csv" "$rows/wide.csv" || return 1   # md.csv: today's header
    [ "$(head -n 1 "$rows/wide.csv")" = "$(head -n 1 "$rows/md.csv")" ] || { echo "header"; return 1; }
    python3 runs/migrate_csv.py --check tests/fixtures/wide_rows.csv "$rows/wide.csv" || return 1
    python3 runs/csvq.py get "$rows/wide.csv" dd_grid variant=gpu-dd ranks=2 | grep -qx 2x1x1 || { echo "dd_grid"; return 1; }
    "${_t33_md[@]}" --csv "$rows/wide.csv" || return 1   # the migrated file takes today's rows
}
t_ok csv-migrate-round-trip _t33_migrate
sed '1 s/$/,frac_transfer/; 2,$ s/$/,-/' tests/fixtures/wide_rows.csv >"$rows/wide-extra.csv"
cp "$rows/wide-extra.csv" "$rows/wide-extra.before"
t_error csv-migrate-refuses-unknown 2 "wide-extra.csv: column frac_transfer is neither a core column of the new schema nor an option column: not migrated" \
    python3 runs/migrate_csv.py "$rows/md.csv" "$rows/wide-extra.csv"
t_ok csv-migrate-refused-untouched cmp "$rows/wide-extra.before" "$rows/wide-extra.csv"
# a file of the knobs schema from before the --check columns (issue 36; every committed CSV until
# migrated): refused naming the migration, which adds them as '-' and nothing else; then it takes
# today's rows, a checked one with its verdict; migrated again, it is left as it is
_t33_migrate_check_cols() {
    local old=$rows/pre-check.csv
    python3 - "$rows/md.csv" "$old" <<'PY' || return 1
import csv, sys
rows = list(csv.reader(open(sys.argv[1])))
keep = [k for k, c in enumerate(rows[0]) if not c.startswith("check")]
assert len(keep) == len(rows[0]) - 7, rows[0]
with open(sys.argv[2], "w", newline="") as f:
    csv.writer(f, lineterminator="\n").writerows([r[k] for k in keep] for r in rows)
PY
    cp "$old" "$rows/pre-check.before"
    "${_t33_md[@]}" --csv "$old" 2>"$rows/pre-check.err" && { echo "a row appended under the old header"; return 1; }
    cat "$rows/pre-check.err"
    grep -q 'adds 7 columns: check check_f_err .*runs/migrate_csv.py' "$rows/pre-check.err" || return 1
    python3 runs/migrate_csv.py "$rows/md.csv" "$old" || return 1
    python3 runs/migrate_csv.py --check "$rows/pre-check.before" "$old" || return 1
    "${_t33_md[@]}" --check --csv "$old" >/dev/null || return 1
    cp "$old" "$rows/pre-check.after"
    python3 runs/migrate_csv.py "$rows/md.csv" "$old" | grep -q 'left as it is' && cmp "$old" "$rows/pre-check.after" || return 1
    echo "check: $(python3 runs/csvq.py values "$old" check | tr '\n' ' ')"
}
t_grep csv-migrate-check-columns '^check: - pass $' _t33_migrate_check_cols
