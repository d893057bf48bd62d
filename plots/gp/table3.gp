# plots/gp/table3.gp - Table 3: old (Anderson 2008) and new list build against r_c (gnuplot).
# What is plotted is defined once, in plots/tables.py; plots/all.sh runs plots/figdata.py
# first, which writes the data and the plot commands that render.gp draws.
table = 'table3'
load 'plots/gp/render.gp'
