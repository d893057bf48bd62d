# plots/gp/table8.gp - Table 8: performance over time without reordering, system S (GPU) (gnuplot).
# What is plotted is defined once, in plots/tables.py; plots/all.sh runs plots/figdata.py
# first, which writes the data and the plot commands that render.gp draws.
table = 'table8'
load 'plots/gp/render.gp'
