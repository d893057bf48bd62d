# plots/gp/table7.gp - Table 7: steps between reorderings N_R, system S (GPU) (gnuplot).
# What is plotted is defined once, in plots/tables.py; plots/all.sh runs plots/figdata.py
# first, which writes the data and the plot commands that render.gp draws.
table = 'table7'
load 'plots/gp/render.gp'
