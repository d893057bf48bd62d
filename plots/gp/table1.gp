# plots/gp/table1.gp - Table 1: GPU time per atom-step against system size (gnuplot).
# What is plotted is defined once, in plots/tables.py; plots/all.sh runs plots/figdata.py
# first, which writes the data and the plot commands that render.gp draws.
table = 'table1'
load 'plots/gp/render.gp'
