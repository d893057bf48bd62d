#!/usr/bin/env bash
# runs/device/seam.sh - issue 26's measurement of a refactor step against a base revision, in one
# device call: the base and the new tree built side by side, then
#   physics  runs/same_physics.sh over every GPU program of both, in each PHYS_PRECISIONS: double,
#            U, W and per-atom errors at step 0 within 1e-12 and the rebuild steps over 500
#            steps; float, both builds' checks passing (U, W, rebuilds reported);
#   suite    the whole test suite on the new tree (TEST_JOBS=16, at most SUITE_S seconds), or the
#            case files SUITE_FILES names, one tests/run.sh pattern after another; the logs of
#            the failed tests beside;
#   fig6     runs/rumd_figs.sh part fig6 on the new tree (FIG6_SIZES "sc:8 fcc:8 sc:16 fcc:16 sc:32", FIG6_CODES
#            "rumd-default layer n2"): a program composed from the parts beside the ones it
#            differs from by one stage (issue 26, item 7);
#   launch   runs/device/launch.sh on the new tree (the tour's "launch" stop: gpu-rumd one launch
#            per stage, a graph or one launch per chunk), LAUNCH_ROUNDS interleaved rounds;
#   speed    runs/compare.sh's suite SEAM_SUITE, by default seam (every GPU program at SP 4096 and 1M, LJ 1M, lammps-lj
#            512, 4096 and 1M; float), interleaved pairs, medians and intervals.
# Here: runs/device/snap.sh (HEAD -> .snap.tar) and `git archive BASE >.snap-base.tar` (the base);
# the call carries [".snap.tar", ".git-rev", ".snap-base.tar", ".git-rev-base"] and runs
#   runs/device/snap.sh --run runs/device/seam.sh
# Everything lands in $OUT/seam.tgz (same_physics.csv, the compare CSV and report, the logs), beside
# $OUT/summary.txt: two files, so that a call running the script several times (OUT=$OUT/a, ...)
# stays within the files a device call brings back (8).
# Settings: runs/device/seam.sh --help (flags, or the environment: PARTS="physics suite" ...).
# A second call on the warm machine can start in the tree the first one unpacked
# (cd /tmp/nbrlab-snap && runs/device/seam.sh): the base and the new build are kept.
set -u
. "$(dirname "$0")/lib.sh"
settings_begin "runs/device/seam.sh [settings]" "issue 26's refactor step against a base revision, in one device call (header: runs/device/seam.sh)"
setting OUT /tmp/seam-out "where everything lands (seam.tgz; the device tool's \$OUT)"
setting PARTS "physics speed" "the parts: physics suite fig6 launch speed"
setting SUITE_S 330 "seconds the suite may take"
setting SUITE_FILES "" "tests/run.sh patterns run one after another (empty: the whole suite)"
setting LAUNCH_ROUNDS 3 "the launch part's interleaved rounds"
setting SEAM_PAIRS 10 "compare.sh's --min-pairs (10: the fewest with which its test can call one of 28 cases slower)"
setting SEAM_MAX 10 "compare.sh's --max-pairs"
setting SEAM_BUDGET 240 "compare.sh's --budget, seconds of compare runs"
setting SEAM_ONLY "" "compare.sh's --only globs (empty: every case of the suite)"
setting SEAM_SUITE seam "compare.sh's suite (runs/suites.txt: seam, onchip, ...)"
setting JOBS 16 "make -j, compare.sh's --jobs"
setting PHYS_PROGRAMS "" "same_physics.sh's --programs (empty: its default)"
setting PHYS_PRECISIONS double "same_physics.sh's --precision, one run each (double float)"
setting FIG6_SIZES "sc:8 fcc:8 sc:16 fcc:16 sc:32" "fig6's SIZES"
setting FIG6_CODES "rumd-default layer n2" "fig6's FIG6 (the codes)"
settings_parse "$@"
export PATH=$PATH:/usr/local/cuda/bin NBR_LOCK=none
W=$(mktemp -d /tmp/seam-work.XXXXXX)   # the parts' files, packed into $OUT/seam.tgz
mkdir -p "$OUT" "$W/logs"
base=/tmp/nbrlab-seam-base
t0=$(date +%s)
say() { echo "[$(( $(date +%s) - t0 )) s] $*" | tee -a "$W/summary.txt"; }
pack() {
    local parts=(summary.txt logs) d
    for d in same-physics compare failed-logs fig6 launch test-units; do [ -d "$W/$d" ] && parts+=("$d"); done
    tar czf "$OUT/seam.tgz" -C "$W" "${parts[@]}"
    cp "$W/summary.txt" "$OUT/"
}
want=$PARTS suite_s=$SUITE_S suite_files=$SUITE_FILES launch_rounds=$LAUNCH_ROUNDS pairs=$SEAM_PAIRS max_pairs=$SEAM_MAX
budget=$SEAM_BUDGET only=$SEAM_ONLY suite=$SEAM_SUITE fig6_sizes=$FIG6_SIZES fig6_codes=$FIG6_CODES phys_programs=$PHYS_PROGRAMS phys_precs=$PHYS_PRECISIONS
# this script's own settings go no further: the suite and the drivers it runs read PARTS etc. too
unset PARTS SUITE_S SUITE_FILES LAUNCH_ROUNDS SEAM_PAIRS SEAM_MAX SEAM_BUDGET SEAM_ONLY SEAM_SUITE FIG6_SIZES FIG6_CODES PHYS_PROGRAMS PHYS_PRECISIONS
[ "$pairs" -ge 5 ] || { echo "seam.sh: SEAM_PAIRS=$pairs: compare.sh needs at least 5 pairs for its interval" >&2; exit 2; }
[ -f .snap-base.tar ] || { echo "seam.sh: carry .snap-base.tar (git archive BASE)" >&2; exit 2; }
# the new tree is this one (snap.sh unpacked it); the base goes beside it
cp .snap-base.tar .git-rev-base /tmp/ 2>/dev/null
# a second call on a warm machine keeps the base tree it built (make then finds nothing to do)
if ! cmp -s /tmp/.git-rev-base "$base/.git-rev" 2>/dev/null; then
    rm -rf "$base" && mkdir -p "$base" && tar xf /tmp/.snap-base.tar -C "$base" && cp /tmp/.git-rev-base "$base/.git-rev"
