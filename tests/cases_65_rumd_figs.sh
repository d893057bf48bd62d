# RUMD's figures and the gamdpy peer (issue 11, items 4 and 5), on a machine without a GPU:
#  - runs/gamdpy_bench.py compiles; its sizes resolve to nbrlab's lattices (sc:NE, fcc:NE, and
#    gamdpy's own fcc cells for a bare N); a bad size or plan is one line and exit 2;
#  - runs/rumd_figs.sh end to end with stand-ins for gpu-rumd, gpu-layer, gpu-old, gpu-n2, gpu-onchip and gpu-cluster
#    (the real cpu-pairlist on the flags it knows; NOT a benchmark): every part writes its tagged rows
#    and the tables print; a second run skips what is there;
#  - plots/rumd.py draws its figures and Table 2 with no CSV at all, from the stand-in rows
#    plus a gamdpy row, and stops with file and line on a damaged CSV;
#  - reference/rumd's CSVs have the columns the plot reads.
tmp=$TEST_LOG_DIR/rumd_figs
rm -rf "$tmp"
mkdir -p "$tmp/b/float" "$tmp/res/h200"

t_ok rumd-gamdpy-compiles python3 -m py_compile runs/gamdpy_bench.py
t_grep rumd-gamdpy-sizes "^sc \[8, 8, 8\] 512 / fcc \[64, 64, 64\] 1048576 / fcc \[4, 4, 8\] 512 / fcc \[8, 8, 8\] 2048$" \
    python3 -c "import sys; sys.path.insert(0, 'runs'); import gamdpy_bench as g
print(' / '.join(f'{l} {c} {n}' for l, c, n in map(g.parse_size, ['sc:8', 'fcc:64', '512', '2048'])))"
# the plan guard: gamdpy's linked lists + gridsync + UtilizeNIII is refused to the autotuner (tp 0,
# nothing launched) and run with UtilizeNIII off otherwise; other plans go through untouched
t_grep rumd-gamdpy-plan-guard '^refused tp=0 launched=False / ran NIII=False launched=True / other launched=True$' \
    python3 -c "
import sys, types; sys.path.insert(0, 'runs'); import gamdpy_bench as g
class S:
    def JIT_and_test_kernel(self, adjust_compute_plan=True): self.launched = True
g.shim_plan_guard(types.SimpleNamespace(Simulation=S))
bad = lambda: {'nblist': 'linked lists', 'gridsync': True, 'UtilizeNIII': True, 'tp': 2}
a = S(); a.launched = False; a.compute_plan = bad(); a.JIT_and_test_kernel(adjust_compute_plan=False)
b = S(); b.launched = False; b.compute_plan = bad(); b.JIT_and_test_kernel()
c = S(); c.launched = False; c.compute_plan = dict(bad(), gridsync=False); c.JIT_and_test_kernel(adjust_compute_plan=False)
print(f\"refused tp={a.compute_plan['tp']} launched={a.launched} / ran NIII={b.compute_plan['UtilizeNIII']} launched={b.launched} / other launched={c.launched}\")"
t_error rumd-gamdpy-bad-size 2 "size '513'" python3 runs/gamdpy_bench.py --sizes 513
t_error rumd-gamdpy-bad-plan 2 "unknown plan 'fast'" python3 runs/gamdpy_bench.py --sizes sc:8 --plans fast

t_grep rumd-reference-columns '^ok$' python3 -c "
import csv
p = list(csv.DictReader(open('reference/rumd/published_tps.csv')))
b = {r['gpu']: float(r['bandwidth_gbs']) for r in csv.DictReader(open('reference/rumd/gpu_bandwidth.csv'))}
s = list(csv.DictReader(open('reference/rumd/paper_statements.csv')))
assert all(float(r['tps']) > 0 and int(r['N']) >= 512 for r in p)
assert all(r['gpu'] in b for r in p) and 'H200' in b
assert {'t2_threads', 't2_switch', 'fig7_ldg', 'fig7_prefetch'} <= {r['id'] for r in s}
print('ok')"

real=$BUILD/float/cpu-pairlist
if [ ! -x "$real" ]; then
    t_skip rumd-figs-driver "$real not built"
else
    # the stand-in: keeps the flags a CPU variant knows (the knobs gpu-rumd alone has are dropped)
    cat >"$tmp/b/stand-in.sh" <<EOF
#!/usr/bin/env bash
keep=()
while [ \$# -gt 0 ]; do
    case \$1 in
        --system|--lattice|--ne|--steps|--equil|--csv|--tag|--rescale-every|--avg-block|--delta) keep+=("\$1" "\$2"); shift 2 ;;
        --quiet|--print-config|--allow-dirty) keep+=("\$1"); shift ;;
        --autotune) shift ;;
        *) case \${2:-} in --*|"") shift ;; *) shift 2 ;; esac ;;
    esac
