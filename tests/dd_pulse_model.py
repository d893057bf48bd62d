#!/usr/bin/env python3
"""A model of gpu-dd's ghost pulses (kernels/cuda/dd_domain.cu), on the CPU, in plain Python.

It follows the program's rules: domains px*py*pz of a periodic box; pulses axis by axis (the
axes with one domain first, then the split ones, z before y before x in each group), each axis
a pulse down (atoms within r_n of the low face, shifted by +L when leaving domain 0) and one
up (high face, -L when leaving the last domain), both chosen from the local atoms and the
ghosts of the axes before; the ghosts of a pulse appended after them. Then, per domain, the
pairs (local atom, any atom) closer than r_n are compared with the minimum-image brute force:
every pair must be found exactly once per direction. And with --dd-overlap's rule: no inner
atom (at least r_n inside every face between domains) may have a neighbour whose data came
from another rank. Usage: dd_pulse_model.py [seed] [--plant wrong-shift|same-axis-candidates]
(a planted fault must make it fail). Prints one line per grid and 'model: ok' or 'model: FAIL'.
"""
import random
import sys


def owner(x, L, p):
    c = int((x + 0.5 * L) * (p / L))
    return min(max(c, 0), p - 1)


def run(L, rn, dims, n, rng, plant):
    atoms_all = [[(rng.random() - 0.5) * L for _ in range(3)] for _ in range(n)]
    P = dims[0] * dims[1] * dims[2]
    coords = [(i % dims[0], i // dims[0] % dims[1], i // (dims[0] * dims[1])) for i in range(P)]
    rank_of = {c: i for i, c in enumerate(coords)}
    width = [L / d for d in dims]
    # per rank: list of (id, position, came from another rank)
    atoms = {i: [] for i in range(P)}
    for a, r in enumerate(atoms_all):
        c = tuple(owner(r[k], L, dims[k]) for k in range(3))
        atoms[rank_of[c]].append((a, list(r), False))
    nloc = {i: len(atoms[i]) for i in range(P)}
    order = [a for a in (2, 1, 0) if dims[a] == 1] + [a for a in (2, 1, 0) if dims[a] > 1]
    for axis in order:
        ncand = {i: len(atoms[i]) for i in range(P)}
        sends = {}
        for i in range(P):
            c = coords[i]
            lo = -0.5 * L + c[axis] * width[axis]
            hi = lo + width[axis]
            for d in (-1, 1):
                cc = list(c)
                cc[axis] = (cc[axis] + d) % dims[axis]
                to = rank_of[tuple(cc)]
                if d < 0:
                    shift = L if c[axis] == 0 else 0.0
                else:
                    shift = -L if c[axis] == dims[axis] - 1 else 0.0
                if plant == "wrong-shift":
                    shift = -shift
                cands = atoms[i] if plant == "same-axis-candidates" else atoms[i][:ncand[i]]
                sel = []
                for (a, p, remote) in cands:
                    x = p[axis]
                    if (d < 0 and x < lo + rn) or (d > 0 and x >= hi - rn):
                        q = list(p)
                        q[axis] += shift
                        sel.append((a, q, remote or to != i))
                sends[(i, d)] = (to, sel)
            if plant == "same-axis-candidates":   # ghosts of the down pulse offered to the up pulse
                atoms[sends[(i, -1)][0]] += sends[(i, -1)][1]
                sends[(i, -1)] = (sends[(i, -1)][0], [])
        for d in (-1, 1):
            for i in range(P):
                to, sel = sends[(i, d)]
                atoms[to] += sel
    found, inner_remote = {}, 0
    for i in range(P):
        c = coords[i]
        A = atoms[i]
        for (a, p, _) in A[:nloc[i]]:
            inner = all(dims[k] == 1 or (p[k] >= -0.5 * L + c[k] * width[k] + rn and
                                         p[k] < -0.5 * L + (c[k] + 1) * width[k] - rn) for k in range(3))
            for (b, q, remote) in A:
                if b == a and p == q:
                    continue
                if sum((p[k] - q[k]) ** 2 for k in range(3)) < rn * rn:
                    found[(a, b)] = found.get((a, b), 0) + 1
                    inner_remote += inner and remote
    expected = set()
    for a in range(n):
        for b in range(n):
            if a == b:
                continue
            d2 = 0.0
            for k in range(3):
                x = atoms_all[a][k] - atoms_all[b][k]
                x -= L * round(x / L)
                d2 += x * x
            if d2 < rn * rn:
                expected.add((a, b))
    missing = sum(1 for p in expected if p not in found)
    extra = sum(1 for p in found if p not in expected)
    twice = sum(1 for v in found.values() if v != 1)
    return len(expected), missing, extra, twice, inner_remote


def main():
    args = sys.argv[1:]
    plant = None
    if "--plant" in args:
        k = args.index("--plant")
        plant = args[k + 1]
        del args[k:k + 2]
    rng = random.Random(int(args[0]) if args else 1)
    ok = True
    for dims in [(1, 1, 1), (2, 1, 1), (1, 1, 2), (2, 2, 1), (2, 2, 2), (3, 1, 1), (3, 2, 2), (4, 3, 2)]:
        exp, missing, extra, twice, inner_remote = run(10.0, 2.2, dims, 300, rng, plant)
        bad = missing or extra or twice or inner_remote
        ok = ok and not bad
        print(f"grid {dims[0]}x{dims[1]}x{dims[2]}: {exp} directed pairs, missing {missing}, extra {extra}, "
              f"found twice {twice}, inner atoms with remote neighbours {inner_remote}: {'FAIL' if bad else 'ok'}")
    print("model: ok" if ok else "model: FAIL")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
