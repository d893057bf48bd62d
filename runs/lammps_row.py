"""runs/lammps_row.py LOG HEADER_CSV OUT_CSV TAG SYSTEM NE GIT_REV - one nbrlab CSV row from a LAMMPS log.

The row has nbrlab's schema exactly: the column names are taken from the first line of
HEADER_CSV (a file written by an nbrlab program with --csv; the schema lives only in
common/report.c), never typed here.  What LAMMPS tells is filled in, "-" elsewhere:
  variant lammps (lammps-mpiP when the log says the run was on P > 1 MPI processes), precision double, the system read back from the echoed input, git_rev
      nbrlab's revision as runs/lmp_variant.sh got it from a built program,
  steps/equil as nbrlab counts them (steps = equilibration + timed),
  us_per_atom_step = us_per_atom_step_mean = Loop time / timed steps / N (LAMMPS gives one
      time for the whole timed run: one "block", timing_blocks = 1),
  frac_force = Pair, frac_list = Neigh, frac_integrate = Modify (fix nve),
  frac_other = Comm + Output + Other (Comm on one process = periodic ghost atoms);
      frac_transfer and frac_reorder have no LAMMPS counterpart,
  nbr_per_atom = 2 x "Ave neighs/atom" (LAMMPS's half list; nbrlab counts full-list entries),
  rebuilds = "Neighbor list builds", steps_per_rebuild = timed steps / rebuilds,
  e_start/e_end = mean TotEng per atom over the first/last min(timed/10, 1000) timed steps
      (the thermo lines in those windows), drift = (e_end - e_start) / |e_start|,
  pressure = mean Press over the thermo lines of the timed run after its step 0 (the
      programs average P = (N T + W/3)/V over every production step; LAMMPS's press is
      (sum m v^2 + W)/(3V), no tail correction: the same quantity up to the factor N/(N-1)
      on the kinetic term, which the programs' T = sum v^2/(3(N-1)) brings in).
Appending to OUT_CSV with another header is refused, as the programs do.
"""
import os
import re
import socket
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import csvq  # noqa: E402


class LogError(Exception):
    pass


def last_number(lines, pattern, what):
    """The first group of the last line matching pattern, as a float."""
    value = None
    for line in lines:
        m = re.match(pattern, line)
        if m:
            try:
                value = float(m.group(1))
            except ValueError:
                continue  # an unsubstituted ${var} echo
    if value is None:
        raise LogError(f"no {what} in the log")
    return value


