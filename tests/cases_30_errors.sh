# Bad input and capacity limits: one line on stderr naming the limit, a non-zero exit
# (2 = input, 3 = capacity or memory, 4 = unstable run). Nothing may be truncated silently,
# and nothing may depend on this machine's memory size.
b=$BUILD/double
t_error err-unknown-flag 2 '--frobnicate: unknown flag' $b/cpu-allpairs --frobnicate 1
t_error err-unknown-flag-echo 2 ': --bogus: unknown' $b/cpu-allpairs --bogus
t_error err-positional 2 'unexpected argument' $b/cpu-allpairs 12
t_error err-not-a-number 2 '--ne needs a number' $b/cpu-allpairs --ne abc
t_error err-not-whole 2 '--ne needs a whole number' $b/cpu-allpairs --ne 2.5
t_error err-negative-delta 2 '--delta = -0.1 is outside its limits' $b/cpu-allpairs --delta -0.1
t_error err-zero-density 2 '--rho = 0 is outside its limits' $b/cpu-allpairs --rho 0
t_error err-bad-enum 2 '--system must be one of sp\|lj' $b/cpu-allpairs --system argon
t_error err-missing-value 2 '--steps needs a value' $b/cpu-allpairs --steps
t_error err-equil-gt-steps 2 '--equil must not exceed --steps' $b/cpu-allpairs --steps 10 --equil 20
t_error err-knob-not-here 2 '--threads is not a knob of cpu-allpairs' $b/cpu-allpairs --threads 64
t_error err-tp-not-honoured 2 '--tp is not a knob of cpu-grouped' $b/cpu-grouped --tp 4
t_error err-rc-over-half-box 2 'below half the box edge' $b/cpu-allpairs --system lj --ne 4
# r_c = 3 below L/2 = 3.45, r_n = 3.8 not
t_error err-rn-over-half-box 2 'r_n = --rc \+ --delta = 3.8 must be below half the box edge' $b/cpu-allpairs --system lj --ne 5
t_error err-salt-odd-edge 2 '--ne must be even with --potential lj-coulsf' $b/cpu-allpairs --system salt --ne 15
# memory: an address-space limit stands in for a small machine, whatever this one has
t_error err-memory 3 'cannot allocate .* not enough host memory' \
    sh -c "ulimit -v 400000; exec $b/cpu-grouped --ne 400 --steps 0 --equil 0"
t_grep help-from-option-table '--avg-block' $b/cpu-allpairs --help
# a program's own options (Variant.opts, declared in its file: gpu-onchip's --tier and --cluster)
# are in its --help, and another program refuses them like any flag it does not have
t_error err-own-flag-elsewhere 2 'cpu-grouped: --tier: unknown flag' $b/cpu-grouped --tier grid
if [ -x $b/gpu-onchip ]; then
    t_grep help-own-options '^  --tier .*auto\|block\|grid\|cluster' $b/gpu-onchip --help
    t_grep help-own-options-cluster '^  --cluster ' $b/gpu-onchip --help
else
    t_skip help-own-options "$b/gpu-onchip not built (no CUDA)"
fi
# a run refused after the CSV check (here: too few cells) leaves no empty CSV behind, which
# the drivers would refuse to append to (no header)
_t30_no_empty_csv() {
    local d; d=$(mktemp -d)
    "$@" --csv "$d/rows.csv" >/dev/null 2>&1 && { echo "the run was not refused"; return 1; }
    [ ! -e "$d/rows.csv" ] || { echo "an empty $d/rows.csv was left behind"; return 1; }
    rm -rf "$d"
}
t_ok err-refused-run-leaves-no-csv _t30_no_empty_csv $b/cpu-layer --system salt --ne 12
t_grep print-config 'threads=|reorder=100' $b/cpu-layer --print-config
t_grep print-config-rev '^git_rev=' $b/cpu-layer --print-config
if [ -x $b/cpu-pairlist ]; then
    t_error err-small-box 2 'at least 3 per axis' $b/cpu-pairlist --ne 4
    t_error err-dense-box 2 'at least 3 per axis' $b/cpu-pairlist --ne 6 --rho 2.9
    t_error err-pair-capacity 3 'max-pairs' $b/cpu-pairlist --ne 8 --steps 0 --equil 0 --max-pairs 100
    # refused before any allocation: the same answer on any machine
    t_error err-pairlist-index-bits 2 'limit of 67108864 \(2\^26' $b/cpu-pairlist --ne 407 --steps 0 --equil 0
    # a dilute system: cells bounded by the atoms (was 1.3 GB of cells for 1728 atoms)
    t_ok dilute-cells-bounded sh -c "ulimit -v 400000; exec $b/cpu-pairlist --rho 1e-6 --ne 12 --steps 20 --equil 0 --quiet"