fi
say "base $(cat "$base/.git-rev"), new $(cat .git-rev)"
(cd "$base" && make -j"$JOBS" all >"$W/logs/build-base.log" 2>&1) & pb=$!
make -j"$JOBS" all >"$W/logs/build-new.log" 2>&1; rn=$?
wait $pb; rb=$?
[ $rn = 0 ] && [ $rb = 0 ] || { say "build failed (new $rn, base $rb)"; tail -20 "$W/logs/build-new.log" "$W/logs/build-base.log"; pack; exit 1; }
say "built both"
if [[ " $want " == *" physics "* ]]; then
    for prec in $phys_precs; do
        runs/same_physics.sh ${phys_programs:+--programs "$phys_programs"} --precision "$prec" \
            --out "$W/same-physics/$prec" "build:$base/build" build:build >"$W/logs/same-physics-$prec.txt" 2>&1
        say "physics $prec: exit $? ($(tail -1 "$W/logs/same-physics-$prec.txt"))"
        pack
    done
fi
if [[ " $want " == *" suite "* ]]; then
    end=$(( $(date +%s) + suite_s ))
    : >"$W/logs/make-test.log"
    for pat in ${suite_files:-ALL}; do
        [ "$pat" = ALL ] && pat=
        left=$(( end - $(date +%s) ))
        [ $left -gt 0 ] || { echo "suite: no time left for $pat" >>"$W/logs/make-test.log"; break; }
        TEST_JOBS=16 timeout "$left" tests/run.sh $pat >>"$W/logs/make-test.log" 2>&1
        say "suite ${pat:-(all)} (rc $?): $(tail -1 "$W/logs/make-test.log")"
    done
    # the suite prints its units in order, so one cut short hides those that finished after it:
    # each unit's own output (tests/run.sh keeps it, <k>.done once finished) comes back too
    if [ -d build/test-logs/units ]; then
        rm -rf "$W/test-units" && cp -r build/test-logs/units "$W/test-units"
        say "suite units: $(ls "$W/test-units" | grep -c '\.done$') of $(ls "$W/test-units" | grep -vc '\.done$') finished;" \
            "$(cat "$W"/test-units/[0-9]* 2>/dev/null | grep -c '^PASS') PASS, $(cat "$W"/test-units/[0-9]* 2>/dev/null | grep -c '^FAIL') FAIL in their output"
    fi
    grep -hE '^FAIL' "$W/logs/make-test.log" "$W"/test-units/[0-9]* 2>/dev/null | sort -u | head -20 | tee -a "$W/summary.txt"
    mkdir -p "$W/failed-logs"
    grep -hE '^FAIL' "$W/logs/make-test.log" "$W"/test-units/[0-9]* 2>/dev/null | sort -u | sed -E 's/^FAIL  //; s/: (exit code|output lacks|message lacks|stderr has).*//' |
        while IFS= read -r name; do cp "build/test-logs/$name.log" "build/test-logs/$name.out" "$W/failed-logs/" 2>/dev/null; done
    pack
fi
if [[ " $want " == *" fig6 "* ]]; then
    PARTS=fig6 SIZES="$fig6_sizes" FIG6="$fig6_codes" \
        OUT_DIR="$W/fig6" ALLOW_DIRTY=1 runs/rumd_figs.sh >"$W/logs/fig6.txt" 2>&1
    say "fig6: exit $? ($(grep -c '^' "$W/fig6/rumd_fig6.csv" 2>/dev/null) lines in rumd_fig6.csv)"
    pack
fi
if [[ " $want " == *" launch "* ]]; then
    OUT="$W/launch" ROUNDS=$launch_rounds runs/device/launch.sh >"$W/logs/launch.txt" 2>&1
    say "launch: exit $?"
    cat "$W/launch/launch.txt" 2>/dev/null | tee -a "$W/summary.txt"
    pack
fi
if [[ " $want " == *" speed "* ]]; then
    runs/compare.sh --jobs "$JOBS" --min-pairs "$pairs" --max-pairs "$max_pairs" \
        --budget "$budget" ${only:+--only "$only"} --no-plot --out "$W/compare" \
        "build:$base/build" build:build "$suite" >"$W/logs/compare.txt" 2>&1
    say "speed: exit $? (0: no case slower beyond 5%; 1: one is; 2: could not compare or undecided)"
    pack
fi
cat "$W/summary.txt"
