#!/usr/bin/env python3
"""runs/gamdpy_bench.py - gamdpy (RUMD's successor, numba-cuda) on the LAMMPS LJ benchmark, as
a peer measured in the same device call as nbrlab's gpu-rumd (issue 11, item 5).

    runs/gamdpy_bench.py [--sizes LIST] [--plans default,autotuned] [--csv FILE] ...

The benchmark is nbrlab's --system lammps-lj: LJ 12-6 cut at r_c = 2.5 (gamdpy's
apply_shifted_potential_cutoff: the energy is shifted, the forces are those of LAMMPS's
lj/cut), density 0.8442, velocities at T = 1.44 from a lattice, NVE, dt = 0.005, single
precision (gamdpy's only precision). A size is given as nbrlab's drivers give it:
    sc:NE       simple cubic start, N = NE^3      (as gpu-rumd --lattice sc --ne NE)
    fcc:NE      fcc start, N = 4 NE^3             (as gpu-rumd --lattice fcc --ne NE)
    N           a number: fcc with gamdpy's own benchmark cells (a, a, 2a) or (a, a, a)
so that both codes start from the same lattice at the same N.

Plans: "default" is gamdpy's get_default_compute_plan; "autotuned" is its Simulation.autotune()
run on a copy of the same start with short trials (--at-steps-target), then timed like the
default. Each (size, plan) runs in a child process of its own (--one), under a timeout: a CUDA
error that poisons the context (an illegal address) loses that point only.

Shims, outside gamdpy (the first two the issue's findings on the H200 image, numba 0.68,
numba-cuda 0.30.4, NumPy >= 2.5; where scipy is missing, scipy.constants.Boltzmann, the one
scipy name gamdpy imports, is put in too):
  1. np.row_stack, removed from NumPy, is put back as np.vstack before numba is imported
     (numba-cuda still overloads it by name);
  2. kernel launch errors raised by cuda.core (numba-cuda's launcher) are re-raised as
     numba.cuda.cudadrv.driver.CudaAPIError, the exception gamdpy's JIT_and_test_kernel and
     autotuner catch to shrink tp or drop gridsync. Errors that poison the context (illegal
     address, launch failure) are not converted: they end the child at once.
and one plan guard: gamdpy's "linked lists + gridsync + UtilizeNIII=True" stopped with an
illegal address on the H200, so a plan with all three runs with UtilizeNIII=False (the
default plan at N = 32 768 is such a plan; the row's plan_note says so), and the autotuner
is told that combination fails (as if it could not launch) instead of trying it.

Output: one CSV row per point (--csv, appended; header written when the file is new), with
tps = timed steps / summed CUDA-event time of the timed blocks (gamdpy's own block timing,
kernel time only; the first block is a warm-up in which the crystal melts).
Prints one summary line per point.
"""
import argparse
import csv
import datetime
import json
import math
import os
import platform
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)

FIELDS = ["timestamp", "git_rev", "host", "device", "code", "version", "system", "size",
          "lattice", "cells", "n", "rho", "rc", "dt", "temp0", "plan", "pb", "tp", "skin",
          "gridsync", "nblist", "utilize_niii", "plan_note", "steps_per_block", "timed_blocks",
          "time_s", "tps", "us_per_step", "ns_per_atom_step", "t_end", "autotune_s", "wall_s",
          "status", "message"]

RHO, RC, DT, T0 = 0.8442, 2.5, 0.005, 1.44
MAX_NBS = 600   # neighbours per atom gamdpy may hold: ~150 at r_c + skin 1.0; 218 at skin 1.45


# ---------------------------------------------------------------- sizes

def parse_size(tok):
    """'sc:16' | 'fcc:64' | '4096' -> (lattice, cells [a, b, c], N)."""
    tok = tok.strip()
    if ":" in tok:
        lat, ne = tok.split(":", 1)
        ne = int(ne)
        if lat not in ("sc", "fcc") or ne < 1:
            raise ValueError(f"size '{tok}': expected sc:NE or fcc:NE")
        per = 1 if lat == "sc" else 4
        return lat, [ne, ne, ne], per * ne ** 3
    n = int(tok)
    if n % 4:
        raise ValueError(f"size '{tok}': an fcc count is a multiple of 4 (or give sc:NE)")
    m = n // 4
    a = round(m ** (1 / 3))
    if a ** 3 == m:
        return "fcc", [a, a, a], n
    a = round((m / 2) ** (1 / 3))
    if 2 * a ** 3 == m:
        return "fcc", [a, a, 2 * a], n          # as gamdpy's benchmark: (4,4,8) for 512
    raise ValueError(f"size '{tok}': 4 a^3 or 8 a^3 atoms (or give sc:NE / fcc:NE)")


