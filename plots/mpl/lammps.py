#!/usr/bin/env python3
"""plots/mpl/lammps.py - LAMMPS on one core beside the nbrlab CPU programs (matplotlib).
What is plotted is defined once, in plots/tables.py (see plots/mpl_render.py).
Usage: python3 plots/mpl/lammps.py [OUTDIR]   (default plots/out/mpl)"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import mpl_render  # noqa: E402

sys.exit(mpl_render.main("lammps", sys.argv[1:]))
