#!/usr/bin/env bash
# plots/all.sh [TABLE...] - make plots: redraw every figure (or the TABLEs named) from the
# committed CSVs, with both tools, as PNG and SVG:
#   plots/out/mpl/<table>.png|svg   matplotlib (plots/mpl/<table>.py)
#   plots/out/gp/<table>.png|svg    gnuplot    (plots/gp/<table>.gp)
# The tables are defined in plots/tables.py; a table not run yet gives a figure that says
# so. A tool that is missing is reported and skipped (exit 0 if the other one drew);
# a damaged CSV stops with the file and line.
#   env: NBR_PLOTS_OUT (plots/out)  NBR_RESULTS (results)  NBR_GPU_MACHINE NBR_CPU_MACHINE
set -u
cd "$(dirname "$0")/.." || exit 1
out=${NBR_PLOTS_OUT:-plots/out}
ids=("$@")
[ ${#ids[@]} -gt 0 ] || ids=($(python3 -c 'import sys; sys.path.insert(0, "plots"); import tables; print(" ".join(t["id"] for t in tables.TABLES))'))
mkdir -p "$out/mpl" "$out/gp" "$out/data"
drawn=0

echo "gnuplot:"
if command -v gnuplot >/dev/null 2>&1; then
    python3 plots/figdata.py --gnuplot "$out/data" "${ids[@]}" || exit 2
    for id in "${ids[@]}"; do
        gnuplot -e "datadir='$out/data'; outdir='$out/gp'" "plots/gp/$id.gp" || exit 2
    done
    drawn=1
    echo "  -> $out/gp/"
else
    echo "  SKIP: gnuplot not installed (apt-get install gnuplot-nox)"
fi

echo "matplotlib:"
if python3 -c 'import matplotlib' 2>/dev/null; then
    for id in "${ids[@]}"; do
        python3 "plots/mpl/$id.py" "$out/mpl" || exit 2
    done
    drawn=1
else
    echo "  SKIP: matplotlib not installed (pip install matplotlib, or apt-get install python3-matplotlib)"
fi
[ $drawn = 1 ] || { echo "plots/all.sh: neither gnuplot nor matplotlib is installed: nothing drawn" >&2; exit 1; }