def steps_for(n, target, smin, smax):
    s = int(target / n)
    s = max(smin, min(smax, s))
    return max(10, (s // 10) * 10)


# ---------------------------------------------------------------- provenance

def git_rev():
    try:
        rev = subprocess.run(["git", "-C", ROOT, "rev-parse", "--short=12", "HEAD"], capture_output=True,
                             text=True, check=True).stdout.strip()
        dirty = subprocess.run(["git", "-C", ROOT, "status", "--porcelain", "--untracked-files=no"],
                               capture_output=True, text=True).stdout.strip()
        return rev + ("-dirty" if dirty else "")
    except (OSError, subprocess.CalledProcessError):
        # a tree that travelled without .git: the revision runs/stamp_rev.sh wrote (the Makefile's rule)
        try:
            with open(os.path.join(ROOT, ".git-rev")) as f:
                return f.read().strip() or "unknown"
        except OSError:
            return "unknown"


# ---------------------------------------------------------------- shims (child only)

STICKY = ("ILLEGAL_ADDRESS", "LAUNCH_FAILED", "ILLEGAL_INSTRUCTION", "MISALIGNED_ADDRESS",
          "HARDWARE_STACK_ERROR", "ECC_UNCORRECTABLE")


def shim_numpy():
    import numpy as np
    if not hasattr(np, "row_stack"):
        np.row_stack = np.vstack


def shim_scipy():
    """After numba is imported (numba reads scipy.__version__ when scipy imports at all)."""
    # gamdpy's tools/conversion_factors.py imports scipy.constants.Boltzmann at import time (scipy
    # is not among its declared dependencies): where scipy is absent, that one constant (exact in
    # SI since 2019) stands in; nothing in the benchmark uses it
    try:
        import scipy.constants  # noqa: F401
    except ImportError:
        import types
        sc = types.ModuleType("scipy")
        sc.constants = types.ModuleType("scipy.constants")
        sc.constants.Boltzmann = 1.380649e-23
        sys.modules.setdefault("scipy", sc)
        sys.modules.setdefault("scipy.constants", sc.constants)


def _cuda_core_error(e):
    """True for an exception raised by cuda.core / cuda.bindings (not numba's own)."""
    mod = type(e).__module__ or ""
    return (mod.startswith("cuda.core") or mod.startswith("cuda.bindings") or
            type(e).__name__ == "CUDAError")


def _as_api_error(e):
    from numba.cuda.cudadrv.driver import CudaAPIError
    msg = str(e)
    name = msg.split(":", 1)[0].strip()
    code = -1
    try:
        from cuda.bindings import driver as cbd
        code = int(getattr(cbd.CUresult, name))
    except Exception:
        pass
    return CudaAPIError(code, msg)


def shim_launch_errors(gp):
    """Re-raise cuda.core launch errors as numba's CudaAPIError (what gamdpy catches). Patched
    where numba-cuda launches (numba.cuda.dispatcher.launch); where that name does not exist,
    around gamdpy's Simulation.integrate_self, which makes every launch of a step."""
    from numba.cuda.cudadrv.driver import CudaAPIError

    def convert(fn):
        def wrapped(*a, **k):
            try:
                return fn(*a, **k)
            except CudaAPIError:
                raise
            except Exception as e:
                if _cuda_core_error(e) and not any(s in str(e) for s in STICKY):
                    raise _as_api_error(e) from e
                raise
        return wrapped

    where = []
    try:
        import numba.cuda.dispatcher as disp
        if hasattr(disp, "launch"):
            disp.launch = convert(disp.launch)
            where.append("numba.cuda.dispatcher.launch")
    except ImportError:
        pass
    gp.Simulation.integrate_self = convert(gp.Simulation.integrate_self)
    where.append("Simulation.integrate_self")
    return where


def bad_plan(plan):
    return plan.get("nblist") == "linked lists" and bool(plan.get("gridsync")) and bool(plan.get("UtilizeNIII"))


def shim_plan_guard(gp):
    """gamdpy's plan 'linked lists + gridsync + UtilizeNIII' stopped with an illegal address on
    the H200 (issue 11). The autotuner tests a plan by JIT_and_test_kernel(adjust_compute_plan=
    False) and reads tp == 0 as 'cannot launch': say that for this plan without launching it."""
    orig = gp.Simulation.JIT_and_test_kernel

    def guarded(self, adjust_compute_plan=True):
        if bad_plan(self.compute_plan):
            if not adjust_compute_plan:
                self.compute_plan["tp"] = 0
                return None
            self.compute_plan["UtilizeNIII"] = False
        return orig(self, adjust_compute_plan)

    gp.Simulation.JIT_and_test_kernel = guarded


# ---------------------------------------------------------------- one point (child)

def make_configuration(gp, lattice, cells, seed):
    import numpy as np
    conf = gp.Configuration(D=3)
    if lattice == "fcc":
        unit = gp.unit_cells.FCC
    else:
        unit = {"fractional_coordinates": [[0.0, 0.0, 0.0]], "lattice_constants": [1.0, 1.0, 1.0]}
    conf.make_lattice(unit, cells=cells, rho=RHO)
    conf["m"] = 1.0
    conf.randomize_velocities(temperature=T0, seed=seed)
    return conf


def make_sim(gp, conf, plan, blocks, steps):
    pair_func = gp.apply_shifted_potential_cutoff(gp.LJ_12_6_sigma_epsilon)
    pot = gp.PairPotential(pair_func, params=[1.0, 1.0, RC], max_num_nbs=MAX_NBS)
    integ = gp.integrators.NVE(dt=DT)
    return gp.Simulation(conf, [pot], integ, [], num_timeblocks=blocks, steps_per_timeblock=steps,
                         storage="memory", compute_plan=plan)


def run_one(a):
    t_wall = time.time()
    os.environ.setdefault("NUMBA_CUDA_LOW_OCCUPANCY_WARNINGS", "0")
    shim_numpy()
    import numpy as np
    import numba.cuda  # noqa: F401
    shim_scipy()
    import gamdpy as gp
    from numba import cuda
    where = shim_launch_errors(gp)
    shim_plan_guard(gp)
    lattice, cells, n = parse_size(a.one)
    res = {"lattice": lattice, "cells": "x".join(map(str, cells)), "n": n, "plan": a.plan,
           "version": getattr(gp, "__version__", "?"), "shims": where}
    try:
        res["device"] = cuda.get_current_device().name
        if isinstance(res["device"], bytes):
            res["device"] = res["device"].decode()
    except Exception:
        res["device"] = "cudasim" if os.environ.get("NUMBA_ENABLE_CUDASIM") == "1" else "?"
    steps = steps_for(n, a.steps_target, a.steps_min, a.steps_max)
    notes = []
    conf = make_configuration(gp, lattice, cells, a.seed)
    if a.setup_only:
        plan = gp.get_default_compute_plan(conf)
        res.update(plan=a.plan, status="setup-only", steps_per_block=steps, message=json.dumps(plan))
        res.update({k: plan.get(k2) for k, k2 in [("pb", "pb"), ("tp", "tp"), ("skin", "skin"),
                   ("gridsync", "gridsync"), ("nblist", "nblist"), ("utilize_niii", "UtilizeNIII")]})
        return res
    plan = gp.get_default_compute_plan(conf)
    if bad_plan(plan):
        plan["UtilizeNIII"] = False
        notes.append("default plan had linked lists+gridsync+UtilizeNIII: run with UtilizeNIII=False")
    at_s = ""
    if a.plan == "autotuned":
        at_steps = steps_for(n, a.at_steps_target, 20, a.steps_max)
        conf_at = make_configuration(gp, lattice, cells, a.seed)
        sim_at = make_sim(gp, conf_at, dict(plan), 1, at_steps)
        t0 = time.time()
        sim_at.autotune()
        at_s = round(time.time() - t0, 1)
        plan = {k: v for k, v in sim_at.compute_plan.items() if k != "min_time"}
        del sim_at, conf_at
        notes.append(f"autotuned with {at_steps}-step trials")
    sim = make_sim(gp, conf, dict(plan), 1 + a.blocks, steps)
    plan = sim.compute_plan          # as gamdpy ran it (its test launch may have shrunk tp)
    for _ in sim.run_timeblocks():
        pass
    bt = np.asarray(sim.timing_numba_blocks, dtype=float)[1:] / 1000.0   # ms -> s; block 0 = warm-up
    t = float(bt.sum())
    v = np.asarray(conf["v"], dtype=float)
    t_end = float((v ** 2).sum() / (3 * (n - 1)))
    res.update(pb=plan["pb"], tp=plan["tp"], skin=float(plan["skin"]), gridsync=bool(plan["gridsync"]),
               nblist=plan["nblist"], utilize_niii=bool(plan["UtilizeNIII"]), plan_note="; ".join(notes),
               steps_per_block=steps, timed_blocks=a.blocks, time_s=f"{t:.6g}",
               tps=f"{steps * a.blocks / t:.6g}", us_per_step=f"{t / (steps * a.blocks) * 1e6:.6g}",
               ns_per_atom_step=f"{t / (steps * a.blocks) / n * 1e9:.6g}", t_end=f"{t_end:.4f}",
               autotune_s=at_s, wall_s=round(time.time() - t_wall, 1), status="ok",
               message="block times (s): " + " ".join(f"{x:.4g}" for x in bt))
    return res


# ---------------------------------------------------------------- driver (parent)

def append_row(path, row):
    new = not os.path.exists(path) or os.path.getsize(path) == 0
    if not new:
        with open(path, newline="") as f:
            head = next(csv.reader(f), [])
        if head != FIELDS:
            sys.exit(f"gamdpy_bench.py: {path} has another header; not appending")
    with open(path, "a", newline="") as f:
        w = csv.DictWriter(f, fieldnames=FIELDS, extrasaction="ignore", lineterminator="\n")
        if new:
            w.writeheader()
        # one line per row (nbrlab's CSV rule): no newline inside a field
        w.writerow({k: " ".join(str(v).split()) if isinstance(v, str) else v for k, v in row.items()})


def main(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--sizes", default="sc:8,sc:16,sc:32,sc:64,fcc:64",
                   help="comma-separated sizes: sc:NE, fcc:NE or N (default: 512 ... 1048576 as the device script)")
    p.add_argument("--plans", default="default,autotuned", help="default, autotuned or both")
    p.add_argument("--csv", default="", help="append one row per point to this CSV")
    p.add_argument("--tag", default="gamdpy", help="the row's code column")
    p.add_argument("--blocks", type=int, default=3, help="timed blocks (after one warm-up block)")
    p.add_argument("--steps-target", type=float, default=5e8, help="atom-steps per block (steps = this / N, clamped)")
    p.add_argument("--steps-min", type=int, default=200)
    p.add_argument("--steps-max", type=int, default=20000)
    p.add_argument("--at-steps-target", type=float, default=5e7, help="atom-steps per autotuner trial")
    p.add_argument("--timeout", type=float, default=120, help="seconds per point (child process)")
    p.add_argument("--budget", type=float, default=0, help="seconds for all points; points not started in time are skipped (0 = none)")
    p.add_argument("--seed", type=int, default=12345)
    p.add_argument("--log", default="", help="append each child's whole output (gamdpy's autotuner lines) to this file")
    p.add_argument("--setup-only", action="store_true",
                   help="build the configuration and the default plan, no simulation (works under NUMBA_ENABLE_CUDASIM=1)")
    p.add_argument("--one", help=argparse.SUPPRESS)
    p.add_argument("--plan", default="default", help=argparse.SUPPRESS)
    a = p.parse_args(argv)

    if a.one:
        try:
            res = run_one(a)
        except SystemExit:
            raise
        except BaseException as e:  # reported to the parent, which writes the row
            import traceback
            traceback.print_exc()
            res = {"status": "failed", "message": " ".join(f"{type(e).__name__}: {e}".split())[:400]}
        print("GAMDPY_RESULT " + json.dumps(res), flush=True)
        return 0 if res.get("status") in ("ok", "setup-only") else 3

    sizes = [s for s in a.sizes.split(",") if s.strip()]
    plans = [s.strip() for s in a.plans.split(",") if s.strip()]
    try:
        for s in sizes:
            parse_size(s)
    except ValueError as e:
        print(f"gamdpy_bench.py: {e}", file=sys.stderr)
        return 2
    for pl in plans:
        if pl not in ("default", "autotuned"):
            print(f"gamdpy_bench.py: unknown plan '{pl}' (default, autotuned)", file=sys.stderr)
            return 2
    rev, host = git_rev(), platform.node()
    t_start = time.time()
    failed = 0
    for pl in plans:
        for s in sizes:
            lattice, cells, n = parse_size(s)
            base = {"timestamp": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
                    "git_rev": rev, "host": host, "code": a.tag, "system": "lammps-lj", "size": s,
                    "lattice": lattice, "cells": "x".join(map(str, cells)), "n": n, "rho": RHO, "rc": RC,
                    "dt": DT, "temp0": T0, "plan": pl}
            left = a.budget - (time.time() - t_start) if a.budget > 0 else a.timeout
            if left < 5:
                row = dict(base, status="skipped", message="time budget used up")
                print(f"gamdpy {pl:9s} N={n:>8d} skipped (budget)", flush=True)
                if a.csv:
                    append_row(a.csv, row)
                continue
            cmd = [sys.executable, os.path.abspath(__file__), "--one", s, "--plan", pl,
                   "--blocks", str(a.blocks), "--steps-target", str(a.steps_target),
                   "--steps-min", str(a.steps_min), "--steps-max", str(a.steps_max),
                   "--at-steps-target", str(a.at_steps_target), "--seed", str(a.seed)]
            if a.setup_only:
                cmd.append("--setup-only")
            t0 = time.time()
            try:
                pr = subprocess.run(cmd, capture_output=True, text=True, timeout=min(a.timeout, left))
                out, rc = pr.stdout + pr.stderr, pr.returncode
            except subprocess.TimeoutExpired as e:
                out = (e.stdout or b"").decode() if isinstance(e.stdout, bytes) else (e.stdout or "")
                rc = "timeout"
            res = None
            for line in out.splitlines():
                if line.startswith("GAMDPY_RESULT "):
                    res = json.loads(line[len("GAMDPY_RESULT "):])
            if res is None:
                tail = " | ".join(l for l in out.strip().splitlines()[-3:])
                res = {"status": "timeout" if rc == "timeout" else "failed",
                       "message": f"child exit {rc}: {tail}"[:400]}
            res.pop("shims", None)
            row = dict(base, **{k: v for k, v in res.items() if k in FIELDS})
            row["wall_s"] = round(time.time() - t0, 1)
            if a.log:
                with open(a.log, "a") as f:
                    f.write(f"==== {pl} {s} (exit {rc}, {row['wall_s']} s)\n{out}\n")
            if row.get("status") == "ok":
                print(f"gamdpy {pl:9s} N={n:>8d} {row['lattice']:3s} tps={float(row['tps']):10.1f} "
                      f"us/step={float(row['us_per_step']):9.2f} pb={row['pb']} tp={row['tp']} skin={row['skin']} "
                      f"gridsync={row['gridsync']} {row['nblist']} NIII={row['utilize_niii']} T_end={row['t_end']} "
                      f"wall={row['wall_s']}s{' autotune=' + str(row['autotune_s']) + 's' if row.get('autotune_s') else ''}"
                      f"{' [' + row['plan_note'] + ']' if row.get('plan_note') else ''}", flush=True)
            elif row.get("status") == "setup-only":
                print(f"gamdpy setup N={n} {row['lattice']} cells={row['cells']} plan={row['message']}", flush=True)
            else:
                failed += 1
                print(f"gamdpy {pl:9s} N={n:>8d} {row.get('status')}: {row.get('message', '')}", flush=True)
            if a.csv:
                append_row(a.csv, row)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
