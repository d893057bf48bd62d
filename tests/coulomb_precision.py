"""tests/coulomb_precision.py - inputs and independent values for tests/cases_83_coulomb_precision.sh.

  positive N SEED FILE...  N atoms uniform in a cube (0.1 per A^3), charges in [0.5, 1]: a sum
                         without cancellation (condition 1), where only the accumulation errs
  cancelling FILE        400 charges +-1 (neutral) and two pairs 1e-6 A apart, (+1, +1) and
                         (+1, -1): terms of +-3.3e8 kcal/mol that cancel to leave E ~ 1e2, so a
                         double sum without compensation loses ~1e-10 of E; charges of +-1 make
                         q_i (q_j / r_ij) exact, so math.fsum of numpy's terms is the exact sum
  fsum FILE              E (kcal/mol) summed exactly (math.fsum) from the C reference's double
                         terms q_j / sqrt(dx dx + dy dy + dz dz), times q_i
  spread FILE            the relative sd of E from rounding the positions to float, first order:
                         u / sqrt(3) sqrt(sum (F_id x_id)^2) / |E|, u = 2^-24; then the sum's
                         condition sum |E_ij| / |E|
"""
import math
import sys

import numpy as np

K = 332.0636


def load(path):
    a = np.loadtxt(path, ndmin=2)
    return a[:, :3], a[:, 3]


def write(path, pos, q):
    np.savetxt(path, np.column_stack([pos, q]), fmt="%.17g")


def positive(n, seed, path):
    rng = np.random.default_rng(seed)
    side = (n / 0.1) ** (1 / 3)
    write(path, rng.uniform(0, side, (n, 3)), rng.uniform(0.5, 1, n))


def cancelling(path):
    rng = np.random.default_rng(7)
    side = (400 / 0.1) ** (1 / 3)
    pos = rng.uniform(0, side, (400, 3))
    q = np.where(np.arange(400) % 2, 1.0, -1.0)
    a, b = rng.uniform(0, side, 3), rng.uniform(0, side, 3)
    pos = np.vstack([pos[:100], a, a + [1e-6, 0, 0], pos[100:300], b, b + [0, 1e-6, 0], pos[300:]])
    q = np.concatenate([q[:100], [1, 1], q[100:300], [1, -1], q[300:]])
    write(path, pos, q)


def fsum(path):
    pos, q = load(path)
    x, y, z = pos.T
    terms = []
    for i in range(len(q) - 1):
        dx, dy, dz = x[i] - x[i + 1:], y[i] - y[i + 1:], z[i] - z[i + 1:]
        terms.extend((q[i] * (q[i + 1:] / np.sqrt(dx * dx + dy * dy + dz * dz))).tolist())
    return K * math.fsum(terms)


def spread(path):
    pos, q = load(path)
    e, fx2, a = 0.0, 0.0, 0.0
    for i in range(len(q)):
        d = pos[i] - pos
        r = np.sqrt((d * d).sum(axis=1))
        r[i] = np.inf
        e += 0.5 * K * q[i] * (q / r).sum()
        a += 0.5 * K * abs(q[i]) * (np.abs(q) / r).sum()
        f = K * q[i] * ((q / r ** 3)[:, None] * d).sum(axis=0)
        fx2 += ((f * pos[i]) ** 2).sum()
    return 2.0 ** -24 / math.sqrt(3) * math.sqrt(fx2) / abs(e), a / abs(e)


if __name__ == "__main__":
    cmd, args = sys.argv[1], sys.argv[2:]
    if cmd == "positive":   # N SEED FILE, more triples alike (one numpy start for all)
        for k in range(0, len(args), 3):
            positive(int(args[k]), int(args[k + 1]), args[k + 2])
    elif cmd == "cancelling":
        cancelling(args[0])
    elif cmd == "fsum":
        print(repr(float(fsum(args[0]))))
    elif cmd == "spread":
        print(*(repr(float(v)) for v in spread(args[0])))
    else:
        sys.exit(f"coulomb_precision.py: no command {cmd}")
