#!/usr/bin/env bash
# runs/device/gamdpy.sh - gamdpy 0.8.3 as a peer of gpu-rumd in one device call (issue 11,
# item 5): the LAMMPS LJ benchmark (lammps-lj) at N = 512, 4096, 32768, 262144 (sc starts
# 8^3 ... 64^3) and 1048576 (fcc 4 x 64^3), the same lattice for both codes.
# Run in the repository root after `make -j16 all`, with the wheel carried: the device call
# needs carry [".whl"] (.whl/ is ignored by git). Writes 4 files under $OUT:
#   rumd_gamdpy_ours.csv  nbrlab rows (runs/rumd_figs.sh fig6: gpu-rumd with RUMD's defaults, gpu-layer,
#                  gpu-onchip (tier by N, at N <= 65535: its rows name the tier), then gpu-rumd
#                  and gpu-onchip autotuned with AUTOTUNE_BUDGET s per size; their trial rows too;
#                  the codes: OURS, OURS_AUTO)
#   gamdpy.csv     runs/gamdpy_bench.py rows: default plan at every size, then the autotuned
#                  plan at GAMDPY_AT_SIZES while the time allows
#   log.txt        versions, the drivers' progress, each gamdpy child's whole output
#   summary.txt    TPS side by side, and ours over gamdpy's best at each N
# Wall time: about 3 minutes (TOTAL, default 175 s, caps the gamdpy autotuner's share; the
# nbrlab runs take ~1 min, gpu-onchip's autotuner AUTOTUNE_BUDGET s more per size up to 32768,
# gamdpy's default plans ~1 min).
# gamdpy's autotuner recompiles its kernels for every (p_b, t_p) it tries (seconds each), so one
# size takes minutes: a second call with PARTS=gamdpy-auto GAMDPY_AT_SIZES=sc:16 (TOTAL 170)
# gives it the whole time; its rows join gamdpy.csv of that call.
# Settings: runs/device/gamdpy.sh --help (flags, or the environment: PARTS=gamdpy-auto ...).
set -u
. "$(dirname "$0")/lib.sh"
settings_begin "runs/device/gamdpy.sh [settings]" "gamdpy 0.8.3 beside gpu-rumd, gpu-layer and gpu-onchip in one device call (the wheel carried in .whl)"
setting OUT /tmp/gamdpy-out "where the CSVs and logs land (the device tool's \$OUT)"
setting PARTS "ours gamdpy-default ours-auto gamdpy-auto" "the parts"
setting SIZES "sc:8 sc:16 sc:32 sc:64 fcc:64" "lattice:NE sizes"
setting TOTAL 175 "seconds in all: caps the gamdpy autotuner's share"
setting AUTOTUNE_BUDGET 6 "seconds of gpu-rumd's (and gpu-onchip's) autotuner per size"
setting OURS "rumd-default layer onchip" "part ours: runs/rumd_figs.sh's FIG6 codes (onchip: gpu-onchip, at N <= 65535)"
setting OURS_AUTO "rumd-auto onchip-auto" "part ours-auto: the autotuned codes (FIG6 of runs/rumd_figs.sh)"
setting GAMDPY_AT_SIZES "sc:16 fcc:64 sc:8" "the sizes gamdpy's autotuner tries, in order, while the time allows"
setting GAMDPY_TIMEOUT 90 "seconds per gamdpy child"
settings_parse "$@"
t0=$(date +%s)
has() { case " $PARTS " in *" $1 "*) return 0 ;; *) return 1 ;; esac; }
mkdir -p "$OUT"
log=$OUT/log.txt summary=$OUT/summary.txt
: >"$log"
: >"$summary"
elapsed() { echo $(($(date +%s) - t0)); }

# 1. the carried wheel (numba and numba-cuda are on the image)
{
    python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl
    echo "pip install rc $?"
} >>"$log" 2>&1
export PYTHONPATH=/tmp/site${PYTHONPATH:+:$PYTHONPATH}
python3 - >>"$log" 2>&1 <<'PY'
import importlib
for m in ("numpy", "numba", "numba_cuda", "cuda.core", "gamdpy"):
    try:
        if m == "gamdpy":
            import sys
            sys.path.insert(0, "runs")
            import gamdpy_bench
            gamdpy_bench.shim_numpy()
            import numba.cuda
            gamdpy_bench.shim_scipy()
        mod = importlib.import_module(m)
        print(f"{m} {getattr(mod, '__version__', '?')}")
    except Exception as e:
        print(f"{m}: {type(e).__name__}: {e}")
PY
nvidia-smi --query-gpu=name,memory.total,clocks.max.sm --format=csv,noheader >>"$log" 2>&1

# 2. ours: RUMD's defaults and gpu-layer at every size (fast), then gpu-rumd autotuned
common_env=(OUT_DIR="$OUT" PARTS=fig6 SIZES="$SIZES" TARGET=1e9 STEPS_MIN=1000 STEPS_MAX=10000
            AUTOTUNE_BUDGET="$AUTOTUNE_BUDGET" AUTOTUNE_CACHE=/tmp/rumd-autotune.cache TIMEOUT=60)
if has ours; then
    echo "== nbrlab: $OURS ($(elapsed) s)" >>"$log"
    env "${common_env[@]}" FIG6="$OURS" runs/rumd_figs.sh >>"$log" 2>&1 || echo "rumd_figs ($OURS) rc $?" >>"$log"
fi

