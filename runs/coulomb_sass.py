#!/usr/bin/env python3
"""coulomb_sass.py - SASS instructions per pair of the Coulomb energy kernels (issue 12).

Reads `cuobjdump -sass` of coulomb.cu's object or of coulomb-cuda (a file, or stdin) and, for
every coulomb_energy_kernel<UNROLL, IPT, MODE, FULL, ...> instantiation, finds the innermost
loops (a backward branch to an earlier address, no other loop inside) that contain MUFU.RSQ
(float) or the double rsqrt's DMUL chain. The loop with the fewest instructions per pair is the
unconditional tile loop (the full tiles between the own and the last one, where the kernel
spends its time at large N); its pairs per iteration are counted from its MUFU.RSQ (float
modes) or MUFU.RSQ64H (double) instructions. Sweep "half" is the FULL = 0 kernel, which runs
both --sweep half and --sweep folded (the folding is a kernel argument: which row tiles a block
takes, not the loop). Printed per kernel: instructions per pair of that
loop, split into FP32 (FADD/FMUL/FFMA), MUFU, shared loads (LDS), and the rest (loop compare,
branch, address arithmetic), and the loop's iteration size.

  cuobjdump -sass build/double/coulomb-cuda | runs/coulomb_sass.py
  runs/coulomb_sass.py sass.txt [--mode float|double|kahan|pairwise|exact] [--csv]

The issue-bound time at N atoms (--n, default 630 828) is N^2 / 2 pairs times instructions
per pair over 132 SMs x 4 schedulers x 1.98 GHz (one warp-instruction per scheduler per clock,
32 pairs per warp-instruction): t = N^2 / 2 * ipp / (32 * 4 * 132 * 1.98e9).
"""
import re
import sys

MODES = {0: "float", 1: "double", 2: "kahan", 3: "pairwise", 4: "exact"}
FUNC = re.compile(r"Function : (\S+)")
INSN = re.compile(r"/\*([0-9a-f]{4,})\*/\s+(@!?U?P\w+\s+)?([A-Z][A-Z0-9_.]*)\s*([^;]*);")
ARGS = re.compile(r"coulomb_energy_kernelIL[ij](\d+)EL[ij](\d+)EL[ij](\d+)ELb([01])E(?:L[ij](\d+)E)?")


def functions(text):
    name, body = None, []
    for line in text.splitlines():
        m = FUNC.search(line)
        if m:
            if name: yield name, body
            name, body = m.group(1), []
            continue
        m = INSN.search(line)
        if m and name:
            body.append((int(m.group(1), 16), m.group(3), m.group(4), bool(m.group(2))))
    if name: yield name, body


def loops(body):
    """(start, end) address ranges of backward branches, innermost only"""
    spans = []
    for addr, op, args, _ in body:
        if op.startswith("BRA"):
            m = re.search(r"0x([0-9a-f]+)", args)
            if m and int(m.group(1), 16) <= addr:
                spans.append((int(m.group(1), 16), addr))
    return [s for s in spans if not any(o != s and s[0] <= o[0] and o[1] <= s[1] for o in spans)]


def classify(op):
    base = op.split(".")[0]
    if base in ("FADD", "FMUL", "FFMA"): return "fp32"
    if base in ("DADD", "DMUL", "DFMA"): return "fp64"
    if base == "MUFU": return "mufu"
    if base in ("LDS", "LDSM"): return "lds"
    return "other"


def analyse(body, mode):
    best = None
    for lo, hi in loops(body):
        ins = [(op, args) for addr, op, args, _ in body if lo <= addr <= hi]
        rsq = sum(1 for op, _ in ins if op in ("MUFU.RSQ", "MUFU.RSQ64H"))
        if not rsq: continue
        cls = {"fp32": 0, "fp64": 0, "mufu": 0, "lds": 0, "other": 0}
        for op, _ in ins: cls[classify(op)] += 1
        ipp = len(ins) / rsq
        if best is None or ipp < best["ipp"]:
            best = dict(ipp=ipp, n=len(ins), pairs=rsq, **{k: v / rsq for k, v in cls.items()})
    return best


def main():
    args = sys.argv[1:]
    n = 630828
    csv = "--csv" in args
    want = None
    files = []
    k = 0
    while k < len(args):
        a = args[k]
        if a == "--n": n = int(args[k + 1]); k += 2; continue
        if a == "--mode": want = args[k + 1]; k += 2; continue
        if a == "--csv": k += 1; continue
        files.append(a); k += 1
    text = open(files[0]).read() if files else sys.stdin.read()
    rows = []
    for name, body in functions(text):
        m = ARGS.search(name)
        if not m: continue
        unroll, ipt, mode, full = int(m.group(1)), int(m.group(2)), int(m.group(3)), m.group(4) == "1"
        extra = m.group(5)
        if want and MODES[mode] != want: continue
        r = analyse(body, mode)
        if not r: continue
        rows.append((MODES[mode], unroll, ipt, "full" if full else "half", extra, r))
    rows.sort(key=lambda t: (list(MODES.values()).index(t[0]), t[3], t[4] or "", t[1], t[2]))
    rate = 32 * 4 * 132 * 1.98e9   # thread-instructions per second issued, H200
    pairs = n * (n - 1) / 2
    if csv:
        print("mode,sweep,variant,unroll,ipt,insn_per_pair,fp32,fp64,mufu,lds,other,loop_insns,loop_pairs,issue_bound_ms")
    else:
        print(f"{'mode':9} {'sweep':5} {'var':>3} {'u':>2} {'i':>2} {'insn/pair':>9} {'fp32':>5} {'fp64':>5} {'mufu':>5} "
              f"{'lds':>5} {'other':>5}  loop (insns/pairs)  issue-bound ms at N={n}")
    for mode, u, i, sweep, extra, r in rows:
        ms = pairs * r["ipp"] / rate * 1e3
        if csv:
            print(f"{mode},{sweep},{extra or ''},{u},{i},{r['ipp']:.3f},{r['fp32']:.3f},{r['fp64']:.3f},{r['mufu']:.3f},"
                  f"{r['lds']:.3f},{r['other']:.3f},{r['n']},{r['pairs']},{ms:.2f}")
        else:
            print(f"{mode:9} {sweep:5} {extra or '':>3} {u:>2} {i:>2} {r['ipp']:9.3f} {r['fp32']:5.2f} {r['fp64']:5.2f} "
                  f"{r['mufu']:5.2f} {r['lds']:5.2f} {r['other']:5.2f}  {r['n']:4d}/{r['pairs']:<3d}            {ms:7.2f}")


if __name__ == "__main__":
    main()
