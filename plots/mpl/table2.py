#!/usr/bin/env python3
"""plots/mpl/table2.py - Table 2: one CPU core (cpu-layer) against the GPU, and the speed-up (matplotlib).
What is plotted is defined once, in plots/tables.py (see plots/mpl_render.py).
Usage: python3 plots/mpl/table2.py [OUTDIR]   (default plots/out/mpl)"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import mpl_render  # noqa: E402

sys.exit(mpl_render.main("table2", sys.argv[1:]))
