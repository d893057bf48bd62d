# plots/gp/table4.gp - Table 4: energy conservation of system S over 10^5 steps (GPU) (gnuplot).
# What is plotted is defined once, in plots/tables.py; plots/all.sh runs plots/figdata.py
# first, which writes the data and the plot commands that render.gp draws.
table = 'table4'
load 'plots/gp/render.gp'
