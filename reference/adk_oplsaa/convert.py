#!/usr/bin/env python3
"""Convert MDAnalysisTests' solvated adenylate kinase (adk_oplsaa.tpr + adk_oplsaa.gro) to the
coulomb program's "x y z q" format, and compute its Coulomb energy independently (numpy).

Source: the PyPI package MDAnalysisTests 2.11.0 (LGPLv3+), files MDAnalysisTests/data/
adk_oplsaa.gro (positions, nm, 3 decimals) and adk_oplsaa.tpr (GROMACS run input: OPLS-AA
charges, TIP4P water). E. coli adenylate kinase (PDB 4AKE chain A, 3341 atoms), 4 Na+,
11 084 TIP4P waters (OW carries no charge, the virtual site MW -1.04 e, HW +0.52 e): 47 681
atoms, net charge 0.

    python3 -m venv /tmp/mda && /tmp/mda/bin/pip install MDAnalysis==2.11.0 MDAnalysisTests==2.11.0
    /tmp/mda/bin/python reference/adk_oplsaa/convert.py reference/adk_oplsaa

writes OUTDIR/adk_oplsaa.xyzq.gz (positions in Angstrom exactly as the .gro has them, i.e.
2 decimals; charges as the force field gives them, %.6g of the TPR's float32) and prints the
energy 332.0636 sum_{i<j} q_i q_j / r_ij of exactly those rounded numbers, in double, summed
row by row with numpy's pairwise summation and math.fsum over rows: an answer computed apart
from the C reference (kernels/cpu/coulomb_ref.c) that tests/cases_80_coulomb.sh compares with.
"""
import gzip
import math
import os
import sys

import numpy as np
import MDAnalysis as mda
from MDAnalysisTests.datafiles import GRO, TPR

COULOMB_K = 332.0636

def main():
    outdir = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__))
    u = mda.Universe(TPR, GRO)
    # the exact decimal values written: positions from the .gro (nm, 3 decimals) in Angstrom,
    # charges rounded to 6 significant digits (the force field's values; float32 noise off)
    pos = np.round(u.atoms.positions.astype(np.float64), 2)
    q = np.array([float("%.6g" % c) for c in u.atoms.charges])
    lines = ["%.2f %.2f %.2f %s" % (x, y, z, "%.6g" % c) for (x, y, z), c in zip(pos, q)]
    # read back what is written, so the energy below is of the file's numbers
    vals = np.array([[float(t) for t in l.split()] for l in lines])
    pos, q = vals[:, :3], vals[:, 3]
    n = len(q)
    path = os.path.join(outdir, "adk_oplsaa.xyzq.gz")
    # mtime 0: the same input gives the same bytes
    with open(path, "wb") as raw, gzip.GzipFile(filename="", mode="wb", fileobj=raw, mtime=0, compresslevel=9) as f:
        f.write(("# adenylate kinase (4AKE:A) in TIP4P water, OPLS-AA charges: MDAnalysisTests 2.11.0 "
                 "adk_oplsaa.gro + adk_oplsaa.tpr; %d atoms, x y z (Angstrom) q (e)\n" % n).encode())
        f.write(("\n".join(lines) + "\n").encode())
    rows = []
    for i in range(n - 1):
        d = pos[i + 1:] - pos[i]
        rows.append(q[i] * np.sum(q[i + 1:] / np.sqrt(np.einsum("ij,ij->i", d, d))))
    energy = COULOMB_K * math.fsum(rows)
    print("wrote %s: %d atoms, net charge %.3g e" % (path, n, q.sum()))
    print("energy %.15g kcal/mol" % energy)

if __name__ == "__main__":
    main()