# 3. gamdpy, default plan at every size
if has gamdpy-default; then
    echo "== gamdpy default plan ($(elapsed) s)" >>"$log"
    python3 runs/gamdpy_bench.py --sizes "${SIZES// /,}" --plans default --csv "$OUT/gamdpy.csv" \
        --timeout "$GAMDPY_TIMEOUT" --steps-target 5e8 --steps-max 10000 --log "$log" 2>&1 | tee -a "$summary"
fi

# 4. gpu-rumd autotuned
if has ours-auto; then
    echo "== nbrlab: $OURS_AUTO ($(elapsed) s)" >>"$log"
    env "${common_env[@]}" FIG6="$OURS_AUTO" runs/rumd_figs.sh >>"$log" 2>&1 || echo "rumd_figs ($OURS_AUTO) rc $?" >>"$log"
fi

# 5. gamdpy's autotuner with the time left
left=$((TOTAL - $(elapsed)))
echo "== gamdpy autotuned, $left s left ($(elapsed) s)" >>"$log"
if ! has gamdpy-auto; then
    :
elif [ "$left" -gt 20 ]; then
    at=$(echo $GAMDPY_AT_SIZES | tr ' ' ,)
    python3 runs/gamdpy_bench.py --sizes "$at" --plans autotuned --csv "$OUT/gamdpy.csv" --budget "$left" \
        --timeout "$GAMDPY_TIMEOUT" --steps-target 5e8 --steps-max 10000 --at-steps-target 2e7 --log "$log" 2>&1 | tee -a "$summary"
else
    echo "gamdpy autotuned: no time left (TOTAL=$TOTAL)" | tee -a "$summary"
fi

# 6. side by side
python3 - "$OUT/rumd_fig6.csv" "$OUT/gamdpy.csv" <<'PY' | tee -a "$summary"
import csv, os, re, sys
sys.path.insert(0, "runs"); import csvq  # knobs expanded (docs/csv.md)
ours, peer = {}, {}
if os.path.exists(sys.argv[1]):
    for r in csvq.read(sys.argv[1]).rows:
        # the longest code first: r6-onchip-auto- is onchip-auto, not onchip
        m = re.match(r"r6-(onchip-auto|onchip|rumd-auto|rumd-default|layer|old)-", r.get("tag", ""))
        if m and r.get("status") == "ok":
            ours.setdefault(int(r["n"]), {})[m.group(1)] = (1e6 / float(r["us_per_step"]), r)
if os.path.exists(sys.argv[2]):
    for r in csv.DictReader(open(sys.argv[2])):
        if r.get("status") == "ok":
            peer.setdefault(int(r["n"]), {})[r["plan"]] = (float(r["tps"]), r)
print("\nlammps-lj, float, TPS (us/step), same lattice start for both codes")
cols = [("rumd-default", ours), ("rumd-auto", ours), ("layer", ours), ("onchip", ours), ("onchip-auto", ours),
        ("default", peer), ("autotuned", peer)]
print("(gpu-onchip's cells end in the tier that ran: b block, c cluster, g grid)")
print(f'{"N":>8} ' + " ".join(f"{c:>22}" for c, _ in cols) + f'{"ours/gamdpy":>12}')
for n in sorted(set(ours) | set(peer)):
    cells = []
    for c, d in cols:
        v = d.get(n, {}).get(c)
        t = v[1].get("tier", "-") if v and d is ours else "-"
        cells.append(f"{v[0]:>10.0f} ({1e6 / v[0]:6.2f}) {t[0] if t not in ('-', '') else ' '}" if v else f'{"-":>22}')
    bo = max([v[0] for v in ours.get(n, {}).values()] or [0])
    bp = max([v[0] for v in peer.get(n, {}).values()] or [0])
    print(f"{n:>8} " + " ".join(cells) + (f"{bo / bp:>12.2f}" if bo and bp else f'{"-":>12}'))
for n in sorted(ours):
    a = ours[n].get("rumd-auto")
    if a:
        r = a[1]
        print(f"  gpu-rumd autotuned N={n}: list={r.get('list_method')} skin={r.get('delta')} pb={r.get('pb')} tp={r.get('tp')} nbr/atom={r.get('nbr_per_atom')}")
    a = ours[n].get("onchip-auto")
    if a:
        r = a[1]
        print(f"  gpu-onchip autotuned N={n}: tier={r.get('tier')} cluster={r.get('cluster')} tp={r.get('tp')} threads={r.get('threads')} list={r.get('list_method')} skin={r.get('delta')}")
for n in sorted(peer):
    for p, (t, r) in sorted(peer[n].items()):
        print(f"  gamdpy {p} N={n}: pb={r['pb']} tp={r['tp']} skin={r['skin']} gridsync={r['gridsync']} {r['nblist']} NIII={r['utilize_niii']} T_end={r['t_end']} {r['plan_note']}")
PY
# our rows of this call under the name results/<machine>/ keeps them by (rumd_fig6.csv there is
# the Fig. 6 sweep's; plots/rumd.py pairs gamdpy only with these)
[ -f "$OUT/rumd_fig6.csv" ] && mv "$OUT/rumd_fig6.csv" "$OUT/rumd_gamdpy_ours.csv"
[ -f "$OUT/rumd_fig6.csv.settings" ] && mv "$OUT/rumd_fig6.csv.settings" "$OUT/rumd_gamdpy_ours.csv.settings"
echo "wall time: $(elapsed) s" | tee -a "$summary"
exit 0
