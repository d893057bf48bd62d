"""tables.py - every table of the reproduction, defined once: which CSV, which rows, which
columns, which of the paper's numbers (reference/paper.csv ids) to mark.  Plain data: read by
plots/figdata.py (pandas: the data of both plotting tools), plots/mpl_render.py (matplotlib),
plots/gp/render.gp (through figdata's generated spec) and plots/report.py.

A table:   id, title, driver (what fills it), machine ("gpu" or "cpu": where the driver runs),
           csv (list of paths under results/, {gpu}/{cpu} = the machine directories),
           blocks (optional: a per-block CSV the programs write with --blocks-csv, joined to
           the csv rows by tag and git_rev; derived columns timed = some step of the block is
           timed, full = all are),
           where (a filter every series starts from), panels, compare, columns (report).
A panel:   title, x, xlabel, y, ylabel, logx, logy, categories (categorical x, in this order),
           series, refs.
A series:  label, where (column -> value or list of values), and optionally csv, blocks, y
           (its own sources or column; a where value "!v" means "not v"), norm (divide by its own value at that x), step_ratio
           (each value over the previous category's), rel_first ((y - y0) / |y0|),
           ratio (label_num, label_den: the quotient of two series of this table, matched on
           x), hline (draw its single value as a horizontal line), hidden (only feeds a
           ratio), optional (no "missing" note when empty).
A ref:     id of reference/paper.csv, kind (hline, band, point, vline, pm = +-value; default:
           band when the paper gives a range, point when it gives an x, else hline), x, label.
compare:   report lines "paper vs measured": ref, panel, series, at ("first"/"last" =
           smallest/largest x, "tail" = median of the last quarter of the points, "all" = the measured range, "min"/"max" = where y is smallest/
           largest (its x for a paper x, its y otherwise), or an x / category); or ref, column,
           where, abs: a column of the table's run rows (|value| with abs).
pivot:     panels the report shows as a table (x down, one column per series).
grid:      a verdict table of the report: rows (ref, panel, at, label) against columns (name, series),
           each measured number beside the paper's and its ratio to it.
hyperfine: a CSV of runs/tables_lib.sh's hyperfine_point (whole-program times), shown beside
           the in-program time of the run row with the same tag.
prefer:    a regular expression: rows whose tag matches it are the table's own experiment and
           win a point over other rows of the same configuration (the paper's S at default
           settings is in many sweeps; their run-to-run spread should not pick the minimum).
When a point has several rows: after prefer, the longest runs win (a QUICK run never stands in
for a full one), of them the rows of the newest row's git revision (the same code: rows of
other revisions are never mixed into a point), and the point is the median of those runs
(repeats, reruns), drawn with their range as an error bar; each point knows its revision.

The GPU step loop: every GPU table shows the rows of the device-resident loop (the drivers'
default since issue 9: runs/tables_lib.sh GPU_LOOP=device; series labelled "..., device loop")
beside those of the paper's host-driven loop (the programs' defaults, the rows of 112bc1beb65d
and before; series without a loop in their label).  looped() writes each series once per loop.
Panel titles say which timing a panel shows: production (us_per_atom_step: whole 1000-step
blocks) or kernel (t_<stage>_us: each stage replayed alone after the run).

Knob values written DEFAULT are the paper's settings, which are defined once, in the programs
(common/params.c): figdata asks the GPU program (`gpu-layer --print-config`) and, where none
is built, takes for each knob the value most of the table's rows share (the rows carry every
knob column).
"""
import os

GPU = os.environ.get("NBR_GPU_MACHINE", "h200")
CPU = os.environ.get("NBR_CPU_MACHINE", "cpu-amd-epyc")

US = "time per atom-step (µs)"
# The GPU knobs (CSV columns); a table that varies one knob pins the others to the paper's
# settings, so a row from another sweep (runs/gpu_layer.sh's gpu_layer.csv holds S with every
# knob varied) lands in a table only when it is the table's experiment.
KNOB_COLUMNS = ["threads", "read", "reorder", "reorder_at", "wlayout", "layer_assign", "reduce"]
# --print-config names options by flag; the CSV column where it is not the flag with _ for -
FLAG_COLUMN = {"layers": "layer_assign"}
# the GPU program whose --print-config states the defaults (under $BUILD, default build/)
DEFAULTS_FROM = ["float/gpu-layer", "double/gpu-layer"]
DEFAULT = "<default>"