done
exec $PWD/$real "\${keep[@]}"
EOF
    chmod +x "$tmp/b/stand-in.sh"
    # gpu-onchip's: refuses what the real one refuses (the loop flags it has not, N over its 16-bit
    # lists: one line each, exit 2, in gpu-onchip's words), then the stand-in above; its row gets
    # the tier and cluster knobs gpu-onchip writes (here cluster up to N = 2048, else grid)
    cat >"$tmp/b/onchip-stand-in.sh" <<'EOF'
#!/usr/bin/env bash
lat=sc ne=16 csv=/dev/null
a=("$@")
for ((i = 0; i < ${#a[@]}; i++)); do
    case ${a[i]} in
        --graph|--layers|--reorder-at|--reduce|--read|--leapfrog)
            echo "gpu-onchip: ${a[i]} is not a knob of gpu-onchip (see --help for the ones it has)" >&2; exit 2 ;;
        --lattice) lat=${a[i+1]} ;;
        --ne) ne=${a[i+1]} ;;
        --csv) csv=${a[i+1]} ;;
    esac
done
n=$((ne * ne * ne)); [ "$lat" = fcc ] && n=$((4 * n))
[ "$n" -le 65535 ] || { echo "gpu-onchip: N = $n atoms exceed this program's limit of 65535 (16-bit list indices): lower --ne" >&2; exit 2; }
lines() { if [ -f "$csv" ]; then wc -l <"$csv"; else echo 0; fi; }
before=$(lines)
"$(dirname "$0")/../stand-in.sh" "$@" || exit $?
if [ "$(lines)" -gt "$before" ]; then
    if [ "$n" -le 2048 ]; then k="tier=cluster cluster=16"; else k="tier=grid cluster=0"; fi
    sed -i "\$ s/\$/ $k/" "$csv"
fi
EOF
    chmod +x "$tmp/b/onchip-stand-in.sh"
    for b in gpu-rumd gpu-layer gpu-old gpu-n2 gpu-cluster; do ln -sf ../stand-in.sh "$tmp/b/float/$b"; done
    ln -sf ../onchip-stand-in.sh "$tmp/b/float/gpu-onchip"
    figs=(env PARTS="fig6 fig7 rapaport" BUILD="$tmp/b" OUT_DIR="$tmp/res/h200" NBR_LOCK=none ALLOW_DIRTY=1 SIZES="sc:8" RAP_SIZES="sp:8"
          FIG6="rumd-auto rumd-default layer old n2 onchip onchip-auto cluster" RAP_CODES="rumd-default rumd-auto layer cluster"
          TARGET=1e5 STEPS_MIN=1000 STEPS_MAX=1000 EQUIL=100 runs/rumd_figs.sh)
    t_grep rumd-figs-driver 'Fig\. 7: TPS, and full / disabled' "${figs[@]}"
    t_grep rumd-figs-tags '^12$' sh -c "cut -d, -f7 '$tmp/res/h200/rumd_fig6.csv' '$tmp/res/h200/rumd_fig7.csv' |
        grep -cE '^r6-(rumd-auto|rumd-default|layer|old|n2|onchip|onchip-auto|cluster)-sc8-s1000\$|^r7-(full|tp1|plain|nopf)-sc8-s1000-default\$'"
    # gpu-onchip's rows (both codes ran, through the stand-in's refusals) with the tier column read back
    t_grep rumd-figs-onchip-rows '^r6-onchip-auto-sc8-s1000 cluster ok / r6-onchip-sc8-s1000 cluster ok$' python3 -c "
