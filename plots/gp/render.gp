# plots/gp/render.gp - draws one table's figure; loaded by plots/gp/<table>.gp after it sets
# `table`. The numbers and labels come from plots/tables.py through plots/figdata.py, which
# writes $datadir/<table>/spec.gp (title, layout, and per panel the set-up and plot
# commands over its .dat files), so gnuplot and matplotlib draw the same data.
#   gnuplot -e "datadir='plots/out/data'; outdir='plots/out/gp'" plots/gp/table1.gp
if (!exists("datadir")) datadir = 'plots/out/data'
if (!exists("outdir")) outdir = 'plots/out/gp'
load sprintf('%s/%s/spec.gp', datadir, table)

set datafile commentschars '#'
width = cols == 1 ? 640 : 430 * cols   # a lone panel gets room for its tick labels
do for [fmt in "png svg"] {
    if (fmt eq "png") {
        set terminal pngcairo size width, 360 * rows + 40 font ",9" noenhanced
    } else {
        set terminal svg size width, 360 * rows + 40 font "sans,9" noenhanced
    }
    set output sprintf('%s/%s.%s', outdir, table, fmt)
    set multiplot layout rows, cols title fig_title . (strlen(fig_note) > 0 ? "\n" . fig_note : "")
    do for [p = 1:npanels] {
        unset logscale; unset label; set xtics autofreq; set autoscale
        set key below font ",8" samplen 2
        set grid
        set offsets 0, 0, graph 0.05, graph 0.05   # headroom: a reference line on the border hides
        eval setup[p]
        eval plotcmd[p]
    }
    unset multiplot
    set output
}
