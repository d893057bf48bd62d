# plots/gp/table6.gp - Table 6: threads per block, system S (GPU) (gnuplot).
# What is plotted is defined once, in plots/tables.py; plots/all.sh runs plots/figdata.py
# first, which writes the data and the plot commands that render.gp draws.
table = 'table6'
load 'plots/gp/render.gp'
