# plots/gp/chain.gp - CPU algorithm chain on one core (paper: Section 3, system S) (gnuplot).
# What is plotted is defined once, in plots/tables.py; plots/all.sh runs plots/figdata.py
# first, which writes the data and the plot commands that render.gp draws.
table = 'chain'
load 'plots/gp/render.gp'
