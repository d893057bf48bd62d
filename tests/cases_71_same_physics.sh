# tests/cases_71_same_physics.sh - runs/same_physics.sh, the check that a refactor left the
# physics alone (issue 26): two builds of the same programs agree (exit 0, every row same), and
# it fails on each difference it is there to see, planted in the second build by wrappers
# (written here) that add one flag to the real program: --shift 0.999 (U moves, the forces
# not), --rebuild-frac 0.45 (step 0 the same, the rebuild steps not), --rc 1.2 on SP (U, W and
# the forces). CPU programs in double; about 30 s.
T71=$(mktemp -d "${TMPDIR:-/tmp}/nbrlab-t71.XXXXXX")
_t71_progs="cpu-layer cpu-grouped"
if [ ! -x "$BUILD/double/cpu-layer" ] || [ ! -x "$BUILD/double/cpu-grouped" ]; then
    t_skip same-physics "cpu-layer / cpu-grouped not built"
else
    # _t71_wrap NAME EXTRA...: build:$T71/NAME, the programs of $BUILD with EXTRA appended
    _t71_wrap() {
        local name=$1 p; shift
        mkdir -p "$T71/$name/double"
        for p in $_t71_progs; do
            printf '#!/bin/sh\nexec %q "$@" %s\n' "$PWD/$BUILD/double/$p" "$*" >"$T71/$name/double/$p"
            chmod +x "$T71/$name/double/$p"
        done
    }
    _t71_wrap same
    _t71_wrap shift --shift 0.999
    _t71_wrap frac --rebuild-frac 0.45
    _t71_wrap rc --rc 1.2
    # _t71_run NAME WANT_RC QUANTITY VERDICT: the comparison against build:NAME exits WANT_RC
    # and every row of QUANTITY on SP says VERDICT (same / differs)
    _t71_run() {
        local out=$T71/out-$1 rc
        runs/same_physics.sh --programs "$_t71_progs" --out "$out" "build:$BUILD" "build:$T71/$1" >"$out.log" 2>&1
        rc=$?
        tail -3 "$out.log"
        [ "$rc" = "$2" ] || { echo "exit $rc, expected $2"; cat "$out.log"; return 1; }
        python3 - "$out/same_physics.csv" "$3" "$4" <<'PY'
import csv, sys
rows = [r for r in csv.DictReader(open(sys.argv[1])) if r["quantity"] == sys.argv[2] and r["start"] == "sp"]
want = sys.argv[3]
print(f"{sys.argv[2]} rows on sp: {[r['verdict'] for r in rows]}, want {want}")
sys.exit(not rows or any(r["verdict"] != want for r in rows))
PY
    }
    t_ok same-physics-same-builds _t71_run same 0 U same
    t_ok same-physics-same-builds-rebuilds _t71_run same 0 rebuilds same
    t_ok same-physics-planted-shift-u _t71_run shift 1 U differs
    t_ok same-physics-planted-shift-forces-same _t71_run shift 1 force/atom same
    t_ok same-physics-planted-rebuild-frac _t71_run frac 1 rebuilds differs
    t_ok same-physics-planted-rebuild-frac-u-same _t71_run frac 1 U same
    t_ok same-physics-planted-rc-w _t71_run rc 1 W differs
    t_error same-physics-bad-precision 2 'same_physics.sh: --precision half: double or float' runs/same_physics.sh --precision half build:x build:y
fi
rm -rf "$T71"
