#!/usr/bin/env bash
# plots/all.sh [TABLE...] - make plots: redraw every figure (or the TABLEs named) from the
# committed CSVs, with both tools, as PNG and SVG:
#   plots/out/mpl/<table>.png|svg   matplotlib (plots/mpl/<table>.py)
#   plots/out/gp/<table>.png|svg    gnuplot    (plots/gp/<table>.gp)
# The python side (pandas, matplotlib) runs in the project's virtual environment, which
# plots/venv.sh makes from the pinned plots/requirements.txt the first time. gnuplot draws
# where it is installed (apt-get install gnuplot-nox); without it matplotlib draws alone.
# The tables are defined in plots/tables.py; a table not run yet gives a figure that says
# so; a damaged CSV stops with the file and line.
# plots/out/ is committed: only the committed machines' committed CSVs draw there. Another
# machine (NBR_GPU_MACHINE, NBR_CPU_MACHINE) or other CSVs (NBR_RESULTS) draw into
# build/plots/<gpu>+<cpu>/ instead (plots/outdir.sh), so the tree stays clean.
#   env: NBR_PLOTS_OUT (the folder outright)  NBR_RESULTS (results)  NBR_GPU_MACHINE (h200)
#        NBR_CPU_MACHINE (cpu-amd-epyc)  NBR_VENV NBR_PYTHON (plots/venv.sh)
set -euo pipefail
cd "$(dirname "$0")/.."
out=$(plots/outdir.sh)
[ "$out" = plots/out ] || echo "plots/all.sh: not the committed machines' CSVs: figures go to $out/"
export NBR_PLOTS_OUT=$out   # the figure scripts' own links (figdata.fig_links)
py=$(plots/venv.sh) || { echo "plots/all.sh: no python with pandas and matplotlib (see above)" >&2; exit 1; }
ids=("$@")
[ ${#ids[@]} -gt 0 ] || read -r -a ids <<<"$("$py" -c 'import sys; sys.path.insert(0, "plots"); import tables; print(" ".join(t["id"] for t in tables.TABLES))')"
mkdir -p "$out/mpl" "$out/gp" "$out/data"
# Sirny 2010's Coulomb figures (plots/coulomb.py, matplotlib only): with every table, or when
# "coulomb" is named
# RUMD's figures (plots/rumd.py, matplotlib only; issue 11): likewise, or when "rumd" is named
# gpu-dd's multi-GPU figures (plots/dd.py, matplotlib only; issue 13): likewise, or "dd"
# the molten salt on the CPU against LAMMPS (plots/salt.py, matplotlib only; issue 12): likewise, or "salt"
coulomb=0 rumd=0 dd=0 salt=0
[ $# -eq 0 ] && coulomb=1 && rumd=1 && dd=1 && salt=1
rest=()
for id in "${ids[@]}"; do
    case $id in coulomb) coulomb=1 ;; rumd) rumd=1 ;; dd) dd=1 ;; salt) salt=1 ;; *) rest+=("$id") ;; esac
done
ids=(${rest[@]+"${rest[@]}"})

echo "matplotlib:"
for id in "${ids[@]}"; do
    "$py" "plots/mpl/$id.py" "$out/mpl" || exit 2
done

if [ $coulomb = 1 ]; then "$py" plots/coulomb.py --figures "$out/mpl" || exit 2; fi
if [ $rumd = 1 ]; then "$py" plots/rumd.py --figures "$out/mpl" || exit 2; fi
if [ $dd = 1 ]; then "$py" plots/dd.py --figures "$out/mpl" || exit 2; fi
if [ $salt = 1 ]; then "$py" plots/salt.py --figures "$out/mpl" || exit 2; fi

echo "gnuplot:"
if [ ${#ids[@]} -eq 0 ]; then
    echo "  (no gnuplot table named; the Coulomb figures are matplotlib only)"
elif command -v gnuplot >/dev/null 2>&1; then
    "$py" plots/figdata.py --gnuplot "$out/data" "${ids[@]}" || exit 2
    for id in "${ids[@]}"; do
        gnuplot -e "datadir='$out/data'; outdir='$out/gp'" "plots/gp/$id.gp" || exit 2
    done
    echo "  -> $out/gp/"
else
    echo "  SKIP: gnuplot is not installed (apt-get install gnuplot-nox): only the matplotlib figures were drawn"
fi
# RUMD's Fig. 6 and Fig. 7 in gnuplot too (plots/rumd.py writes their data and script)
if [ $rumd = 1 ] && command -v gnuplot >/dev/null 2>&1; then
    gp=$("$py" plots/rumd.py --gnuplot "$out/data" "$out/gp") || exit 2
    gnuplot "$gp" || exit 2
    echo "  rumd: rumd_fig6, rumd_fig7 -> $out/gp/"
fi
