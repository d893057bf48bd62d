#!/usr/bin/env python3
"""runs/onchip_stalls.py SASS.csv[.gz] [--steps N] [--top K] - one chunk kernel's cycles by cause.

Reads the source page that runs/device/onchip_profile.sh exports (`ncu --page source --csv
--print-source sass`: one row per SASS instruction with its warp instructions executed and its
warp-state samples) and prints, for the launch profiled:
  - warp instructions per step (the chunk's total over --steps) and the sampled stall shares;
  - the instructions by kind (shared loads, shuffles, barriers, double precision, ...): what a
    step's instruction budget is spent on;
  - the K instructions with the most samples, and their two leading stall reasons.
Run it with build/venv's python (pandas); the numbers are the profiled launch's, not a timing.
"""
import argparse
import re

import pandas as pd

KINDS = [  # first match wins: a SASS opcode prefix -> what it is for
    ("barrier / cluster sync", r"^(BAR|ERRBAR|CGAERRBAR|UCGABAR|MEMBAR|WARPSYNC|CCTL)"),
    ("shuffle / vote", r"^(SHFL|VOTE|POPC|MATCH)"),
    ("shared load", r"^LDS"),
    ("shared / remote store", r"^(STS|ST\.E|STG|ATOM|RED)"),
    ("global load", r"^(LDG|LD\.E|LDC)"),
    ("double precision", r"^(D[A-Z]+|F2F\.F64|MUFU\.\w+64)"),
    ("float arithmetic", r"^(FADD|FMUL|FFMA|FSEL|FSETP|FMNMX|MUFU)"),
    ("branch / predicate", r"^(BRA|BSSY|BSYNC|EXIT|RET|CALL|ISETP|PLOP3|P2R|R2P)"),
    ("integer / address", r"^(I|LEA|LOP|SHF|SEL|MOV|PRMT|CS2R|S2R|U|VI|VIADD|VIMNMX)"),
]


def opcode(src):
    words = str(src).split()
    if words and words[0].startswith("@"):
        words = words[1:]
    return words[0] if words else ""


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("csv")
    ap.add_argument("--steps", type=int, default=100, help="steps in the profiled chunk (--sample-every)")
    ap.add_argument("--top", type=int, default=12)
    a = ap.parse_args()
    d = pd.read_csv(a.csv, skiprows=1)   # the first line names the kernel
    d = d[pd.to_numeric(d["# Samples"], errors="coerce").notna()].copy()
    num = [c for c in d.columns if c not in ("Address", "Source", "Address Space", "Access Operation")]
    d[num] = d[num].apply(pd.to_numeric, errors="coerce").fillna(0)
    samples = d["Warp Stall Sampling (All Samples)"]
    stalls = [c for c in d.columns if c.startswith("stall_") and "Not Issued" not in c]
    ie = d["Instructions Executed"]
    print(f"{a.csv}: {ie.sum() / a.steps:,.0f} warp instructions a step ({a.steps} steps), "
          f"{samples.sum():,.0f} samples")
    share = (d[stalls].sum() / samples.sum() * 100).sort_values(ascending=False)
    print("stall reasons, % of samples: " + ", ".join(f"{k[6:]} {v:.1f}" for k, v in share.head(6).items()))
    d["op"] = d["Source"].map(opcode)
    d["kind"] = d["op"].map(lambda op: next((k for k, rx in KINDS if re.match(rx, op)), "other"))
    by = d.groupby("kind").agg(instr=("Instructions Executed", "sum"), samples=("Warp Stall Sampling (All Samples)", "sum"))
    by["instr %"] = 100 * by.instr / by.instr.sum()
    by["samples %"] = 100 * by.samples / by.samples.sum()
    by["per step"] = by.instr / a.steps
    print(by.sort_values("instr", ascending=False)[["per step", "instr %", "samples %"]].round(1).to_string())
    print(f"\nthe {a.top} instructions with the most samples:")
    for _, r in d.sort_values("Warp Stall Sampling (All Samples)", ascending=False).head(a.top).iterrows():
        lead = r[stalls].sort_values(ascending=False)
        print(f"  {100 * r['Warp Stall Sampling (All Samples)'] / samples.sum():5.1f}%  {str(r['Source']).strip()[:48]:48}"
              f"  {lead.index[0][6:]} {100 * lead.iloc[0] / samples.sum():.1f}, {lead.index[1][6:]} {100 * lead.iloc[1] / samples.sum():.1f}")


if __name__ == "__main__":
    main()