# The knobs the step loop sets (runs/tables_lib.sh GPU_LOOP_DEVICE), and each loop as a row filter.
# The paper's loop is the paper's settings of those knobs: host layer assignment cannot run under
# --decide device, so a row with them is a host-decided row (the rows from before the device loop
# existed say "-" for decide and graph). A row with them on the device but the host deciding (the
# "all on device" settings of table3 and gpu_layer.sh before issue 9) is in neither.
LOOP_KNOBS = ["reorder_at", "layer_assign", "reduce"]
LOOPS = {
    "paper": {k: DEFAULT for k in LOOP_KNOBS},
    "device": dict({k: "device" for k in LOOP_KNOBS}, decide="device", graph="cond", sample_every="100"),
}
LOOP_NAME = {"paper": "paper loop", "device": "device loop"}
LOOP_TEXT = {
    "paper": "paper loop: the host decides every step (the programs' defaults, the paper's settings)",
    "device": "device loop: --layers device --reorder-at device --reduce device --decide device --graph cond "
              "--sample-every 100 (runs/tables_lib.sh GPU_LOOP=device)",
}
# a series of the device loop is labelled LABEL + DEVICE_SUFFIX; the paper loop's keep their labels
DEVICE_SUFFIX = ", " + LOOP_NAME["device"]
PROD = "production timing"
KERNEL = "kernel timing"
SHARE = KERNEL + ": each stage's share of the stages' time per step"


def knobs(*but, **extra):
    """The paper's GPU settings (DEFAULT) except the knobs named and the loop's (each series
    sets its loop: looped()), plus extra column filters."""
    out = {k: DEFAULT for k in KNOB_COLUMNS if k not in but and k not in LOOP_KNOBS}
    out.update(extra)
    return out


def in_loop(label, loop):
    return label + DEVICE_SUFFIX if loop == "device" else label


def looped(*series, loops=("paper", "device")):
    """Each series once per step loop (the paper loop's first, under its own label; then the
    device loop's, labelled in_loop(label, "device")). The paper loop's are optional: the rows of
    before the device loop, which a machine measured since need not have (the report says which
    loops have rows); the device loop's, the drivers' default, are as optional as the series."""
    out = []
    for loop in loops:
        for s in series:
            d = dict(s, label=in_loop(s["label"], loop))
            if loop == "paper":
                d["optional"] = True
            if "ratio" in s:
                d["ratio"] = tuple(in_loop(x, loop) for x in s["ratio"])
            else:
                d["where"] = {**LOOPS[loop], **s.get("where", {})}
            out.append(d)
    return out


def compared(*entries, loops=("device", "paper")):
    """compare entries once per loop, the device loop's first (the table's new default); a
    series entry's label, or a column entry's row filter, for that loop."""
    out = []
    for loop in loops:
        for c in entries:
            d = dict(c, loop=loop)
            if "series" in c:
                d["series"] = in_loop(c["series"], loop)
            out.append(d)
    return out


# GPU tables read runs/gpu_layer.sh's CSV too (same schema, same program): its rows fill a
# table until the table's own driver has run; at equal run length the table's own row wins.
GPU_LAYER = "{gpu}/gpu_layer.csv"
SP = {"system": "sp", "delta": "0.6"}
LJ = {"system": "lj", "delta": "0.8"}
S48 = {"system": "sp", "ne": "48", "delta": "0.6"}
LJ32 = {"system": "lj", "ne": "32"}
S_R0 = "SP Ne=48 (S), no reordering"
S_R100 = "SP Ne=48 (S), reorder every 100"

# Table 3's settings (runs/table3.sh): the paper's (the paper loop), all on the device in the
# device loop, and all on the device with the host deciding (the rows before issue 9)
T3_TAILS = ("", DEVICE_SUFFIX, ", all on device, host decides")


def T3_SETTINGS(label, variant):
    """One series of a Table 3 panel per setting (T3_TAILS), for one program."""
    host_decides = {k: "device" for k in LOOP_KNOBS}
    host_decides["decide"] = ["host", "-", ""]
    return [dict(label=label + tail, where={"variant": variant, **where}, optional=True)
            for tail, where in zip(T3_TAILS, ({k: "host" for k in LOOP_KNOBS}, LOOPS["device"], host_decides))]


