#!/usr/bin/env bash
# runs/rumd_figs.sh - RUMD's benchmark figures (Bailey et al. 2017) on this machine's GPU, with
# nbrlab's gpu-rumd (issue 11, item 4). Float, production timing (--stage-reps 0), the device
# deciding rebuilds and running ahead (--decide device --graph on --sample-every 100), 500
# untimed NVE steps first (the crystal melts), then the timed steps.
#
#   fig6      time steps per second (TPS) against N on the LAMMPS LJ benchmark (lammps-lj), for
#             gpu-rumd autotuned (r6-rumd-auto), gpu-rumd with RUMD's defaults (r6-rumd-default:
#             list auto, t_p / p_b by N, read-only cache), gpu-layer with the device settings
#             (r6-layer), gpu-old (r6-old) and gpu-n2 (r6-n2: gpu-layer's settings and stages with
#             RUMD's n2 W build, at N <= N2_MAX: over r6-layer, the W build's effect alone),
#             gpu-onchip (r6-onchip: one launch per chunk, --tier auto --list auto, no graphs: it
#             has no --graph; the row's tier column says which tier ran) and gpu-onchip autotuned
#             (r6-onchip-auto, at AUTO_SIZES), both at N <= ONCHIP_MAX (16-bit list indices)
#                                                          -> rumd_fig6.csv
#   table2    the autotuned parameters (list method, skin, p_b, t_p, N x t_p) of fig6's
#             autotuned rows (no run of its own; printed at the end)
#   fig7      each optimisation disabled in turn from the full code: r7-full, r7-tp1 (--tp 1),
#             r7-plain (--read plain: no read-only cache), r7-nopf (--prefetch off). The full
#             code is the autotuned parameters of fig6's row at that size (list, skin, p_b, t_p, sort interval;
#             FIG7_BASE=tuned) or RUMD's defaults (FIG7_BASE=default, or no autotuned row)
#                                                          -> rumd_fig7.csv
#   rapaport  Rapaport's SP and LJ (sc starts) through gpu-rumd (defaults and autotuned) beside
#             gpu-layer, so the two papers' methods meet on one plot, at Rapaport's state points:
#             his equilibration (RAP_EQUIL = 500 steps rescaled every 20 towards T = 1 (SP) or
#             1.2 (LJ)), then NVE, timed; the rows' temp_measured column is the production mean
#             (a run that misses T ends wrong-temp, exit 4)          -> rumd_rapaport.csv
#
# Sizes are lattice:NE (sc: N = NE^3, fcc: N = 4 NE^3): the powers of two 2^(3k) (sc) and
# 2^(3k+2) (fcc 4 (2^k)^3) from 512 to 2 097 152, fcc sizes 4 n^3 between, and fcc:102
# (4 244 832, the nearest cubic fcc count to 4 194 304; 2^(3k+1) counts are no cubic lattice).
# Timed steps per point: TARGET / N atom-steps rounded down to thousands, within
# [STEPS_MIN, STEPS_MAX]; the tag carries them, so a short run never replaces a long one.
# Rows go through run_point (runs/lib.sh): resumable, revision-checked, benchmarks take turns.
# Settings: runs/rumd_figs.sh --help (the table below, or the old variables; docs/drivers.md).
set -euo pipefail
cd "$(dirname "$0")/.."
. runs/lib.sh
settings_begin "runs/rumd_figs.sh [settings]" "RUMD 2017's Fig. 6, Fig. 7, Table 2 and Rapaport's systems through gpu-rumd"
. runs/tables_lib.sh
setting PARTS "fig6 fig7 rapaport" "the parts to run"
setting SIZES "sc:8 fcc:5 fcc:8 sc:16 fcc:10 fcc:13 fcc:16 fcc:20 sc:32 fcc:25 fcc:32 fcc:40 sc:64 fcc:50 fcc:64 fcc:80 sc:128 fcc:102" \
    "lattice:NE sizes (QUICK: sc:8 sc:16 fcc:64)"
