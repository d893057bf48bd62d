#!/usr/bin/env bash
# tests/fake_gpu.sh - a stand-in for build/<prec>/gpu-layer and gpu-old on a machine without a
# GPU, so that the GPU table drivers (runs/gpu_tables.sh and everything it runs) can be
# exercised end to end: tags, CSV rows, block lines, figures, report. NOT a benchmark.
# Install as BUILD_DIR/<prec>/gpu-layer (a symlink); it runs the real cpu-layer of the same
# precision on a tiny system (Ne 8, LJ 12, a tenth of the steps, 100-step blocks), then writes the
# row into --csv with the variant, size, steps and GPU knobs the driver asked for, so the
# row looks like the one the GPU program would write (the measured numbers are cpu-layer's).
#   env: NBR_REAL_BUILD (the real build directory, default build)
set -u
self=$(basename "$0") prec=$(basename "$(dirname "$0")")
real=${NBR_REAL_BUILD:-build}/$prec/cpu-layer
[ -x "$real" ] || { echo "fake_gpu: $real not built" >&2; exit 2; }
declare -A knob=([threads]=128 [read]=texture [reorder]=100 [reorder-at]=host [wlayout]=row [layers]=host [reduce]=host)
args=() ne=16 steps=6000 equil=500 csv="" quiet=0
while [ $# -gt 0 ]; do
    case "$1" in
        --threads|--read|--reorder|--reorder-at|--wlayout|--layers|--reduce) knob[${1#--}]=$2; shift 2 ;;
        --ne) ne=$2; shift 2 ;;
        --steps) steps=$2; shift 2 ;;
        --equil) equil=$2; shift 2 ;;
        --csv) csv=$2; shift 2 ;;
        --quiet) quiet=1; shift ;;
        --max-pairs|--tp) shift 2 ;;
        *) args+=("$1"); shift ;;
    esac
done
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
s=$((steps / 10)) e=$((equil / 10)) small=8
case " ${args[*]} " in *" --system lj "*) small=12 ;; esac   # LJ's cells need a larger box
# the block lines keep the driver's step numbers: every 100 fake steps is "1000 steps"
"$real" "${args[@]}" --ne "$small" --steps "$s" --equil "$e" --avg-block 100 --reorder "${knob[reorder]}" \
    --csv "$tmp/row.csv" $([ $quiet = 1 ] && echo --quiet) |
    awk 'match($0, /^# step [0-9]+:/) { $0 = "# step " substr($0, 8, RLENGTH - 8) * 10 ":" substr($0, RLENGTH + 1) }
         /^# (equil|steps|avg-block) +=/ { $NF = $NF * 10 } 1'
rc=${PIPESTATUS[0]}
[ $rc -eq 0 ] || exit $rc
[ -n "$csv" ] || exit 0
python3 - "$tmp/row.csv" "$csv" "$self" "$ne" "$steps" "$equil" \
    "${knob[threads]}" "${knob[read]}" "${knob[reorder]}" "${knob[reorder-at]}" "${knob[wlayout]}" \
    "${knob[layers]}" "${knob[reduce]}" <<'EOF'
import sys, zlib
src, dst, variant, ne, steps, equil, *k = sys.argv[1:]
lines = open(src).read().split("\n")
head, row = lines[0].split(","), dict(zip(lines[0].split(","), lines[1].split(",")))
row.update(variant=variant, ne=ne, n=str(int(ne) ** 3), steps=steps, equil=equil)
row.update(zip(["threads", "read", "reorder", "reorder_at", "wlayout", "layer_assign", "reduce"], k))
# a made-up, repeatable spread so that the figures are not flat lines
f = 1 + (zlib.crc32(",".join([variant, ne, row["delta"], row["rc"]] + k).encode()) % 100) / 200
row["us_per_atom_step"] = f"{float(row['us_per_atom_step']) * f / 20:.6g}"
try:
    have = open(dst).readline().rstrip("\n")
except OSError:
    have = ""
with open(dst, "a") as out:
    if not have:
        out.write(",".join(head) + "\n")
    out.write(",".join(row[c] for c in head) + "\n")
EOF
