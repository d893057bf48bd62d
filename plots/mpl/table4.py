#!/usr/bin/env python3
"""plots/mpl/table4.py - Table 4: energy conservation of system S over 10^5 steps (GPU) (matplotlib).
What is plotted is defined once, in plots/tables.py (see plots/mpl_render.py).
Usage: python3 plots/mpl/table4.py [OUTDIR]   (default plots/out/mpl)"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import mpl_render  # noqa: E402

sys.exit(mpl_render.main("table4", sys.argv[1:]))
