# plots/gp/table5.gp - Table 5: shell thickness delta, system S (GPU) (gnuplot).
# What is plotted is defined once, in plots/tables.py; plots/all.sh runs plots/figdata.py
# first, which writes the data and the plot commands that render.gp draws.
table = 'table5'
load 'plots/gp/render.gp'
