# tests/cases_34_rows_kept.sh - no row lost or wrong without an error (issue 38, point 7):
#  - 20 runs appending at once to a new and to an existing CSV (run rows and block rows) lose
#    no row and write one header: the open check creates nothing (a file made and removed again
#    took other runs' rows with it), the header is checked under the append's lock;
#  - --seed is checked and stored by one parser: 1e3 and 0x10 are refused, 1000 is stored;
#  - --csv X --blocks-csv X is refused before the run, nothing written;
#  - a CSV whose last line lacks its newline gets the row on a line of its own;
#  - --csv /dev/full is refused as not a regular file, before the run;
#  - --steps = --equil (no production) is not an ok row: status untimed, nothing timed;
#    energies never measured (an unstable run stopped first) are empty, not 0; one energy
#    sample gives e_end but an empty drift and rms.
# Sourced by tests/run.sh (tests/lib.sh loaded).
b=$BUILD/double
kept=$TEST_LOG_DIR/kept
rm -rf "$kept"; mkdir -p "$kept"
_t34_md=($b/cpu-grouped --ne 6 --steps 40 --equil 0 --avg-block 10 --quiet)
# the concurrent writers: long enough (about 0.1 s) that some start while others append
_t34_cw=($b/cpu-grouped --ne 8 --steps 400 --equil 0 --avg-block 100 --quiet)

# column NAME of the last row of CSV (the reader the drivers use)
_t34_get() { python3 runs/csvq.py get "$1" "$2"; }

# N runs at once appending to RUN and BLOCKS (RUN_BEFORE run rows there already): every row
# there, one header each, every line whole
_t34_concurrent() {   # RUN BLOCKS N
    local run=$1 blocks=$2 n=$3 k pids=() fail=0 before_r=0 before_b=0
    [ -s "$run" ] && before_r=$(($(grep -c '' "$run") - 1))
    [ -s "$blocks" ] && before_b=$(($(grep -c '' "$blocks") - 1))
    for k in $(seq "$n"); do
        "${_t34_cw[@]}" --seed "$k" --tag "w$k" --csv "$run" --blocks-csv "$blocks" >/dev/null 2>"$kept/w$k.err" &
        pids+=($!)
    done
    for k in "${pids[@]}"; do wait "$k" || fail=$((fail + 1)); done
    [ "$fail" = 0 ] || { echo "$fail of $n runs failed: $(cat "$kept"/w*.err | head -n 3)"; return 1; }
    local rr br
    rr=$(($(grep -c '' "$run") - 1)) br=$(($(grep -c '' "$blocks") - 1))
    echo "run rows $rr (want $((before_r + n))), block rows $br (want $((before_b + 4 * n)))"
    [ "$rr" = $((before_r + n)) ] && [ "$br" = $((before_b + 4 * n)) ] || return 1
    [ "$(grep -c '^timestamp,' "$run")" = 1 ] && [ "$(grep -c '^git_rev,' "$blocks")" = 1 ] || { echo "headers"; return 1; }
    awk -F, 'NR == 1 { n = NF } NF != n { print FILENAME ":" NR ": " NF " fields"; bad = 1 } END { exit bad }' "$run" &&
        awk -F, 'NR == 1 { n = NF } NF != n { print FILENAME ":" NR ": " NF " fields"; bad = 1 } END { exit bad }' "$blocks"
}
_t34_new_file() {   # three trials, each on new files
    local t
    for t in 1 2 3; do
        rm -f "$kept/new-$t.csv" "$kept/new-$t-blocks.csv"
        _t34_concurrent "$kept/new-$t.csv" "$kept/new-$t-blocks.csv" 20 || return 1
    done
}
t_ok rows-concurrent-20-new-file _t34_new_file
t_ok rows-concurrent-20-existing-file _t34_concurrent "$kept/new-1.csv" "$kept/new-1-blocks.csv" 20

# --seed: one parser checks and stores; the row holds what was given
t_error rows-seed-exponent-refused 2 "--seed needs a whole number in decimal digits \\(got '1e3'\\)" \
    "${_t34_md[@]}" --seed 1e3 --csv "$kept/seed.csv"
t_error rows-seed-hex-refused 2 "--seed needs a whole number in decimal digits \\(got '0x10'\\)" \
    "${_t34_md[@]}" --seed 0x10 --csv "$kept/seed.csv"
t_error rows-seed-beyond-refused 2 "--seed = 18446744073709551616 is outside its limits" \
    "${_t34_md[@]}" --seed 18446744073709551616 --csv "$kept/seed.csv"
_t34_seed() { "${_t34_md[@]}" --seed 1000 --csv "$kept/seed.csv" >/dev/null &&
    _t34_get "$kept/seed.csv" seed; }
