# coulomb's CSV row by value (the C reference; the OpenCL and CUDA paths write the same row
# through common/coulomb.c), against energies worked out by hand here, not read from the program:
#   NaCl cube (tests/data/coulomb/nacl_cube.xyzq: 2x2x2, charges +-1, spacing a = 2 A):
#     E = 332.0636 / a (-12 + 12/sqrt 2 - 4/sqrt 3); the condition sum|E_ij| / |E| =
#     (12 + 12/sqrt 2 + 4/sqrt 3) / (12 - 12/sqrt 2 + 4/sqrt 3)
#   two.pqr: two charges +0.5 at (0,0,0) and (0.9,1.2,0): r = 1.5, E = 332.0636 0.25 / 1.5
#   coulomb-csv-*-given     --e-ref given off the true energy (-1000): the energy column must
#                           be the computed energy, e_ref the given one, rel_error their
#                           difference, status over_tolerance (catches a row whose energy
#                           column holds the reference)
#   coulomb-csv-*-computed  the reference computed: e_ref, cond, rel_error, ref_source, status
#   coulomb-csv-*-float     --acc float: energy within float's 1e-4, rel_error consistent
#                           with the energy and e_ref columns
#   coulomb-csv-fake-clock-* test-coulomb-clock (tests/fake_clock.c: the j-th timed interval
#                           takes 5 3 1 4 1.5 9 2.5 7 ms, j = 0, 1, ...): with --e-ref given,
#                           --warmup 1 --reps 5 the warm-up takes 5 ms and the reps 3 1 4 1.5 9:
#                           t_eval_s (median) 0.003, t_min_s 0.001, pairs_per_s 28 / 0.003,
#                           t_ref_s 0; with the reference computed it takes the first interval
#                           (t_ref_s 0.005), the warm-up 3 ms, the reps 1 4 1.5 9 2.5: median
#                           0.0025, min 0.001, pairs_per_s 11200
#   coulomb-interrupt-*     SIGINT / SIGTERM a second into an evaluation at 10^6 atoms (minutes
#                           of OpenMP rows on 2 cores): its estimate said first, stopped within a
#                           second, the signal's exit code, one row with status interrupted and
#                           nothing measured (empty)
T81=$TEST_LOG_DIR/t81
mkdir -p "$T81"

# _t81_row NAME PROGRAM ARGS... -- PYTHON: runs PROGRAM on a fresh CSV, then the assertions
# in PYTHON with r (the row, a dict of strings), num(col), near(col, want, rel) at hand
_t81_row() {
    local csv=$T81/$1.csv prog=$2 args=() ; shift 2
    while [ "$1" != "--" ]; do args+=("$1"); shift; done
    shift
    rm -f "$csv"
    "$prog" "${args[@]}" --quiet --allow-dirty --csv "$csv" || return 1
    python3 - "$csv" "$1" <<'EOF'
import csv, math, sys
rows = list(csv.DictReader(open(sys.argv[1])))
assert len(rows) == 1, "%d rows" % len(rows)
r = rows[0]
K = 332.0636
s2, s3 = math.sqrt(2), math.sqrt(3)
E_NACL = K / 2 * (-12 + 12 / s2 - 4 / s3)
COND_NACL = (12 + 12 / s2 + 4 / s3) / (12 - 12 / s2 + 4 / s3)
E_TWO = K * 0.25 / 1.5
def num(c): return float(r[c])
def near(c, want, rel):
    got = num(c)
    ok = abs(got - want) <= rel * abs(want) + (1e-300 if want else rel)
    print("%-12s %-24s want %.17g (rel %g)%s" % (c, r[c], want, rel, "" if ok else "  <-- differs"))
    assert ok, "%s = %s, want %.17g" % (c, r[c], want)
def same(c, want):
    print("%-12s %-24s want %s" % (c, r[c], want))
    assert r[c] == want, "%s = %s, want %s" % (c, r[c], want)
exec(sys.argv[2])
EOF
}