import sys
sys.path.insert(0, 'runs'); import csvq  # the rows with knobs expanded (docs/csv.md)
rs = [r for r in csvq.read('$tmp/res/h200/rumd_fig6.csv').rows if r['tag'].startswith('r6-onchip')]
print(' / '.join(sorted(r['tag'] + ' ' + r['tier'] + ' ' + r['status'] for r in rs)))"
    t_grep rumd-figs-rapaport '^4$' sh -c "grep -cE ',r8-(rumd-default|rumd-auto|layer|cluster)-sp8-eq500-s1000,' '$tmp/res/h200/rumd_rapaport.csv'"
    # Rapaport's state point: equilibrated by rescaling (500 steps, every 20), so the rows measure
    # SP's T = 1 (the unrescaled protocol's melt from the lattice ended elsewhere; no column said so)
    t_grep rumd-figs-rapaport-state '^4 rows at T = 1' python3 -c "
import sys
sys.path.insert(0, 'runs'); import csvq  # the rows with knobs expanded (docs/csv.md)
rs = [r for r in csvq.read('$tmp/res/h200/rumd_rapaport.csv').rows if r['tag'].startswith('r8-')]
bad = [(r['tag'], r['temp_measured']) for r in rs if r['status'] != 'ok' or abs(float(r['temp_measured']) - 1) > 0.05]
print(f'{len(rs)} rows at T = 1' if rs and not bad else f'off the state point: {bad}')"
    t_grep rumd-figs-resume 'skip r6-rumd-auto-sc8-s1000' "${figs[@]}"
    # the table the driver prints: gpu-onchip's TPS (its two codes) with its tier's letter, then gpu-cluster's
    t_grep rumd-figs-onchip-table '^ +512( +[0-9]+){5} +[0-9]+ c +[0-9]+ c +[0-9]+$' "${figs[@]}"
    # AUTO_SIZES: the autotuned code at those sizes alone, the other codes at every size but gpu-n2's
    # above N2_MAX (512 here: sc:8 runs it, sc:10 does not)
    t_grep rumd-figs-auto-sizes '^r6-layer-sc10-s1000 r6-old-sc10-s1000 r6-rumd-default-sc10-s1000$' sh -c "
        env PARTS=fig6 FIG6='rumd-auto rumd-default layer old n2' BUILD='$tmp/b' OUT_DIR='$tmp/res/auto' NBR_LOCK=none ALLOW_DIRTY=1 SIZES='sc:8 sc:10' AUTO_SIZES=sc:8 N2_MAX=512 \
            TARGET=1e5 STEPS_MIN=1000 STEPS_MAX=1000 EQUIL=100 runs/rumd_figs.sh >/dev/null 2>&1
        cut -d, -f7 '$tmp/res/auto/rumd_fig6.csv' | grep -- '-sc10-' | sort | tr '\n' ' ' | sed 's/ \$//'"
    # gpu-onchip at N <= ONCHIP_MAX only (512 here: sc:8 runs both its codes, sc:10 neither), the
    # plan counting the same points (its last progress line: 5 of 5, done), no point failed (exit 0)
    t_grep rumd-figs-onchip-cut '^rc 0 \[5/5\] .*done.* / r6-layer-sc10-s1000 r6-layer-sc8-s1000 r6-onchip-auto-sc8-s1000 r6-onchip-sc8-s1000 r6-rumd-auto-sc8-s1000$' sh -c "
        rc=0; env PARTS=fig6 FIG6='rumd-auto layer onchip onchip-auto' BUILD='$tmp/b' OUT_DIR='$tmp/res/cut' NBR_LOCK=none \
            ALLOW_DIRTY=1 SIZES='sc:8 sc:10' AUTO_SIZES=sc:8 ONCHIP_MAX=512 TARGET=1e5 STEPS_MIN=1000 STEPS_MAX=1000 \
            EQUIL=100 runs/rumd_figs.sh >/dev/null 2>'$tmp/cut.err' || rc=\$?
        echo \"rc \$rc \$(grep -o '^\[[0-9]*/[0-9]*\].*' '$tmp/cut.err' | tail -1) / \$(cut -d, -f7 '$tmp/res/cut/rumd_fig6.csv' |
            grep '^r6-' | sort | tr '\n' ' ' | sed 's/ \$//')\""
    # ONCHIP_MAX's default is gpu-onchip's own limit (kernels/cuda/onchip.cuh)
    t_grep rumd-figs-onchip-max '^65535 65535$' sh -c "echo \$(grep -o 'ONCHIP_MAX_ATOMS = [0-9]*' kernels/cuda/onchip.cuh |
        grep -o '[0-9]*\$') \$(grep -o '^setting ONCHIP_MAX [0-9]*' runs/rumd_figs.sh | grep -o '[0-9]*\$')"
    # runs/device/gamdpy.sh's nbrlab parts through the same stand-ins (no gamdpy: its parts left
    # out): gpu-onchip's rows beside gpu-rumd's and gpu-layer's, the side-by-side table naming its tier
    t_grep rumd-gamdpy-ours-onchip '^r6-layer r6-onchip r6-onchip-auto r6-rumd-auto r6-rumd-default / 512 .*\( *[0-9.]+\) c +[0-9]+ \( *[0-9.]+\) c +- +- +-$' sh -c "
        env BUILD='$tmp/b' NBR_LOCK=none ALLOW_DIRTY=1 runs/device/gamdpy.sh --out '$tmp/gd' --parts 'ours ours-auto' --sizes sc:8 >/dev/null 2>&1
        echo \"\$(cut -d, -f7 '$tmp/gd/rumd_gamdpy_ours.csv' | grep '^r6-' | sed 's/-sc8-.*//' | sort | tr '\n' ' ')/ \$(grep '^ *512 ' '$tmp/gd/summary.txt' | sed 's/^ *//')\""