setting FIG6 "rumd-auto rumd-default layer old n2 onchip cluster" "fig6's codes (also onchip-auto: gpu-onchip autotuned, at AUTO_SIZES)"
setting AUTO_SIZES "" "the sizes of fig6 at which rumd-auto and onchip-auto run (default SIZES; the search costs its budget per size)"
setting N2_MAX 262144 "gpu-n2 only at N up to this (all N^2 pairs at every rebuild, ~N^2 / 10^12 s)"
setting ONCHIP_MAX 65535 "gpu-onchip (onchip, onchip-auto) only at N up to this (its limit: 16-bit list indices)"
setting FIG7_SIZES "" "fig7's sizes (default SIZES)"
setting FIG7_BASE tuned "fig7's full code: tuned (fig6's autotuned row) or default (RUMD's defaults)"
setting RAP_SIZES "sp:16 sp:48 sp:100 lj:16 lj:48 lj:100" "rapaport's SYSTEM:NE points"
setting RAP_CODES "rumd-default rumd-auto layer cluster" "rapaport's codes"
setting TARGET 2e9 "atom-steps per point: timed steps = TARGET / N, in thousands (QUICK: 5e8)"
setting STEPS_MIN 1000 "timed steps at least"
setting STEPS_MAX 20000 "timed steps at most"
setting EQUIL 500 "untimed NVE steps first (fig6, fig7)"
setting RAP_EQUIL 500 "rapaport's equilibration, rescaled every 20 steps"
setting AUTOTUNE_BUDGET 60 "the autotuner's seconds per size"
setting AUTOTUNE_CACHE "" "the autotuner's cache (default BUILD/rumd-autotune.cache; set empty: none)"
setting TIMEOUT 300 "seconds per run (0: none)"
settings_parse "$@"
[ "$QUICK" = 1 ] && settings_prefer SIZES "sc:8 sc:16 fcc:64" TARGET 5e8
[ "$(settings_source FIG7_SIZES)" != default ] || FIG7_SIZES=$SIZES
[ "$(settings_source AUTO_SIZES)" != default ] || AUTO_SIZES=$SIZES
[ "$(settings_source AUTOTUNE_CACHE)" != default ] || AUTOTUNE_CACHE=$BUILD/rumd-autotune.cache

F=$BUILD/float
csv6=$OUT_DIR/rumd_fig6.csv csv7=$OUT_DIR/rumd_fig7.csv csvr=$OUT_DIR/rumd_rapaport.csv
run_opts=(--stage-reps 0 --decide device --graph on --sample-every 100 --avg-block 1000)
common=(--equil "$EQUIL" --rescale-every 1000000000 "${run_opts[@]}")
layer_dev=(--layers device --reorder-at device --reduce device --read ldg)
# gpu-onchip: the same loop but its own (one launch per chunk: no --graph, no layers / reorder / reduce)
onchip_common=(--equil "$EQUIL" --rescale-every 1000000000 --stage-reps 0 --decide device --sample-every 100
               --avg-block 1000 --tier auto --list auto)
autotune=(--autotune --autotune-budget "$AUTOTUNE_BUDGET")
[ -n "$AUTOTUNE_CACHE" ] && mkdir -p "$(dirname "$AUTOTUNE_CACHE")"
autotune+=(--autotune-cache "$AUTOTUNE_CACHE")

