# plots/gp/table2.gp - Table 2: one CPU core (cpu-layer) against the GPU, and the speed-up (gnuplot).
# What is plotted is defined once, in plots/tables.py; plots/all.sh runs plots/figdata.py
# first, which writes the data and the plot commands that render.gp draws.
table = 'table2'
load 'plots/gp/render.gp'
