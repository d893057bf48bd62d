#!/usr/bin/env bash
# runs/device/smalln.sh - the small-N step of the device loop (issue 9), its two knobs side by
# side: gpu-layer, float, the device-resident loop (--layers device --reorder-at device --reduce
# device --decide device --graph cond --sample-every 100 --read ldg), SP at N = 4096 (ne 16),
# 32768 (ne 32), 110592 (ne 48, system S) and 1M (ne 100), and LJ at 1M (ne 100), for
#   --tp        1 2 4 8       lanes per atom of the W force kernel (force.cu)
#   --leapfrog  split fused   kick + decision + next kick_drift as three kernels or one
# in two interleaved rounds (every point once, then every point again, so a drift of the
# machine's clocks spreads over all points). Production timing (us_per_step: the median of the
# 1000-step blocks, 100-step blocks at 1M) and the kernel-level timing (--stage-reps 20:
# t_force_us, t_integrate_us, ... of each kernel replayed alone) in every row.
# Writes $OUT/smalln.csv (one row per run, tags smalln-<system>-ne<ne>-tp<tp>-<leapfrog>-r<round>)
# and $OUT/smalln.txt (per point the mean over the rounds of us_per_step, t_force_us and
# t_integrate_us; the last line the best settings at 4096 and 32768 against the targets of
# 8 and 12 us; rewritten after every round, so a call cut short keeps round 1's). 80 runs; an
# estimate, not measured: ~100 s on an H200 (process start-up dominates at small N), under
# all.sh's SMALLN_S (160); ROUNDS=1 halves it.
# Settings: runs/device/smalln.sh --help (flags, or the environment: ROUNDS=1 ...). ARGS adds
# flags to every run, e.g. ARGS="--wlayout col": at t_p >= 8 a warp reads only 32/t_p consecutive
# words of each row-layout W row, the column layout keeps an atom's lanes on consecutive words.
set -u
. "$(dirname "$0")/lib.sh"
settings_begin "runs/device/smalln.sh [settings]" "gpu-layer's --tp and --leapfrog at small N, interleaved rounds"
setting OUT /tmp/smalln-out "where smalln.csv and smalln.txt land (the device tool's \$OUT)"
setting BUILD build "the build directory gpu-layer is taken from"
setting TPS "1 2 4 8" "--tp values"
setting LEAPFROGS "split fused" "--leapfrog values"
setting ROUNDS 2 "interleaved rounds"
setting POINTS "sp:16 sp:32 sp:48 sp:100 lj:100" "system:ne points"
setting ARGS "" "more flags for every run"
settings_parse "$@"
cd "$(dirname "$0")/../.."
b=$BUILD/float/gpu-layer
if [ ! -x "$b" ]; then
    echo "smalln: $b is not built (make -j first)" >&2
    exit 1
fi
"$b" --help 2>/dev/null | grep -q -- '--leapfrog' ||
    { echo "smalln: $b has no --leapfrog (an older build: make -j first)" >&2; exit 1; }
mkdir -p "$OUT"
csv=$OUT/smalln.csv txt=$OUT/smalln.txt
rm -f "$csv"
loop="--layers device --reorder-at device --reduce device --decide device --graph cond --sample-every 100 --read ldg"
# steps and equilibration per point: a few thousand steps at small N, a few hundred at 1M
run_args() {
    case $1:$2 in
        sp:16 | sp:32) echo "--steps 4000 --equil 1000" ;;
        sp:48) echo "--steps 2500 --equil 500" ;;
        *) echo "--steps 600 --equil 200 --avg-block 100" ;;
    esac
}
# per point: means over the rounds so far (tags without -r<round>), into $txt; after every
# round, so a run cut short by its time limit still leaves a summary
summarize() {
    [ -s "$csv" ] || return 1
    awk -F, 'NR == 1 { for (k = 1; k <= NF; k++) c[$k] = k; next }
        $c["status"] != "ok" { next }   # a run that failed its check or went unstable is no point
        { t = $c["tag"]; sub(/-r[0-9]+$/, "", t)
          if (!(t in n)) order[++m] = t
          n[t]++; us[t] += $c["us_per_step"]; f[t] += $c["t_force_us"]; it[t] += $c["t_integrate_us"]
          nat[t] = $c["n"] }
        END {
          printf "%-34s %9s %8s %10s %10s %14s\n", "point", "N", "rounds", "us/step", "force_us", "integrate_us"
          for (k = 1; k <= m; k++) { t = order[k]
              printf "%-34s %9d %8d %10.2f %10.2f %14.2f\n", t, nat[t], n[t], us[t] / n[t], f[t] / n[t], it[t] / n[t]
              if (nat[t] == 4096 && (!b4 || us[t] / n[t] < best4)) { best4 = us[t] / n[t]; b4 = t }
              if (nat[t] == 32768 && (!b32 || us[t] / n[t] < best32)) { best32 = us[t] / n[t]; b32 = t } }
          printf "smalln: best at 4096 %s %.2f us/step (target 8), at 32768 %s %.2f us/step (target 12)\n",
                 b4, best4, b32, best32 }' <(python3 runs/csvq.py wide "$csv") >"$txt"
}
failed=0 t0=$SECONDS
for round in $(seq 1 "$ROUNDS"); do
    for point in $POINTS; do
        sys=${point%%:*} ne=${point##*:}
        for tp in $TPS; do
            for lf in $LEAPFROGS; do
                tag=smalln-$sys-ne$ne-tp$tp-$lf-r$round
                # shellcheck disable=SC2046
                if ! "$b" --system "$sys" --ne "$ne" $(run_args "$sys" "$ne") $loop --tp "$tp" --leapfrog "$lf" \
                    --stage-reps 20 $ARGS --csv "$csv" --tag "$tag" --quiet >"$OUT/$tag.out" 2>&1; then
                    echo "smalln: $tag failed: $(tail -1 "$OUT/$tag.out")"
                    failed=$((failed + 1))
                fi
            done
        done
    done
    summarize
    echo "smalln: round $round done at $((SECONDS - t0)) s"
done
summarize || { echo "smalln: no rows written" >&2; exit 1; }
cat "$txt"
[ "$failed" -eq 0 ] || { echo "smalln: $failed run(s) failed (their output in $OUT/*.out)"; exit 1; }
