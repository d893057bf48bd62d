# plots/gp/layout.gp - Neighbour matrix layout: W(m,i) by rows or transposed (GPU) (gnuplot).
# What is plotted is defined once, in plots/tables.py; plots/all.sh runs plots/figdata.py
# first, which writes the data and the plot commands that render.gp draws.
table = 'layout'
load 'plots/gp/render.gp'
