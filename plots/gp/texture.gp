# plots/gp/texture.gp - Texture cache: how positions are read (GPU) (gnuplot).
# What is plotted is defined once, in plots/tables.py; plots/all.sh runs plots/figdata.py
# first, which writes the data and the plot commands that render.gp draws.
table = 'texture'
load 'plots/gp/render.gp'
