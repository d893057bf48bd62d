#!/usr/bin/env bash
# tests/fake_gpu.sh - a stand-in for build/<prec>/gpu-layer and gpu-old on a machine without a
# GPU, so that the GPU table drivers (runs/gpu_tables.sh and everything it runs) can be
# exercised end to end: tags, revisions, CSV rows, block rows, figures, report. NOT a benchmark.
# Install as BUILD_DIR/<prec>/gpu-layer (a symlink); it runs the real cpu-layer of the same
# precision on a tiny system (Ne 8, LJ 12, a tenth of the steps, 100-step blocks), then writes
# the row into --csv and the block rows into --blocks-csv with the variant, size, steps and GPU
# knobs the driver asked for (the step loop's --decide and --graph included; --sample-every is
# cpu-layer's own), so the rows look like the ones the GPU program would write (the measured
# numbers are cpu-layer's; block steps are scaled back by 10).
# The knobs' defaults are not written here: they come from the real GPU program's
# --print-config where it is built (nvcc), else the knobs the driver did not set are "-" in the
# knobs column (not known: the CUDA-off pass of CI). --print-config answers as the GPU program
# would: cpu-layer's configuration and revision, with this program's name, size and knobs.
#   env: NBR_REAL_BUILD (the real build directory, default build)
set -euo pipefail
self=$(basename "$0") prec=$(basename "$(dirname "$0")")
root=$(cd "$(dirname "$(readlink -f "$0")")/.." && pwd)   # for runs/csvq.py
real=${NBR_REAL_BUILD:-build}/$prec/cpu-layer
gpu=${NBR_REAL_BUILD:-build}/$prec/$self
[ -x "$real" ] || { echo "fake_gpu: $real not built" >&2; exit 2; }
flags=(threads read reorder reorder-at wlayout layers reduce decide graph)
declare -A knob=()
if [ -x "$gpu" ] && conf=$("$gpu" --print-config 2>/dev/null); then
    for f in "${flags[@]}"; do
        v=$(printf '%s\n' "$conf" | sed -n "s/^$f=//p")
        if [ -n "$v" ]; then knob[$f]=$v; fi
    done
fi
args=() ne=16 steps=6000 equil=500 csv="" blocks="" quiet=0 print=0
while [ $# -gt 0 ]; do
    case "$1" in
        --threads|--read|--reorder|--reorder-at|--wlayout|--layers|--reduce|--decide|--graph) knob[${1#--}]=$2; shift 2 ;;
        --ne) ne=$2; shift 2 ;;
        --steps) steps=$2; shift 2 ;;
        --equil) equil=$2; shift 2 ;;
        --csv) csv=$2; shift 2 ;;
        --blocks-csv) blocks=$2; shift 2 ;;
        --quiet) quiet=1; shift ;;
        --print-config) print=1; shift ;;
        --allow-dirty) shift ;;   # the fake writes its rows itself, outside results/
        --max-pairs|--tp) shift 2 ;;
        *) args+=("$1"); shift ;;
    esac
done
s=$((steps / 10)) e=$((equil / 10)) small=8
case " ${args[*]} " in *" --system lj "*) small=12 ;; esac   # LJ's cells need a larger box
reorder=()
[ -n "${knob[reorder]:-}" ] && reorder=(--reorder "${knob[reorder]}")
if [ $print = 1 ]; then
    "$real" "${args[@]}" --ne "$small" --print-config |
        sed -e "s/^variant=.*/variant=$self/" -e "s/^ne=.*/ne=$ne/" -e "s/^n=.*/n=$((ne * ne * ne))/" \
            -e "s/^steps=.*/steps=$steps/" -e "s/^equil=.*/equil=$equil/" |
        grep -vE "^($(IFS='|'; echo "${!knob[*]}"))=" || true
    for f in "${!knob[@]}"; do echo "$f=${knob[$f]}"; done
    exit 0
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# the block lines keep the driver's step numbers: every 100 fake steps is "1000 steps"; a tenth
# of the equilibration does not reach the driver's temperature (LJ ends 22% above it: the program
# would end wrong-temp), so the fake does not rescale unless the driver asks: its rows are no state
# point anyway
rc=0
"$real" --rescale-every 1000000000 "${args[@]}" --ne "$small" --steps "$s" --equil "$e" --avg-block 100 "${reorder[@]}" \
    --csv "$tmp/row.csv" --blocks-csv "$tmp/blocks.csv" $([ $quiet = 1 ] && echo --quiet) >"$tmp/out" || rc=$?
