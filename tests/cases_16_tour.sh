# The tour (runs/tour.py, runs/tour.ini, docs/tour.md; make tour). Every CPU stop runs and
# prints its figure (no timing is asserted: the figures are for reading); a GPU stop runs
# where a GPU is, else it must say SKIP. docs/tour.md must be what runs/tour.ini generates.
tour_out=$TEST_LOG_DIR/tour
mkdir -p "$tour_out"
t_grep tour-doc-current 'docs/tour.md is current' runs/tour.py check

# planted: a figure edited by hand in a copy of docs/tour.md must fail the check
tour_stale() {
    local doc=$tour_out/stale-tour.md
    sed '0,/[*][*]Claim[*][*]/s//**Claim** (edited)/' docs/tour.md >"$doc"
    cmp -s "$doc" docs/tour.md && { echo "the planted edit did not apply"; return 1; }
    TOUR_DOC=$doc runs/tour.py check && { echo "a stale docs/tour.md passed"; return 1; }
    echo "stale doc refused"
}
t_grep tour-doc-stale-fails 'stale doc refused' tour_stale

# planted: a stop whose run fails (a flag its program lacks) must fail make tour, naming it
tour_bad_run() {
    local ini=$tour_out/bad.ini
    printf '%s\n' '[bad]' 'title = planted' 'paper = none' 'kind = cpu' 'claim = x' \
        'run_a = build/double/cpu-grouped --ne 4 --steps 2 --equil 0 --read ldg' \
        'figure = {a.us_per_atom_step}' 'cpu_driver = x' 'h200 = x' 'why = x' >"$ini"
    TOUR_INI=$ini TOUR_OUT=$tour_out runs/tour.py run && { echo "a failing run passed"; return 1; }
    echo "failing run refused"
}
t_grep tour-bad-run-fails 'FAIL  bad: run a exited 2' tour_bad_run

for stop in $(runs/tour.py list | awk '$2 == "cpu" { print $1 }'); do
    t_grep "tour-cpu-$stop" 'measured here' env TOUR_OUT="$tour_out" runs/tour.py run "$stop"
done
for stop in $(runs/tour.py list | awk '$2 == "gpu" { print $1 }'); do
    if have_gpu; then
        t_grep "tour-gpu-$stop" 'measured here|SKIP' env TOUR_OUT="$tour_out" runs/tour.py run "$stop"
    else
        t_grep "tour-gpu-$stop-skips" '^SKIP .*needs' env TOUR_OUT="$tour_out" runs/tour.py run "$stop"
    fi
done
