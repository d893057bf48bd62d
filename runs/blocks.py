"""runs/blocks.py CSV LOG... - the per-block lines of program logs as one CSV.

A program run without --quiet prints, every --avg-block steps (1000 by default),
    # step K: <E/N> = ..  <T> = ..  E/N = ..  U/N = ..  builds = ..  block_us_per_atom_step = X
and its resolved configuration as "# name = value" lines (the tag among them).  Tables 4
(energy over 10^5 steps) and 8 (speed over time without reordering) are made of these
lines.  CSV is rewritten from all the LOGs given, one row per block:
    tag, step, e_mean, t_mean, e_per_atom, u_per_atom, builds, block_us_per_atom_step,
    timed (the block has timed steps), full (every step of the block is after equilibration)
The tag joins a block row to its run's row in the run CSV (plots/figdata.py does the join).
"""
import os
import re
import sys

COLUMNS = ["tag", "step", "e_mean", "t_mean", "e_per_atom", "u_per_atom", "builds",
           "block_us_per_atom_step", "timed", "full"]
BLOCK = re.compile(r"^# step (\d+): <E/N> = (\S+)\s+<T> = (\S+)\s+E/N = (\S+)\s+U/N = (\S+)\s+"
                   r"builds = (\d+)\s+block_us_per_atom_step = (\S+)")
CONF = re.compile(r"^# (\S+)\s+= (.*)$")


def parse(path):
    conf, rows = {}, []
    with open(path) as f:
        for lineno, line in enumerate(f, start=1):
            m = BLOCK.match(line)
            if m:
                rows.append((lineno, m.groups()))
                continue
            m = CONF.match(line)
            if m and m.group(1) not in conf:
                conf[m.group(1)] = m.group(2).strip()
    for key in ("tag", "equil", "avg-block"):
        if key not in conf:
            raise ValueError(f"{path}: no '# {key} = ...' line (not a program log, or cut short)")
    equil, block = int(conf["equil"]), int(conf["avg-block"])
    out = []
    for lineno, (step, e_mean, t_mean, e, u, builds, us) in rows:
        step = int(step)
        try:
            timed = float(us) > 0
        except ValueError:
            raise ValueError(f"{path} line {lineno}: block_us_per_atom_step = '{us}' is not a number") from None
        # the last block can be shorter than avg_block: its first step is then the one
        # after the previous multiple of avg_block
        first = step - (step % block or block) + 1
        out.append([conf["tag"], step, e_mean, t_mean, e, u, builds, us, int(timed), int(first > equil)])
    return out


def main(argv):
    if len(argv) < 1:
        print("usage: blocks.py CSV LOG...", file=sys.stderr)
        return 2
    csv_path, logs = argv[0], argv[1:]
    rows = []
    for log in sorted(logs):
        try:
            rows += parse(log)
        except (OSError, ValueError) as e:
            print(f"blocks.py: {e}", file=sys.stderr)
            return 2
    tmp = csv_path + ".tmp"
    with open(tmp, "w") as f:
        f.write(",".join(COLUMNS) + "\n")
        for r in rows:
            f.write(",".join(str(v) for v in r) + "\n")
    os.replace(tmp, csv_path)
    print(f"  {csv_path}: {len(rows)} blocks from {len(logs)} logs", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