awk 'match($0, /^# step [0-9]+:/) { $0 = "# step " substr($0, 8, RLENGTH - 8) * 10 ":" substr($0, RLENGTH + 1) }
     /^# (equil|steps|avg-block) +=/ { $NF = $NF * 10 } 1' "$tmp/out"
[ $rc -eq 0 ] || exit $rc
[ -n "$csv" ] || [ -n "$blocks" ] || exit 0
FAKE_ROOT=$root python3 - "$tmp" "$csv" "$blocks" "$self" "$ne" "$steps" "$equil" \
    "${knob[threads]:-}" "${knob[read]:-}" "${knob[reorder]:-}" "${knob[reorder-at]:-}" "${knob[wlayout]:-}" \
    "${knob[layers]:-}" "${knob[reduce]:-}" "${knob[decide]:-}" "${knob[graph]:-}" <<'EOF'
import csv, os, sys, zlib
tmp, dst, bdst, variant, ne, steps, equil, *k = sys.argv[1:]


def rows(path):
    with open(path, newline="") as f:
        r = list(csv.reader(f))
    return r[0], [dict(zip(r[0], x)) for x in r[1:]]


def append(path, head, out):
    """Append like the programs: header written once, another header refused."""
    have = ""
    if os.path.exists(path) and os.path.getsize(path):
        with open(path, newline="") as f:
            have = next(csv.reader(f))
        if have != head:
            sys.exit(f"fake_gpu: {path} has another header (CSV schema changed): write to a new file")
    with open(path, "a", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        if not have:
            w.writerow(head)
        for row in out:
            w.writerow([row[c] for c in head])


head, (row,) = rows(os.path.join(tmp, "row.csv"))
row.update(variant=variant, ne=ne, n=str(int(ne) ** 3), steps=steps, equil=equil, steps_done=steps)
# the knobs column (docs/csv.md): cpu-layer's pairs, the driver's knobs set or added
sys.path.insert(0, os.path.join(os.environ["FAKE_ROOT"], "runs"))
import csvq  # noqa: E402
knobs = csvq.knob_pairs(row["knobs"], "fake_gpu row", [c for c in head if c != "knobs"])
for col, v in zip(["threads", "read", "reorder", "reorder_at", "wlayout", "layer_assign", "reduce", "decide", "graph"], k):
    if v:
        knobs[col] = v
    else:   # cpu-layer's own value; "-" (not known) for a GPU knob with no real GPU program built
        knobs.setdefault(col, "-")
row["knobs"] = " ".join(f"{c}={v}" for c, v in knobs.items())
# a made-up, repeatable spread so that the figures are not flat lines
f = 1 + (zlib.crc32(",".join([variant, ne, row["delta"], row["rc"]] + k).encode()) % 100) / 200
scale = lambda v: f"{float(v) * f / 20:.6g}" if v not in ("", "-") else v
row["us_per_atom_step"] = scale(row["us_per_atom_step"])
if dst:
    append(dst, head, [row])
if bdst:
    bhead, blocks = rows(os.path.join(tmp, "blocks.csv"))
    for b in blocks:
        b.update(variant=variant, ne=ne, n=row["n"])
        for c in ("step", "steps_in_block", "timed_steps"):
            b[c] = str(int(b[c]) * 10)
        b["us_per_atom_step"] = scale(b["us_per_atom_step"])
    append(bdst, bhead, blocks)
EOF