t_grep rows-seed-stored '^1000$' _t34_seed
# the refused runs above wrote nothing
t_grep rows-seed-refused-wrote-nothing '^2$' grep -c '' "$kept/seed.csv"

# --csv X --blocks-csv X (also spelled differently): refused before the run, no file
t_error rows-same-file-refused 2 "--csv .*same.csv and --blocks-csv .*same.csv name one file" \
    timeout 20 "${_t34_md[@]}" --steps 100000000 --csv "$kept/same.csv" --blocks-csv "$kept/./same.csv"
t_ok rows-same-file-nothing-written test ! -e "$kept/same.csv"

# a last line without its newline: the row goes on a line of its own
_t34_no_newline() {   # header-only or with rows
    local csv=$kept/nonl-$1.csv
    rm -f "$csv"
    "${_t34_md[@]}" --csv "$csv" >/dev/null || return 1
    [ "$1" = header ] && sed -i '2,$d' "$csv"
    truncate -s -1 "$csv"   # the last line's newline
    local lines; lines=$(wc -l <"$csv")
    "${_t34_md[@]}" --csv "$csv" >/dev/null || return 1
    "${_t34_md[@]}" --csv "$csv" >/dev/null || return 1
    awk -F, 'NR == 1 { n = NF } NF != n { print NR ": " NF " fields"; bad = 1 } END { exit bad }' "$csv" || return 1
    [ "$(grep -c '' "$csv")" = $((lines + 3)) ] || { echo "$(grep -c '' "$csv") lines"; return 1; }
    [ "$(_t34_get "$csv" status)" = ok ] && head -n 1 "$csv" | grep -q '^timestamp,.*,knobs$'
}
t_ok rows-no-newline-after-rows _t34_no_newline rows
t_ok rows-no-newline-header-only _t34_no_newline header

# a device is no CSV: refused with that reason, before the run
t_error rows-dev-full-refused 2 "--csv /dev/full is not a regular file \\(a character device\\)" \
    timeout 20 "${_t34_md[@]}" --steps 100000000 --csv /dev/full
t_error rows-directory-refused 2 "--blocks-csv $kept is not a regular file \\(a directory\\)" \
    timeout 20 "${_t34_md[@]}" --steps 100000000 --blocks-csv "$kept"

# no production steps: status untimed, its time columns and energies empty; not an ok row
_t34_untimed() {
    rm -f "$kept/untimed.csv"
    "${_t34_md[@]}" --steps 0 --csv "$kept/untimed.csv" >/dev/null || return 1
    "${_t34_md[@]}" --steps 30 --equil 30 --csv "$kept/untimed.csv" >/dev/null || return 1
    python3 - "$kept/untimed.csv" <<'EOF'
import sys
sys.path.insert(0, "runs")
import csvq
rows = list(csvq.read(sys.argv[1]).rows)
assert len(rows) == 2, len(rows)
for r in rows:
    assert r["status"] == "untimed", r["status"]
    for c in ("us_per_atom_step", "us_per_step", "e_start", "e_end", "drift", "e_rms", "temp_measured", "pressure"):
        assert r[c] == "", (c, r[c])
print("untimed rows ok")
EOF
}
t_grep rows-no-production-untimed 'untimed rows ok' _t34_untimed
# unstable before any production sample (dt 0.05 explodes within steps): energies empty
_t34_unstable() {
    rm -f "$kept/unstable.csv"
    "${_t34_md[@]}" --dt 0.05 --temp 5 --steps 2000 --csv "$kept/unstable.csv" >/dev/null 2>&1
    local rc=$?
    [ $rc = 4 ] || { echo "exit $rc, not 4 (unstable)"; return 1; }
    [ "$(_t34_get "$kept/unstable.csv" status)" = unstable ] || return 1
    local c
    for c in e_start e_end drift e_rms temp_measured pressure; do
        [ -z "$(_t34_get "$kept/unstable.csv" "$c")" ] || { echo "$c = '$(_t34_get "$kept/unstable.csv" "$c")'"; return 1; }
    done
    echo "unstable energies empty"
}
t_grep rows-unstable-energies-empty 'unstable energies empty' _t34_unstable
# one energy sample: e_end is it, drift and rms need two
_t34_one_sample() {
    rm -f "$kept/one.csv"
    "${_t34_md[@]}" --steps 20 --sample-every 20 --avg-block 20 --csv "$kept/one.csv" >/dev/null || return 1
    local e d r
    e=$(_t34_get "$kept/one.csv" e_end) d=$(_t34_get "$kept/one.csv" drift) r=$(_t34_get "$kept/one.csv" e_rms)
    echo "e_end '$e' drift '$d' e_rms '$r'"
    [ -n "$e" ] && [ -z "$d" ] && [ -z "$r" ]
}
t_ok rows-one-sample-no-drift _t34_one_sample