TABLES = [
    dict(
        id="chain", title="CPU algorithm chain on one core (paper: Section 3, system S)",
        driver="runs/cpu_chain.sh (REORDER=0 for the paper's likely setting)", machine="cpu",
        # the paper's CPU chain does not say that it reordered: REORDER=0 (cpu_chain_reorder0.csv)
        # is the closer reading, reordering every 100 steps (cpu_chain.csv) the programs' default
        csv=["{cpu}/cpu_chain.csv", "{cpu}/cpu_chain_reorder0.csv"], where={"precision": "double"},
        panels=[
            dict(title="(a) time per atom-step", x="variant", xlabel="program",
                 categories=["cpu-pairlist", "cpu-grouped", "cpu-full", "cpu-layer", "cpu-cells"],
                 y="us_per_atom_step", ylabel=US,
                 series=[dict(label=S_R0, where={**S48, "reorder": "0"}),
                         dict(label=S_R100, where={**S48, "reorder": "100"}),
                         dict(label="LJ Ne=32, no reordering", where={**LJ32, "reorder": "0"}, optional=True),
                         dict(label="LJ Ne=32, reorder every 100", where={**LJ32, "reorder": "100"})]),
            dict(title="(b) each step of the chain", x="variant", xlabel="program (ratio to the one before)",
                 categories=["cpu-pairlist", "cpu-grouped", "cpu-full", "cpu-layer"],
                 y="us_per_atom_step", ylabel="time ratio to the previous program",
                 series=[dict(label=S_R0, where={**S48, "reorder": "0"}, step_ratio=True),
                         dict(label=S_R100, where={**S48, "reorder": "100"}, step_ratio=True),
                         dict(label="LJ Ne=32, no reordering", where={**LJ32, "reorder": "0"}, step_ratio=True,
                              optional=True),
                         dict(label="LJ Ne=32, reorder every 100", where={**LJ32, "reorder": "100"},
                              step_ratio=True)],
                 refs=[dict(id="chain_grouped"), dict(id="chain_full"), dict(id="chain_layer")]),
            dict(title="(c) cumulative", x="variant", xlabel="program",
                 categories=["cpu-pairlist", "cpu-grouped", "cpu-full", "cpu-layer"],
                 y="us_per_atom_step", ylabel="time / pair-list time",
                 series=[dict(label=S_R0, where={**S48, "reorder": "0"}, norm="cpu-pairlist"),
                         dict(label=S_R100, where={**S48, "reorder": "100"}, norm="cpu-pairlist")],
                 refs=[dict(id="chain_total")]),
        ],
        compare=[dict(ref=r, panel=p, series=ser, at=at)
                 for ser in (S_R0, S_R100)
                 for r, p, at in (("chain_grouped", 1, "cpu-grouped"), ("chain_full", 1, "cpu-full"),
                                  ("chain_layer", 1, "cpu-layer"), ("chain_total", 2, "cpu-layer"))],
        grid=dict(title="The chain on system S: without reordering (the paper's likely setting) beside "
                        "reordering every 100 steps",
                  columns=[("reorder=0", S_R0), ("reorder=100", S_R100)],
                  rows=[("chain_grouped", 1, "cpu-grouped", "grouped / pair list"),
                        ("chain_full", 1, "cpu-full", "no Newton 3 / grouped"),
                        ("chain_layer", 1, "cpu-layer", "layer matrix / no Newton 3"),
                        ("chain_total", 2, "cpu-layer", "layer matrix / pair list (cumulative)")]),
        columns=["variant", "system", "ne", "reorder", "us_per_atom_step", "frac_list", "frac_force",
                 "nbr_per_atom", "layers", "steps_per_rebuild", "bytes_per_atom"],
    ),
    dict(
        id="table1", title="Table 1: GPU time per atom-step against system size",
        driver="runs/table1.sh", machine="gpu",
        csv=[GPU_LAYER, "{gpu}/table1.csv"], where=knobs(variant="gpu-layer", precision="float"),
        prefer=r"^(t1-|size-)",
        panels=[
            dict(title=f"(a) time per atom-step ({PROD})", x="n", xlabel="atoms N", logx=True, logy=True,
                 y="us_per_atom_step", ylabel=US,
                 series=looped(dict(label="SP", where=SP), dict(label="LJ", where=LJ)),
                 refs=[dict(id="nmax_sp", kind="vline", label="paper: largest SP (96^3)"),
                       dict(id="nmax_lj", kind="vline", label="paper: largest LJ (64^3)")]),
            dict(title="(b) neighbour-list entries per atom", x="n", xlabel="atoms N", logx=True, logy=True,
                 y="nbr_per_atom", ylabel="N_p / N_a",
                 series=looped(dict(label="SP", where=SP), dict(label="LJ", where=LJ)),
                 refs=[dict(id="np_sp"), dict(id="np_lj")]),
            dict(title="(c) layers N_l", x="n", xlabel="atoms N", logx=True,
                 y="layers", ylabel="layers N_l",
                 series=looped(dict(label="SP", where=SP), dict(label="LJ", where=LJ)),
                 refs=[dict(id="nl_sp"), dict(id="nl_lj")]),
            dict(title="(d) steps between rebuilds N_u", x="n", xlabel="atoms N", logx=True,
                 y="steps_per_rebuild", ylabel="N_u (steps)",
                 series=looped(dict(label="SP", where=SP), dict(label="LJ", where=LJ)),
                 refs=[dict(id="nu_sp"), dict(id="nu_lj")]),
            dict(title=f"(e) time fractions ({SHARE})", x="n", xlabel="atoms N", logx=True,
                 y="frac_list", ylabel="fraction of the time",
                 series=looped(dict(label="SP list t_n/t", where=SP), dict(label="SP force t_f/t", where=SP, y="frac_force"),
                               dict(label="LJ list t_n/t", where=LJ), dict(label="LJ force t_f/t", where=LJ, y="frac_force")),
                 refs=[dict(id="fn_sp"), dict(id="ff_sp"), dict(id="fn_lj"), dict(id="ff_lj")]),
            dict(title="(f) GPU storage", x="n", xlabel="atoms N", logx=True,
                 y="bytes_per_atom", ylabel="bytes per atom",
                 series=looped(dict(label="SP", where=SP), dict(label="LJ", where=LJ)),
                 refs=[dict(id="bytes_sp"), dict(id="bytes_lj")]),
        ],
        compare=compared(dict(ref="np_sp", panel=1, series="SP", at="all"), dict(ref="np_lj", panel=1, series="LJ", at="all"),
                         dict(ref="nl_sp", panel=2, series="SP", at="all"), dict(ref="nl_lj", panel=2, series="LJ", at="all"),
                         dict(ref="nu_sp", panel=3, series="SP", at="all"), dict(ref="nu_lj", panel=3, series="LJ", at="all"),
                         dict(ref="fn_sp", panel=4, series="SP list t_n/t", at="last"),
                         dict(ref="ff_sp", panel=4, series="SP force t_f/t", at="last"),
                         dict(ref="fn_lj", panel=4, series="LJ list t_n/t", at="last"),
                         dict(ref="ff_lj", panel=4, series="LJ force t_f/t", at="last"),
                         dict(ref="bytes_sp", panel=5, series="SP", at="all"),
                         dict(ref="bytes_lj", panel=5, series="LJ", at="all")),
        pivot=[0],
        columns=["system", "ne", "n", "decide", "us_per_atom_step", "t_list_us", "t_force_us", "nbr_per_atom", "layers",
                 "steps_per_rebuild", "frac_list", "frac_force", "frac_transfer", "frac_reorder", "bytes_per_atom", "steps"],
        hyperfine="{gpu}/table1_hyperfine.csv",
    ),
    dict(
        id="table2", title="Table 2: one CPU core (cpu-layer) against the GPU, and the speed-up",
        driver="runs/table2.sh (CPU) and runs/table1.sh (GPU)", machine="cpu",
        csv=["{cpu}/table2.csv"], where={},
        panels=[
            dict(title=f"(a) time per atom-step ({PROD})", x="n", xlabel="atoms N", logx=True, logy=True,
                 y="us_per_atom_step", ylabel=US,
                 series=[dict(label="CPU SP (cpu-layer)", where={"variant": "cpu-layer", "precision": "float", **SP}),
                         dict(label="CPU LJ (cpu-layer)", where={"variant": "cpu-layer", "precision": "float", **LJ})]
                 + looped(dict(label="GPU SP (gpu-layer)", csv=[GPU_LAYER, "{gpu}/table1.csv"],
                               where=knobs(variant="gpu-layer", precision="float", **SP)),
                          dict(label="GPU LJ (gpu-layer)", csv=[GPU_LAYER, "{gpu}/table1.csv"],
                               where=knobs(variant="gpu-layer", precision="float", **LJ)))
                 + [dict(label="LAMMPS SP (1 core)", csv=["{cpu}/lammps.csv"], where={"variant": "lammps", **SP},
                         optional=True),
                    dict(label="LAMMPS LJ (1 core)", csv=["{cpu}/lammps.csv"], where={"variant": "lammps", **LJ},
                         optional=True)]),
            dict(title="(b) speed-up CPU / GPU", x="n", xlabel="atoms N", logx=True,
                 y="us_per_atom_step", ylabel="CPU time / GPU time",
                 # the CPU side is one: each loop's GPU series over it
                 series=[dict(label=in_loop(sys_, loop), optional=True,
                              ratio=(f"CPU {sys_} (cpu-layer)", in_loop(f"GPU {sys_} (gpu-layer)", loop)))
                         for loop in ("paper", "device") for sys_ in ("SP", "LJ")]),
        ],
        compare=[], pivot=[0, 1],
        columns=["variant", "system", "ne", "n", "us_per_atom_step", "frac_list", "frac_force", "steps"],
        hyperfine="{cpu}/table2_hyperfine.csv",
    ),
    dict(
        id="table3", title="Table 3: old (Anderson 2008) and new list build against r_c",
        driver="runs/table3.sh", machine="gpu",
        # runs/table3.sh runs each point in the paper's setting (layer assignment, reductions and
        # reordering on the host: the paper's loop) and all on the device: since issue 9 in the
        # device loop, before in the host-decided loop ("all on device, host decides"). The
        # paper's quantity is the list build's: its kernel time t_list_us is the verdict.
        csv=["{gpu}/table3.csv"], where={"precision": "float"},
        panels=[
            dict(title=f"(a) time per atom-step ({PROD})", x="rc", xlabel="cutoff r_c", y="us_per_atom_step",
                 ylabel=US, logy=True,
                 series=T3_SETTINGS("new (gpu-layer)", "gpu-layer") + T3_SETTINGS("old (gpu-old)", "gpu-old")),
            dict(title=f"(b) list build, one call ({KERNEL})", x="rc", xlabel="cutoff r_c", y="t_list_us",
                 ylabel="t_list (µs per build)", logy=True,
                 series=T3_SETTINGS("new list build", "gpu-layer") + T3_SETTINGS("old list build", "gpu-old")),
            dict(title="(c) old / new: list build (kernel) and whole step (production)", x="rc", xlabel="cutoff r_c",
                 y="us_per_atom_step", ylabel="time old / time new",
                 series=[dict(label=f"list build{t}", ratio=(f"old list build{t}", f"new list build{t}"), optional=True)
                         for t in T3_TAILS]
                 + [dict(label=f"whole step{t}", ratio=(f"old (gpu-old){t}", f"new (gpu-layer){t}"), optional=True)
                    for t in T3_TAILS],
                 refs=[dict(id="gain_sp")]),
            dict(title=f"(d) list-building fraction t_n/t ({SHARE})", x="rc",
                 xlabel="cutoff r_c", y="frac_list", ylabel="fraction of the time",
                 series=[s for s in T3_SETTINGS("new (gpu-layer)", "gpu-layer") + T3_SETTINGS("old (gpu-old)", "gpu-old")
                         if not s["label"].endswith(T3_TAILS[2])],
                 refs=[dict(id="t3_fn_new"), dict(id="t3_fn_old")]),
        ],
        # the kernel's ratio is the verdict, the whole step's beside it
        compare=compared(dict(ref="gain_sp", panel=2, series="list build", at="first"),
                         dict(ref="gain_sp", panel=2, series="whole step", at="first"),
                         dict(ref="t3_fn_new", panel=3, series="new (gpu-layer)", at="first"),
                         dict(ref="t3_fn_old", panel=3, series="old (gpu-old)", at="first")),
        pivot=[2],
        columns=["variant", "layer_assign", "decide", "system", "rc", "ne", "us_per_atom_step", "t_list_us", "t_force_us",
                 "frac_list", "frac_force", "nbr_per_atom", "layers", "steps"],
    ),
    dict(
        id="table4", title="Table 4: energy conservation of system S over 10^5 steps (GPU)",
        driver="runs/table4.sh", machine="gpu",
        csv=["{gpu}/table4.csv"], blocks="{gpu}/table4_blocks.csv",
        where=knobs(variant="gpu-layer", full="1", **S48),   # blocks with every step timed
        panels=[
            dict(title="(a) energy per atom relative to the first timed block", x="step", xlabel="step",
                 y="e_mean", ylabel="(<E/N> - <E/N>_first) / |<E/N>_first|",
                 series=looped(dict(label="float (paper)", where={"precision": "float"}, rel_first=True),
                               dict(label="double", where={"precision": "double"}, rel_first=True, optional=True)),
                 refs=[dict(id="drift_s", kind="pm")]),
        ],
        compare=compared(dict(ref="drift_s", column="drift", where={"precision": "float"}, abs=True),
                         dict(ref="drift_s", column="drift", where={"precision": "double"}, abs=True)),
        columns=["precision", "decide", "sample_every", "ne", "n", "steps", "equil", "e_start", "e_end", "drift",
                 "us_per_atom_step"],
    ),
    dict(
        id="table5", title="Table 5: shell thickness delta, system S (GPU)",
        driver="runs/table5.sh", machine="gpu",
        csv=[GPU_LAYER, "{gpu}/table5.csv"],
        where=knobs(variant="gpu-layer", precision="float", system="sp", ne="48"), prefer="delta",
        panels=[
            dict(title=f"(a) time per atom-step ({PROD})", x="delta", xlabel="shell thickness delta",
                 y="us_per_atom_step", ylabel=US, series=looped(dict(label="S")),
                 refs=[dict(id="delta_best", kind="vline")]),
            dict(title="(b) layers and rebuild interval", x="delta", xlabel="shell thickness delta", y="layers",
                 ylabel="N_l (layers), N_u (steps)",
                 series=looped(dict(label="N_l"), dict(label="N_u", y="steps_per_rebuild")),
                 refs=[dict(id="nl_sp", x=0.6, kind="point"), dict(id="nu_sp", x=0.6, kind="point")]),
            dict(title=f"(c) time fractions ({SHARE})", x="delta", xlabel="shell thickness delta",
                 y="frac_list", ylabel="fraction of the time",
                 series=looped(dict(label="list t_n/t"), dict(label="force t_f/t", y="frac_force"))),
        ],
        compare=compared(dict(ref="delta_best", panel=0, series="S", at="min")),
        columns=["delta", "decide", "cells_per_axis", "layers", "steps_per_rebuild", "nbr_per_atom", "us_per_atom_step",
                 "t_list_us", "t_force_us", "frac_list", "frac_force"],
    ),
    dict(
        id="table6", title="Table 6: threads per block, system S (GPU)",
        driver="runs/table6.sh", machine="gpu",
        csv=[GPU_LAYER, "{gpu}/table6.csv"], where=knobs("threads", variant="gpu-layer", precision="float", **S48),
        prefer="threads",
        panels=[
            dict(title=f"time per atom-step ({PROD})", x="threads", xlabel="threads per block N_T", logx=True,
                 y="us_per_atom_step", ylabel=US, series=looped(dict(label="S")),
                 refs=[dict(id="threads_best", kind="vline")]),
        ],
        compare=compared(dict(ref="threads_best", panel=0, series="S", at="min")),
        columns=["threads", "decide", "us_per_atom_step", "t_list_us", "t_force_us", "frac_list", "frac_force"],
    ),
    dict(
        id="table7", title="Table 7: steps between reorderings N_R, system S (GPU)",
        driver="runs/table7.sh", machine="gpu",
        csv=[GPU_LAYER, "{gpu}/table7.csv"], where=knobs("reorder", variant="gpu-layer", precision="float", **S48),
        prefer=r"reorder[-=]\d",
        panels=[
            dict(title=f"time per atom-step ({PROD})", x="reorder", xlabel="N_R (steps between reorderings)", logx=True,
                 y="us_per_atom_step", ylabel=US,
                 series=looped(dict(label="S, reordering every N_R", where={"reorder": "!0"}),
                               dict(label="S, never (N_R = 0)", where={"reorder": "0"}, hline=True)),
                 refs=[dict(id="reorder_best", kind="vline")]),
        ],
        compare=compared(dict(ref="reorder_best", panel=0, series="S, reordering every N_R", at="min")),
        columns=["reorder", "decide", "us_per_atom_step", "frac_reorder", "frac_list", "frac_force", "steps"],
    ),
    dict(
        id="table8", title="Table 8: performance over time without reordering, system S (GPU)",
        driver="runs/table8.sh", machine="gpu",
        csv=["{gpu}/table8.csv"], blocks="{gpu}/table8_blocks.csv",
        where=knobs("reorder", variant="gpu-layer", precision="float", timed="1"),
        panels=[
            dict(title=f"(a) time of each 1000-step block ({PROD})", x="step", xlabel="step", y="us_per_atom_step",
                 ylabel=US,
                 series=looped(dict(label="S, reorder every 100", where={**S48, "reorder": "100"}),
                               dict(label="S, never reordered", where={**S48, "reorder": "0"}),
                               dict(label="Ne=160, reorder every 100", where={"system": "sp", "ne": "160", "reorder": "100"},
                                    optional=True),
                               dict(label="Ne=160, never reordered", where={"system": "sp", "ne": "160", "reorder": "0"},
                                    optional=True))),
            dict(title="(b) slow-down without reordering", x="step", xlabel="step", y="us_per_atom_step",
                 ylabel="time never / time every 100",
                 series=looped(dict(label="S", ratio=("S, never reordered", "S, reorder every 100")),
                               dict(label="Ne=160", ratio=("Ne=160, never reordered", "Ne=160, reorder every 100"),
                                    optional=True)),
                 refs=[dict(id="noreorder_drop")]),
        ],
        compare=compared(dict(ref="noreorder_drop", panel=1, series="S", at="tail"),
                         dict(ref="noreorder_drop", panel=1, series="Ne=160", at="tail")),
        pivot=[0, 1],
        columns=["ne", "reorder", "decide", "steps", "us_per_atom_step", "frac_reorder"],
    ),
    dict(
        id="texture", title="Texture cache: how positions are read (GPU)",
        driver="runs/texture.sh", machine="gpu",
        csv=[GPU_LAYER, "{gpu}/texture.csv"], where=knobs("read", variant="gpu-layer", precision="float"),
        prefer="read",
        panels=[
            dict(title=f"(a) time per atom-step ({PROD})", x="read", xlabel="read path",
                 categories=["texture", "ldg", "plain"], y="us_per_atom_step", ylabel=US,
                 series=looped(dict(label="SP (S)", where=S48), dict(label="LJ Ne=48", where={**LJ, "ne": "48"}))),
            dict(title=f"(b) whole step relative to texture ({PROD})", x="read", xlabel="read path",
                 categories=["texture", "ldg", "plain"], y="us_per_atom_step", ylabel="time / time with texture",
                 series=looped(dict(label="SP (S)", where=S48, norm="texture"),
                               dict(label="LJ Ne=48", where={**LJ, "ne": "48"}, norm="texture")),
                 refs=[dict(id="texture_off")]),
            dict(title=f"(c) force kernel relative to texture ({KERNEL})", x="read", xlabel="read path",
                 categories=["texture", "ldg", "plain"], y="t_force_us", ylabel="t_force / t_force with texture",
                 series=looped(dict(label="SP (S) force kernel", where=S48, norm="texture"),
                               dict(label="LJ Ne=48 force kernel", where={**LJ, "ne": "48"}, norm="texture")),
                 refs=[dict(id="texture_off")]),
        ],
        # the force kernel is the verdict, the whole step beside it
        compare=compared(dict(ref="texture_off", panel=2, series="SP (S) force kernel", at="plain"),
                         dict(ref="texture_off", panel=1, series="SP (S)", at="plain")),
        pivot=[2],
        columns=["system", "ne", "read", "decide", "us_per_atom_step", "t_list_us", "t_force_us", "frac_list",
                 "frac_force"],
    ),
    dict(
        id="layout", title="Neighbour matrix layout: W(m,i) by rows or transposed (GPU)",
        driver="runs/layout.sh", machine="gpu",
        csv=[GPU_LAYER, "{gpu}/layout.csv"], where=knobs("wlayout", variant="gpu-layer", precision="float"),
        prefer="wlayout",
        panels=[
            dict(title=f"(a) time per atom-step ({PROD})", x="wlayout", xlabel="W layout", categories=["row", "col"],
                 y="us_per_atom_step", ylabel=US,
                 series=looped(dict(label="SP (S)", where=S48), dict(label="LJ Ne=48", where={**LJ, "ne": "48"}))),
            dict(title=f"(b) whole step relative to rows ({PROD})", x="wlayout", xlabel="W layout",
                 categories=["row", "col"], y="us_per_atom_step", ylabel="time / time with rows",
                 series=looped(dict(label="SP (S)", where=S48, norm="row"),
                               dict(label="LJ Ne=48", where={**LJ, "ne": "48"}, norm="row")),
                 refs=[dict(id="wlayout_col")]),
            dict(title=f"(c) force kernel relative to rows ({KERNEL})", x="wlayout", xlabel="W layout",
                 categories=["row", "col"], y="t_force_us", ylabel="t_force / t_force with rows",
                 series=looped(dict(label="SP (S) force kernel", where=S48, norm="row"),
                               dict(label="LJ Ne=48 force kernel", where={**LJ, "ne": "48"}, norm="row")),
                 refs=[dict(id="wlayout_col")]),
        ],
        compare=compared(dict(ref="wlayout_col", panel=2, series="SP (S) force kernel", at="col"),
                         dict(ref="wlayout_col", panel=1, series="SP (S)", at="col")),
        pivot=[2],
        columns=["system", "ne", "wlayout", "decide", "us_per_atom_step", "t_list_us", "t_force_us", "frac_list",
                 "frac_force"],
    ),
    dict(
        id="lammps", title="LAMMPS on one core beside the nbrlab CPU programs",
        driver="runs/lammps.sh and runs/cpu_chain.sh", machine="cpu",
        csv=["{cpu}/lammps.csv", "{cpu}/cpu_chain.csv"], where={"precision": "double"},
        panels=[
            dict(title="(a) time per atom-step", x="variant", xlabel="program",
                 categories=["lammps", "cpu-pairlist", "cpu-grouped", "cpu-full", "cpu-layer", "cpu-cells"],
                 y="us_per_atom_step", ylabel=US,
                 series=[dict(label="SP Ne=48 (S)", where=S48), dict(label="LJ Ne=32", where={"system": "lj", "ne": "32"})]),
            dict(title="(b) list entries per atom (full-list count)", x="variant", xlabel="program",
                 categories=["lammps", "cpu-pairlist", "cpu-grouped", "cpu-full", "cpu-layer"],
                 y="nbr_per_atom", ylabel="N_p / N_a", logy=True,
                 series=[dict(label="SP Ne=48 (S)", where=S48), dict(label="LJ Ne=32", where={"system": "lj", "ne": "32"})],
                 refs=[dict(id="np_sp"), dict(id="np_lj")]),
            dict(title="(c) steps between rebuilds", x="variant", xlabel="program",
                 categories=["lammps", "cpu-pairlist", "cpu-grouped", "cpu-full", "cpu-layer"],
                 y="steps_per_rebuild", ylabel="N_u (steps)",
                 series=[dict(label="SP Ne=48 (S)", where=S48), dict(label="LJ Ne=32", where={"system": "lj", "ne": "32"})],
                 refs=[dict(id="nu_sp"), dict(id="nu_lj")]),
        ],
        compare=[],
        columns=["variant", "system", "ne", "n", "us_per_atom_step", "nbr_per_atom", "steps_per_rebuild",
                 "frac_list", "frac_force", "e_start", "e_end", "drift", "pressure"],
    ),
]

BY_ID = {t["id"]: t for t in TABLES}

# The run-to-run spread: system S at the paper's settings appears in many GPU sweeps, each
# run the same configuration; the report shows how much its time varies between runs, the
# yardstick for every small difference in the tables above.
# One per step loop (the paper loop's as before issue 9, under its old title).
SPREADS = [dict(
    title="Run-to-run spread: system S at the paper's settings (GPU)" + ("" if loop == "paper" else ", device loop"),
    loop=loop,
    csv=[GPU_LAYER, "{gpu}/table1.csv", "{gpu}/table5.csv", "{gpu}/table6.csv", "{gpu}/table7.csv",
         "{gpu}/texture.csv", "{gpu}/layout.csv"],
    where={**knobs(variant="gpu-layer", precision="float", **S48), **LOOPS[loop]}, column="us_per_atom_step",
) for loop in ("paper", "device")]