natoms() { local lat=$1 ne=$2; if [ "$lat" = fcc ]; then echo $((4 * ne * ne * ne)); else echo $((ne * ne * ne)); fi; }
timed_steps() {   # N -> timed steps
    awk -v n="$1" -v t="$TARGET" -v lo="$STEPS_MIN" -v hi="$STEPS_MAX" 'BEGIN {
        s = int(t / n / 1000) * 1000; if (s < lo) s = lo; if (s > hi) s = hi; print s }'
}
failed=0
point() {   # CSV TAG -- CMD...: run_point under TIMEOUT; a failure is counted, not fatal
    local csv=$1 tag=$2
    shift 3
    local pre=()
    [ "$TIMEOUT" != 0 ] && pre=(timeout "$TIMEOUT")
    # a program that stopped before its first row can leave the CSV empty, which csvq refuses
    [ -f "$csv" ] && [ ! -s "$csv" ] && rm -f "$csv"
    # run_point runs "$@" --csv ... --tag ...; timeout wraps the program itself
    run_point "$csv" "$tag" -- "${pre[@]}" "$@" || { failed=$((failed + 1)); echo "  FAILED: $tag" >&2; }
}
in_list() { local want=$1 s; shift; for s in "$@"; do [ "$s" = "$want" ] && return 0; done; return 1; }
has() { in_list "$1" $PARTS; }
for b in gpu-rumd gpu-layer gpu-old; do need_bin "$F/$b"; done
{ has fig6 && in_list cluster $FIG6; } || { has rapaport && in_list cluster $RAP_CODES; } && need_bin "$F/gpu-cluster"
has fig6 && in_list n2 $FIG6 && need_bin "$F/gpu-n2"
has fig6 && { in_list onchip $FIG6 || in_list onchip-auto $FIG6; } && need_bin "$F/gpu-onchip"
# the plan's size for the progress lines (runs/lib.sh): the points the loops below run
n_points=0
if has fig6; then
    for sz in $SIZES; do for code in $FIG6; do
        n=$(natoms "${sz%%:*}" "${sz#*:}")
        case $code in rumd-auto|onchip-auto) in_list "$sz" $AUTO_SIZES || continue ;; esac
        [ "$code" = n2 ] && [ "$n" -gt "$N2_MAX" ] && continue
        case $code in onchip|onchip-auto) [ "$n" -le "$ONCHIP_MAX" ] || continue ;; esac
        n_points=$((n_points + 1))
    done; done
fi
has fig7 && n_points=$((n_points + 4 * $(echo $FIG7_SIZES | wc -w)))
has rapaport && n_points=$((n_points + $(echo $RAP_CODES | wc -w) * $(echo $RAP_SIZES | wc -w)))
progress_start "$n_points"

if has fig6; then
    echo "== Fig. 6: TPS against N (lammps-lj) -> $csv6" >&2
    for sz in $SIZES; do
        lat=${sz%%:*} ne=${sz#*:} n=$(natoms "${sz%%:*}" "${sz#*:}")
        ts=$(timed_steps "$n") steps=$((EQUIL + ts))
        base=(--system lammps-lj --lattice "$lat" --ne "$ne" --steps "$steps" "${common[@]}")
        onchip=("$F/gpu-onchip" --system lammps-lj --lattice "$lat" --ne "$ne" --steps "$steps" "${onchip_common[@]}")
        id=$lat$ne-s$ts
        for code in $FIG6; do
            case $code in
                rumd-auto)    in_list "$sz" $AUTO_SIZES || continue
                              point "$csv6" "r6-rumd-auto-$id" -- "$F/gpu-rumd" "${base[@]}" --read ldg "${autotune[@]}" ;;
                rumd-default) point "$csv6" "r6-rumd-default-$id" -- "$F/gpu-rumd" "${base[@]}" --read ldg ;;
                layer)        point "$csv6" "r6-layer-$id" -- "$F/gpu-layer" "${base[@]}" "${layer_dev[@]}" ;;
                old)          point "$csv6" "r6-old-$id" -- "$F/gpu-old" "${base[@]}" --layers device --reorder-at device --reduce device ;;
                n2)           [ "$n" -le "$N2_MAX" ] || continue
                              point "$csv6" "r6-n2-$id" -- "$F/gpu-n2" "${base[@]}" "${layer_dev[@]}" ;;
                onchip)       [ "$n" -le "$ONCHIP_MAX" ] || continue
                              point "$csv6" "r6-onchip-$id" -- "${onchip[@]}" ;;
                onchip-auto)  in_list "$sz" $AUTO_SIZES && [ "$n" -le "$ONCHIP_MAX" ] || continue
                              point "$csv6" "r6-onchip-auto-$id" -- "${onchip[@]}" "${autotune[@]}" ;;
                cluster)      point "$csv6" "r6-cluster-$id" -- "$F/gpu-cluster" "${base[@]}" --reduce device ;;
                *) echo "rumd_figs.sh: unknown FIG6 code '$code'" >&2; exit 2 ;;
            esac
        done
    done
