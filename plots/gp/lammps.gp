# plots/gp/lammps.gp - LAMMPS on one core beside the nbrlab CPU programs (gnuplot).
# What is plotted is defined once, in plots/tables.py; plots/all.sh runs plots/figdata.py
# first, which writes the data and the plot commands that render.gp draws.
table = 'lammps'
load 'plots/gp/render.gp'
