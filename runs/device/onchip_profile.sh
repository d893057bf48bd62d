#!/usr/bin/env bash
# runs/device/onchip_profile.sh - where gpu-onchip's chunk kernel spends its cycles (issue 27,
# item 5): Nsight Compute on one chunk of each case (100 steps in one launch), with warp-state
# sampling per SASS instruction, so that the per-step chain (loads, shuffles, barriers, remote
# stores, syncs) is priced from the hardware rather than reasoned. Run in the repository root of
# a built tree (make build/float/gpu-onchip). Per case under $OUT:
#   NAME.ncu-rep      the report (open it in Nsight Compute)
#   NAME-details.csv  the sections (--set full): duration, issue slots, stall reasons
#   NAME-sass.csv     the source page, SASS with its samples (runs/onchip_stalls.py sums it)
# ncu is told --clock-control none (the device notes: leave the clocks alone).
# Settings: runs/device/onchip_profile.sh --help.
set -u
. "$(dirname "$0")/lib.sh"
settings_begin "runs/device/onchip_profile.sh [settings]" "Nsight Compute on one chunk of gpu-onchip per case"
setting OUT /tmp/onchip-profile "where the reports and CSVs land (the device tool's \$OUT)"
setting PREC float "the build's precision"
setting CASES "llj8-cluster:--system,lammps-lj,--lattice,sc,--ne,8,--tier,cluster llj16-grid:--system,lammps-lj,--lattice,sc,--ne,16,--tier,grid,--tp,8" \
    "NAME:ARGS cases, the program's arguments comma-separated"
setting SKIP 10 "chunks launched before the one profiled (warm-up)"
settings_parse "$@"
export PATH=$PATH:/usr/local/cuda/bin
ncu=$(command -v ncu || ls /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | tail -1)
[ -n "$ncu" ] || { echo "onchip_profile.sh: no ncu on this machine" >&2; exit 2; }
prog=build/$PREC/gpu-onchip
[ -x "$prog" ] || { echo "onchip_profile.sh: $prog not built" >&2; exit 2; }
mkdir -p "$OUT"
rc=0
for c in $CASES; do
    name=${c%%:*} flags=${c#*:}
    IFS=, read -r -a args <<<"$flags"
    "$ncu" --clock-control none --kernel-name regex:'chunk_kernel' --launch-skip "$SKIP" \
        --launch-count 1 --set full --import-source yes -f -o "$OUT/$name" \
        "$prog" "${args[@]}" --steps 3000 --decide device --sample-every 100 >"$OUT/$name.log" 2>&1 ||
        { echo "$name: ncu failed (tail of $name.log):"; tail -5 "$OUT/$name.log"; rc=1; continue; }
    "$ncu" --import "$OUT/$name.ncu-rep" --page details --csv >"$OUT/$name-details.csv" 2>>"$OUT/$name.log"
    "$ncu" --import "$OUT/$name.ncu-rep" --page source --csv --print-source sass >"$OUT/$name-sass.csv" 2>>"$OUT/$name.log" ||
        echo "$name: no source page (see $name.log)"
    echo "$name: $(grep -m1 -i '"Duration"' "$OUT/$name-details.csv" | awk -F'","' '{print $(NF-1), $NF}')"
done
exit $rc