# _t81_interrupt SIG ARGS...: coulomb ARGS (an evaluation of minutes) and SIG a second into it
# (T_SIGDFL: SIGINT not ignored where the suite runs as a background job)
_t81_interrupt() (
    set -m
    local sig=$1 csv=$T81/int-$1.csv pid rc k
    shift
    rm -f "$csv"
    "${T_SIGDFL[@]}" "$c" "$@" --reps 1 --quiet --csv "$csv" 2>"$T81/int-$sig.err" &
    pid=$!
    sleep 1
    kill -"$sig" $pid
    for k in $(seq 20); do kill -0 $pid 2>/dev/null || break; sleep 0.05; done
    kill -0 $pid 2>/dev/null && { kill -KILL $pid; echo "still running 1 s after SIG$sig"; return 1; }
    wait $pid; rc=$?
    [ $rc -eq $((128 + $(kill -l "$sig"))) ] || { echo "exit code $rc, not death by SIG$sig"; return 1; }
    # minutes of work: said first, with the flags that shorten it (issue 39 point 3)
    head -1 "$T81/int-$sig.err" | grep -q 'estimated .* --reps' || { echo "no estimate line first:"; cat "$T81/int-$sig.err"; return 1; }
    python3 - "$csv" <<'EOF'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
assert len(rows) == 1 and rows[0]["status"] == "interrupted", rows
r = rows[0]
assert r["n"] == "1000000" and r["t_eval_s"] == r["energy"] == r["rel_error"] == "", r
EOF
)

c=$BUILD/double/coulomb
cc=$BUILD/double/test-coulomb-clock
d=tests/data/coulomb
if [ ! -x "$c" ]; then
    t_skip coulomb-csv "$c not built"
else
    t_ok coulomb-csv-nacl-given _t81_row nacl-given "$c" --input $d/nacl_cube.xyzq --e-ref -1000 --reps 3 --warmup 0 -- '
same("n", "8"); same("input", "nacl_cube.xyzq"); same("ref_source", "given"); same("status", "over_tolerance")
near("energy", E_NACL, 1e-12)
near("e_ref", -1000, 0)
near("rel_error", (E_NACL + 1000) / 1000, 2e-4)
near("tolerance", 1e-12, 0)
near("t_ref_s", 0, 0)
assert r["cond"] == "nan", "cond %s: no condition for a given reference" % r["cond"]
assert 0 < num("t_min_s") <= num("t_eval_s"), "t_min_s %s, t_eval_s %s" % (r["t_min_s"], r["t_eval_s"])
near("pairs_per_s", 28 / num("t_eval_s"), 2e-5)'
    t_ok coulomb-csv-nacl-computed _t81_row nacl-computed "$c" --input $d/nacl_cube.xyzq --reps 1 --warmup 0 -- '
same("ref_source", "computed"); same("status", "ok")
near("energy", E_NACL, 1e-12)
near("e_ref", E_NACL, 1e-13)
near("cond", COND_NACL, 2e-4)
assert abs(num("rel_error")) <= 1e-12, "rel_error %s" % r["rel_error"]
assert num("t_ref_s") > 0, "t_ref_s %s: the reference was computed" % r["t_ref_s"]'
    t_ok coulomb-csv-two-pqr-float _t81_row two-float "$c" --input $d/two.pqr --acc float --reps 1 --warmup 0 -- '
same("n", "2"); same("ref_source", "computed"); same("status", "ok"); same("precision", "float")
near("energy", E_TWO, 1e-4)
near("e_ref", E_TWO, 1e-13)
near("cond", 1, 1e-4)
near("tolerance", 1e-4, 0)
near("rel_error", (num("energy") - num("e_ref")) / num("e_ref"), 1e-3) if num("rel_error") else None
assert abs(num("rel_error")) <= 1e-4'
    t_ok coulomb-interrupt-reference-sigint _t81_interrupt INT --random 1000000
    t_ok coulomb-interrupt-timed-sigterm _t81_interrupt TERM --random 1000000 --e-ref -1 --acc float --warmup 0
    if [ -x "$cc" ]; then
        t_ok coulomb-csv-fake-clock-given _t81_row clock-given "$cc" --input $d/nacl_cube.xyzq --e-ref -1000 \
            --warmup 1 --reps 5 -- '
near("t_eval_s", 0.003, 2e-5); near("t_min_s", 0.001, 2e-5); near("pairs_per_s", 28 / 0.003, 2e-5)
near("t_ref_s", 0, 0); near("energy", E_NACL, 1e-12)'
        t_ok coulomb-csv-fake-clock-computed _t81_row clock-computed "$cc" --input $d/nacl_cube.xyzq --warmup 1 \
            --reps 5 -- '
near("t_eval_s", 0.0025, 2e-5); near("t_min_s", 0.001, 2e-5); near("pairs_per_s", 11200, 2e-5)
near("t_ref_s", 0.005, 2e-5); near("e_ref", E_NACL, 1e-13)'
    else
        t_skip coulomb-csv-fake-clock "$cc not built"
    fi
fi