fi

if has fig7; then
    echo "== Fig. 7: each optimisation disabled in turn -> $csv7" >&2
    for sz in $FIG7_SIZES; do
        lat=${sz%%:*} ne=${sz#*:} n=$(natoms "$lat" "$ne")
        ts=$(timed_steps "$n") steps=$((EQUIL + ts))
        id=$lat$ne-s$ts
        knobs=()
        if [ "$FIG7_BASE" = tuned ] && [ -s "$csv6" ]; then
            t6=r6-rumd-auto-$id
            l=$(csv_val "$csv6" "$t6" list_method) tp=$(csv_val "$csv6" "$t6" tp)
            pb=$(csv_val "$csv6" "$t6" pb) dl=$(csv_val "$csv6" "$t6" delta) se=$(csv_val "$csv6" "$t6" sort_every)
            if [ "$l" != - ] && [ "$tp" != - ] && [ "$pb" != - ] && [ "$dl" != - ]; then
                knobs=(--list "$l" --tp "$tp" --pb "$pb" --delta "$dl")
                [ "$se" != - ] && knobs+=(--sort-every "$se")
                id=$id-tuned
            fi
        fi
        [ ${#knobs[@]} -gt 0 ] || id=$id-default
        base=(--system lammps-lj --lattice "$lat" --ne "$ne" --steps "$steps" "${common[@]}" "${knobs[@]}")
        point "$csv7" "r7-full-$id" -- "$F/gpu-rumd" "${base[@]}" --read ldg --prefetch on
        point "$csv7" "r7-tp1-$id" -- "$F/gpu-rumd" "${base[@]}" --read ldg --prefetch on --tp 1
        point "$csv7" "r7-plain-$id" -- "$F/gpu-rumd" "${base[@]}" --read plain --prefetch on
        point "$csv7" "r7-nopf-$id" -- "$F/gpu-rumd" "${base[@]}" --read ldg --prefetch off
    done
fi

if has rapaport; then
    echo "== Rapaport's SP and LJ through gpu-rumd -> $csvr" >&2
    for sz in $RAP_SIZES; do
        sys=${sz%%:*} ne=${sz#*:} n=$((ne * ne * ne))
        ts=$(timed_steps "$n") steps=$((RAP_EQUIL + ts))
        # Rapaport's start (sc lattice, |v| = sqrt(3T)) and equilibration (rescaled every 20 steps
        # towards the preset's T); NVE after it. The tag's -eq names the protocol: rows of the
        # unrescaled protocol (before) are not the same state and are not replaced by these.
        base=(--system "$sys" --ne "$ne" --steps "$steps" --equil "$RAP_EQUIL" --rescale-every 20 "${run_opts[@]}")
        id=$sys$ne-eq$RAP_EQUIL-s$ts
        in_list rumd-default $RAP_CODES && point "$csvr" "r8-rumd-default-$id" -- "$F/gpu-rumd" "${base[@]}" --read ldg
        in_list rumd-auto $RAP_CODES && point "$csvr" "r8-rumd-auto-$id" -- "$F/gpu-rumd" "${base[@]}" --read ldg \
            "${autotune[@]}"
        in_list layer $RAP_CODES && point "$csvr" "r8-layer-$id" -- "$F/gpu-layer" "${base[@]}" "${layer_dev[@]}"
        in_list cluster $RAP_CODES && point "$csvr" "r8-cluster-$id" -- "$F/gpu-cluster" "${base[@]}" --reduce device
    done
fi

# the tables, from the CSVs (python's csv module: no pandas needed here)
python3 - "$csv6" "$csv7" "$csvr" <<'PY'
import csv, os, re, sys
sys.path.insert(0, "runs"); import csvq  # knobs expanded (docs/csv.md)
def rows(p):
    if not os.path.exists(p): return []
    return [r for r in csvq.read(p).rows if r.get("status") == "ok" and not r.get("tag", "").startswith("autotune-")]
def tps(r):
    try: return 1e6 / float(r["us_per_step"])
    except (KeyError, ValueError, ZeroDivisionError): return float("nan")
def table(rs, prefix, roles):
    by = {}
    for r in rs:
        # the longest role first: r6-onchip-auto- is onchip-auto, not onchip
        m = re.match(prefix + r"(" + "|".join(sorted(roles, key=len, reverse=True)) + r")-", r["tag"])
        if m: by.setdefault(int(r["n"]), {})[m.group(1)] = r   # the last row of a role wins
    return by
c6 = ["rumd-auto", "rumd-default", "layer", "old", "n2", "onchip", "onchip-auto", "cluster"]
r6 = table(rows(sys.argv[1]), "r6-", c6)
def cell(d, k):   # TPS; gpu-onchip's with the tier that ran (block, cluster, grid)
    if k not in d: return f'{"-":>10}'
    t = d[k].get("tier", "-")
    return f'{tps(d[k]):>10.0f}' if t in ("-", "") else f'{f"{tps(d[k]):.0f} {t[0]}":>10}'
if r6:
    print("\nFig. 6 (lammps-lj, float): TPS (gpu-onchip's tier: b block, c cluster, g grid)")
    print(f'{"N":>9} {"rumd-auto":>10} {"rumd-def":>10} {"layer":>10} {"old":>10} {"n2":>10} {"onchip":>10} {"onchip-at":>10} {"cluster":>10}')
    for n in sorted(r6):
        print(f"{n:>9} " + " ".join(cell(r6[n], k) for k in c6))
    print("\nTable 2: autotuned parameters (paper: N x t_p >= 16 000 except the two smallest sizes; n2 -> sort near N = 8 000)")
    print(f'{"N":>9} {"list":>5} {"skin":>6} {"p_b":>5} {"t_p":>4} {"N x t_p":>9}')
    for n in sorted(r6):
        r = r6[n].get("rumd-auto")
        if r:
            nt = n * int(r["tp"]) if r.get("tp", "").isdigit() else "-"
            print(f'{n:>9} {r.get("list_method", "-"):>5} {r.get("delta", "-"):>6} {r.get("pb", "-"):>5} {r.get("tp", "-"):>4} {nt:>9}')
r7 = table(rows(sys.argv[2]), "r7-", ["full", "tp1", "plain", "nopf"])
if r7:
    print("\nFig. 7: TPS, and full / disabled")
    print(f'{"N":>9} {"full":>10} {"tp1":>10} {"plain":>10} {"nopf":>10}   {"/tp1":>6} {"/plain":>6} {"/nopf":>6}')
    for n in sorted(r7):
        d = r7[n]; f = tps(d["full"]) if "full" in d else float("nan")
        print(f"{n:>9} " + " ".join(f'{tps(d[k]):>10.0f}' if k in d else f'{"-":>10}' for k in ["full", "tp1", "plain", "nopf"]) + "   " +
              " ".join(f'{f / tps(d[k]):>6.2f}' if k in d else f'{"-":>6}' for k in ["tp1", "plain", "nopf"]))
rr = rows(sys.argv[3])
if rr:
    print("\nRapaport's systems through gpu-rumd: TPS")
    for r in sorted(rr, key=lambda r: (r["system"], int(r["n"]), r["tag"])):
        print(f'{r["system"]:>3} {int(r["n"]):>8} {r["tag"][3:].split("-" + r["system"])[0]:>13} {tps(r):>10.0f}  list={r.get("list_method","-")} tp={r.get("tp","-")} pb={r.get("pb","-")} skin={r.get("delta","-")}')
PY
[ $failed -eq 0 ] || { echo "rumd_figs.sh: $failed run(s) failed" >&2; exit 1; }