fi

if [ -n "${T80_NO_PLOTS:-}" ]; then
    t_skip rumd-plots "T80_NO_PLOTS set (a machine without PyPI: plots/venv.sh would try pip)"
elif py65=$(plots/venv.sh 2>"$tmp/venv.log"); then
    mkdir -p "$tmp/none" "$tmp/bad/h200"
    t_grep rumd-plots-no-data 'no autotuned rows yet' env NBR_RESULTS="$tmp/none" \
        sh -c "'$py65' plots/rumd.py --figures '$tmp/np' && cat '$tmp/np/rumd_table2.md' && ls '$tmp/np/rumd_fig6.png' '$tmp/np/rumd_fig7.svg' '$tmp/np/rumd_rapaport.png'"
    if [ -s "$tmp/res/h200/rumd_fig6.csv" ]; then
        # a gamdpy row as runs/gamdpy_bench.py writes it, at the revision of the rows beside it (the
        # same device call: the section's ratio column takes ratios only there)
        python3 - "$tmp/res/h200/gamdpy.csv" "$tmp/res/h200/rumd_fig6.csv" <<'PY'
import csv, sys
sys.path.insert(0, "runs")
import csvq  # the rows with knobs expanded (docs/csv.md)
import gamdpy_bench as g
rev = csvq.read(sys.argv[2]).rows[0]["git_rev"]
g.append_row(sys.argv[1], {"code": "gamdpy", "n": 512, "plan": "default", "tps": 90000, "status": "ok",
                           "device": "NVIDIA H200", "message": "two\nlines", "git_rev": rev})
PY
        t_grep rumd-plots-rows '\| h200 \| 512 \| ' env NBR_RESULTS="$tmp/res" \
            sh -c "'$py65' plots/rumd.py --figures '$tmp/figs' && cat '$tmp/figs/rumd_table2.md' && ls '$tmp/figs/rumd_fig6.svg'"
        # gpu-onchip's two columns name the tier its rows ran (the stand-in's: cluster at 512)
        t_grep rumd-plots-section '^\| 512 \| [0-9]+ \| [0-9]+ \| [0-9]+ \| [0-9]+ \| [0-9]+ \(cluster\) \| [0-9]+ \(cluster\) \| 90000 \| - \| [0-9.]+ \| 94406 \| - \|$' \
            env NBR_RESULTS="$tmp/res" "$py65" plots/rumd.py --section "$tmp/R.md"
        # where each tier stops paying: the largest N at which gpu-onchip in that tier beat every
        # other nbrlab code (the faster of its two codes; a tier that never won is not named)
        t_grep rumd-plots-tier-pays "^\{'block': 512, 'cluster': 2048\} / 4096 onchip-auto grid 0.89$" "$py65" -c "