fi
for v in cpu-grouped cpu-full cpu-layer; do
    [ -x $b/$v ] && t_error err-nbr-capacity-$v 3 'max-nbr' $b/$v --ne 8 --steps 0 --equil 0 --max-nbr 4
done
[ -x $b/cpu-layer ] && t_error err-layer-capacity 3 'max-layers' $b/cpu-layer --ne 8 --steps 0 --equil 0 --max-layers 2

# Output files are refused before the computing starts (the run would take 100 s).
csv=$TEST_LOG_DIR/schema.csv
printf 'some,other,header\n' >"$csv"
t_error err-csv-schema 2 'another header' timeout 20 $b/cpu-grouped --ne 40 --steps 100000 --quiet --csv "$csv"
t_error err-csv-no-folder 2 'cannot open --csv .*no-such-folder' timeout 20 $b/cpu-grouped --ne 40 --steps 100000 \
    --csv "$TEST_LOG_DIR/no-such-folder/x.csv"
t_error err-blocks-csv-no-folder 2 'cannot open --blocks-csv' timeout 20 $b/cpu-grouped --ne 40 --steps 100000 \
    --blocks-csv "$TEST_LOG_DIR/no-such-folder/b.csv"

# Provenance: rows under a results/ directory need a committed revision. The same objects
# linked with a provenance.o that says "-dirty" (and "unknown") stand in for such a build.
_t30_rev_binary() {   # REV OUT: cpu-grouped built from this build's objects, revision REV
    local o=$BUILD/double
    cc -std=c11 -DNBR_GIT_REV="\"$1\"" -c common/provenance.c -o "$2.o" &&
        cc $o/variants/cpu-grouped.o $(ls common/*.c kernels/*.c kernels/cpu/*.c | grep -v 'provenance\|kernels/cpu/coulomb' |
                                       sed "s|^|$o/|; s|\.c\$|.o|") "$2.o" -o "$2" -lm
}
_t30_refuse() {   # REV: refused under results/, accepted elsewhere and with --allow-dirty
    local d=$TEST_LOG_DIR/rev-$1 bin
    rm -rf "$d"; mkdir -p "$d/results/x" "$d/elsewhere"
    bin=$d/cpu-grouped
    _t30_rev_binary "$1" "$bin" || return 1
    if "$bin" --ne 8 --steps 20 --equil 0 --quiet --csv "$d/results/x/r.csv" 2>"$d/err"; then
        echo "a $1 build appended to results/"; return 1
    fi
    grep -q "not a committed revision" "$d/err" || { cat "$d/err"; return 1; }
    [ ! -s "$d/results/x/r.csv" ] || { echo "a row was written"; return 1; }
    "$bin" --ne 8 --steps 20 --equil 0 --quiet --csv "$d/elsewhere/r.csv" || return 1
    "$bin" --ne 8 --steps 20 --equil 0 --quiet --allow-dirty --csv "$d/results/x/r.csv" || return 1
    grep -q -- "$1" "$d/results/x/r.csv" || { echo "the row does not name $1"; return 1; }
}
if command -v cc >/dev/null && [ -f $b/variants/cpu-grouped.o ]; then
    t_ok provenance-dirty-refused _t30_refuse abc1234-dirty
    t_ok provenance-unknown-refused _t30_refuse unknown
else
    t_skip provenance-dirty-refused "no C compiler or objects to link a stand-in build"
fi

# Runs that fail say so: status unstable, exit 4, and --check on such a state fails.
t_error unstable-overlap 4 'atoms overlap at the start' $b/cpu-grouped --rho 3 --ne 8 --steps 100 --equil 10 --quiet
t_error unstable-dt 4 'unstable' $b/cpu-grouped --dt 0.05 --ne 8 --steps 2000 --equil 100 --quiet
t_error unstable-temp 4 'unstable' $b/cpu-grouped --temp 1000 --ne 8 --steps 2000 --equil 100 --quiet
_t30_unstable_row() {
    local csv=$TEST_LOG_DIR/unstable.csv
    rm -f "$csv"
    $b/cpu-grouped --dt 0.05 --ne 8 --steps 2000 --equil 100 --quiet --csv "$csv" && return 1
    [ "$(python3 runs/csvq.py get "$csv" status)" = unstable ]
}
t_ok unstable-row-says-so _t30_unstable_row
_t30_unstable_check() {   # exit 4, the row unstable and its check's verdict fail (check_row)
    local csv=$TEST_LOG_DIR/unstable-check.csv rc=0
    rm -f "$csv"
    $b/cpu-grouped --ne 8 --steps 300 --equil 100 --drift-limit 1e-9 --check --quiet --csv "$csv" 2>&1 || rc=$?
    [ -s "$csv" ] || { echo "exit $rc, no row"; return 1; }
    check_row "$csv" fail || return 1
    [ $rc -eq 4 ] && [ "$(python3 runs/csvq.py get "$csv" status)" = unstable ]
}
t_ok unstable-check-fails _t30_unstable_check