def parse(path):
    with open(path) as f:
        lines = f.read().split("\n")
    out = {"version": lines[0].strip() if lines and lines[0].startswith("LAMMPS") else "LAMMPS"}
    out["rho"] = last_number(lines, r"^lattice\s+sc\s+(\S+)", "lattice density")
    # lj/cut RC, or lj/cut/coul/dsf ALPHA RC_LJ [RC_COUL] (--system salt): the LJ cutoff
    out["rc"] = last_number(lines, r"^pair_style\s+lj/cut(?:/coul/dsf\s+\S+)?\s+(\S+)", "cutoff")
    out["delta"] = last_number(lines, r"^neighbor\s+(\S+)\s+bin", "skin")
    out["dt"] = last_number(lines, r"^timestep\s+(\S+)", "timestep")
    out["temp"] = last_number(lines, r"^velocity\s+all\s+create\s+(\S+)", "temperature")
    try:   # the velocity seed, for the row's seed column ("-" where the input has none)
        out["seed"] = str(int(last_number(lines, r"^velocity\s+all\s+create\s+\S+\s+(\d+)", "velocity seed")))
    except LogError:
        out["seed"] = "-"
    out["shift"] = next((l.split()[-1] for l in lines if re.match(r"^pair_modify\s+shift\s+(yes|no)\s*$", l)), "no")

    # the runs: each "Loop time" closes one; the last is the timed run, the one before it
    # the equilibration
    loops = [k for k, l in enumerate(lines) if l.startswith("Loop time of ")]
    if len(loops) < 2:
        raise LogError(f"{len(loops)} completed runs in the log, expected 2 (equilibration, timed): cut short?")
    k_loop = loops[-1]
    m = re.match(r"Loop time of (\S+) on (\d+) procs for (\d+) steps with (\d+) atoms", lines[k_loop])
    if not m:
        raise LogError(f"line {k_loop + 1}: cannot read '{lines[k_loop]}'")
    out["loop_s"], out["procs"] = float(m.group(1)), int(m.group(2))
    out["timed"], out["n"] = int(m.group(3)), int(m.group(4))
    m = re.match(r"Loop time of \S+ on \d+ procs for (\d+) steps", lines[loops[-2]])
    out["equil"] = int(m.group(1)) if m else 0

    # thermo of the timed run: from its "Step ..." header to the Loop line
    k_head = max(k for k in range(loops[-2], k_loop) if lines[k].split()[:1] == ["Step"])
    names = lines[k_head].split()
    for need in ("TotEng", "Press"):
        if need not in names:
            raise LogError(f"line {k_head + 1}: thermo has no {need} column (reference/lammps/in.nbrlab prints it)")
    thermo, press = [], []
    for k in range(k_head + 1, k_loop):
        f = lines[k].split()
        if len(f) == len(names):
            try:
                step = int(f[names.index("Step")])
                e, pr = float(f[names.index("TotEng")]), float(f[names.index("Press")])
            except ValueError:
                continue  # a warning line between thermo lines
            thermo.append((step, e))
            press.append((step, pr))
    # the end of the timed run: its section breakdown, neighbours, builds
    tail = lines[k_loop:]
    sections = {}
    for line in tail:
        m = re.match(r"^(Pair|Bond|Kspace|Neigh|Comm|Output|Modify|Other)\s*\|.*\|\s*(\S+)\s*$", line)
        if m and m.group(1) not in sections:
            sections[m.group(1)] = float(m.group(2)) / 100
        if line.startswith("Total wall time"):
            break
    out["sections"] = sections
    out["neighs"] = last_number(tail, r"^Ave neighs/atom = (\S+)", "'Ave neighs/atom'")
    out["builds"] = int(last_number(tail, r"^Neighbor list builds = (\d+)", "'Neighbor list builds'"))

    timed = out["timed"]
    win = max(1, min(timed // 10, 1000))
    first = [e for s, e in thermo if 0 < s <= win]
    last = [e for s, e in thermo if s > timed - win]
    if not first or not last:
        raise LogError(f"no thermo lines in the first/last {win} timed steps (set thermo <= {win})")
    out["e_start"], out["e_end"] = sum(first) / len(first), sum(last) / len(last)
    timed_p = [pr for s, pr in press if 0 < s <= timed]
    if not timed_p:
        raise LogError("no thermo line after step 0 of the timed run: no pressure")
    out["pressure"] = sum(timed_p) / len(timed_p)
    return out


def cpu_model():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return "unknown-cpu"


def row_values(log, tag, system, ne, rev="unknown"):
    p = parse(log)
    timed, n = p["timed"], p["n"]
    us = p["loop_s"] / timed / n * 1e6
    s = p["sections"]
    return {
        "timestamp": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "git_rev": rev or "unknown",
        "host": socket.gethostname(),
        "device": cpu_model(),
        "compiler": p["version"],
        "variant": "lammps" if p["procs"] == 1 else f"lammps-mpi{p['procs']}",
        "tag": tag,
        "system": system,
        "config": "lattice",
        "seed": p["seed"],
        "ne": str(ne),
        "n": str(n),
        "rho": f"{p['rho']:.6g}",
        "temp": f"{p['temp']:.6g}",
        "rc": f"{p['rc']:.6g}",
        "delta": f"{p['delta']:.6g}",
        "dt": f"{p['dt']:.6g}",
        "steps": str(p["equil"] + timed),
        "equil": str(p["equil"]),
        "precision": "double",
        "us_per_atom_step": f"{us:.6g}",
        "us_per_atom_step_mean": f"{us:.6g}",
        "timing_blocks": "1",
        "total_s": f"{p['loop_s']:.6g}",
        "frac_list": f"{s.get('Neigh', 0):.4f}",
        "frac_force": f"{s.get('Pair', 0):.4f}",
        "frac_integrate": f"{s.get('Modify', 0):.4f}",
        "frac_other": f"{s.get('Comm', 0) + s.get('Output', 0) + s.get('Other', 0):.4f}",
        "nbr_per_atom": f"{2 * p['neighs']:.4f}",
        "rebuilds": str(p["builds"]),
        "steps_per_rebuild": f"{timed / p['builds']:.4f}" if p["builds"] else "0",
        "e_start": f"{p['e_start']:.10g}",
        "e_end": f"{p['e_end']:.10g}",
        "drift": f"{(p['e_end'] - p['e_start']) / abs(p['e_start']):.4g}",
        "pressure": f"{p['pressure']:.8g}",
        "status": "ok",
    }


def main(argv):
    if len(argv) != 7:
        print("usage: lammps_row.py LOG HEADER_CSV OUT_CSV TAG SYSTEM NE GIT_REV", file=sys.stderr)
        return 2
    log, header_csv, out_csv, tag, system, ne, rev = argv
    try:
        header = csvq.read(header_csv).file_header   # as written: knobs one column
        values = row_values(log, tag, system, ne, rev)
    except (OSError, csvq.CsvError) as e:
        print(f"lammps_row.py: {e}", file=sys.stderr)
        return 2
    except LogError as e:
        print(f"lammps_row.py: {log}: {e}", file=sys.stderr)
        return 2
    unknown = sorted(set(values) - set(header))
    if unknown:
        print(f"lammps_row.py: the CSV schema (from {header_csv}) has no column {unknown[0]}: "
              "common/report.c changed; update runs/lammps_row.py", file=sys.stderr)
        return 2
    # LAMMPS has none of the programs' knobs: an empty knobs column (no pairs)
    line = ",".join(values.get(c, "" if c == csvq.KNOBS else "-").replace(",", ";") for c in header)
    head = ",".join(header)
    if os.path.exists(out_csv) and os.path.getsize(out_csv) > 0:
        with open(out_csv) as f:
            if f.readline().rstrip("\n") != head:
                print(f"lammps_row.py: {out_csv} has another header (CSV schema changed): write to a new file",
                      file=sys.stderr)
                return 2
        with open(out_csv, "a") as f:
            f.write(line + "\n")
    else:
        with open(out_csv, "w") as f:
            f.write(head + "\n" + line + "\n")
    print(f"lammps {system} ne={ne} N={values['n']}: {values['us_per_atom_step']} us/atom-step, "
          f"N_p/N_a = {values['nbr_per_atom']} (2 x half list), N_u = {values['steps_per_rebuild']}, "
          f"E/N start {values['e_start']} end {values['e_end']} drift {values['drift']}, P = {values['pressure']}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