import sys; sys.path.insert(0, 'plots'); import rumd, pandas as pd
f = lambda n, t, tier=None: pd.DataFrame(dict(nn=n, tps=t, **({'tier': tier} if tier else {})))
s6 = {('h200', 'onchip'): f([512, 2048, 4096], [100, 70, 60], ['block', 'cluster', 'grid']),
      ('h200', 'onchip-auto'): f([4096], [80], ['grid']),
      ('h200', 'rumd-auto'): f([512, 2048, 4096], [50, 60, 90]), ('h200', 'layer'): f([2048], [65])}
p = rumd.onchip_points(s6, 'h200').iloc[-1]
print(rumd.tier_pays(s6, 'h200'), '/', p.nn, p.code, p.tier, round(p.gain, 2))"
        if command -v gnuplot >/dev/null 2>&1; then
            t_ok rumd-plots-gnuplot env NBR_RESULTS="$tmp/res" sh -c \
                "gnuplot \"\$('$py65' plots/rumd.py --gnuplot '$tmp/gpd' '$tmp/gpo')\" && ls '$tmp/gpo/rumd_fig6.png' '$tmp/gpo/rumd_fig7.svg'"
        else
            t_skip rumd-plots-gnuplot "gnuplot is not installed"
        fi
        head -2 "$tmp/res/h200/rumd_fig6.csv" | sed '2s/$/,extra/' >"$tmp/bad/h200/rumd_fig6.csv"
        t_error rumd-plots-damaged-csv 1 'rumd_fig6\.csv line 2: [0-9]+ fields' \
            env NBR_RESULTS="$tmp/bad" "$py65" plots/rumd.py --figures "$tmp/bf"
    fi
else
    t_skip rumd-plots "no python with pandas and matplotlib (plots/venv.sh: $(tail -1 "$tmp/venv.log"))"
fi

# the launch-error shim, where numba-cuda and the carried gamdpy wheel are at hand (no GPU
# needed): a cuda.core launch error becomes numba's CudaAPIError with its code; an error that
# poisons the context stays as it is
whl=$(ls .whl/gamdpy-*.whl 2>/dev/null | head -1)
py65n=${NBR_NUMBA_PYTHON:-python3}
if [ -z "$whl" ] || ! "$py65n" -c 'import numba.cuda, cuda.core' >/dev/null 2>&1; then
    t_skip rumd-gamdpy-shims "needs numba-cuda (NBR_NUMBA_PYTHON=a python with it) and gamdpy's wheel in .whl/ (pip download --no-deps gamdpy==0.8.3 -d .whl; docs/device.md)"
else
    # python's own zipfile: the GPU machine has no unzip (the wheel was not unpacked there)
    rm -rf "$tmp/site" && mkdir -p "$tmp/site" && "$py65n" -m zipfile -e "$whl" "$tmp/site"
    t_grep rumd-gamdpy-shims '^converted 720 / sticky kept$' env PYTHONPATH="$tmp/site" "$py65n" -c "
import sys; sys.path.insert(0, 'runs'); import gamdpy_bench as g
g.shim_numpy(); import numba.cuda; g.shim_scipy()
import gamdpy as gp, numba.cuda.dispatcher as d
from cuda.core._utils.cuda_utils import CUDAError
from numba.cuda.cudadrv.driver import CudaAPIError
def fail(msg):
    def f(*a): raise CUDAError(msg)
    return f
d.launch = fail('CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE: too many blocks'); g.shim_launch_errors(gp)
try: d.launch()
except CudaAPIError as e: a = f'converted {e.code}'
d.launch = fail('CUDA_ERROR_ILLEGAL_ADDRESS: an illegal memory access'); g.shim_launch_errors(gp)
try: d.launch()
except CudaAPIError: b = 'sticky converted'
except CUDAError: b = 'sticky kept'
print(a, '/', b)"
fi
