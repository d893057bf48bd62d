#!/usr/bin/env bash
# runs/device/onchip.sh - issue 27's timing: gpu-onchip (one launch per chunk) beside gpu-rumd
# and gpu-layer, float, production timing (us_per_step: the median of the 1000-step blocks),
# LAMMPS's LJ benchmark from the sc lattice at N = 512, 4096, 32768 (ne 8, 16, 32: the sizes of
# results/h200/rumd_gamdpy_ours.csv) and SP at N = 4096, in interleaved rounds (every point and
# program once, then again). gpu-rumd runs with the parameters its autotuner chose at 512 and 4096
# in rumd_gamdpy_ours.csv (t_p 16 / p_b 16; t_p 14 / p_b 32 / skin 0.7), its defaults elsewhere;
# gpu-layer with its best small-N loop (smalln.sh: device layers, reorder, reduce, graph cond,
# fused leapfrog, ldg, t_p 4); gpu-onchip-cluster is gpu-onchip with --tier cluster (its
# defaults), where it fits (not at 32768). Every run samples every 100 steps.
# Writes $OUT/onchip.csv (tags onchip-<program>-<point>-r<round>) and $OUT/onchip.txt (medians
# over the rounds). ~40 runs, about a minute on an H200.
# Settings: runs/device/onchip.sh --help (flags, or the environment: ROUNDS=1 ...).
set -u
. "$(dirname "$0")/lib.sh"
settings_begin "runs/device/onchip.sh [settings]" "issue 27's timing: gpu-onchip beside gpu-rumd and gpu-layer, interleaved rounds"
setting OUT /tmp/onchip-out "where onchip.csv and onchip.txt land (the device tool's \$OUT)"
setting BUILD build "the build directory the programs are taken from"
setting ROUNDS 3 "interleaved rounds"
setting POINTS "lammps-lj:8 lammps-lj:12 lammps-lj:16 lammps-lj:32 sp:16" "system:ne points"
settings_parse "$@"
cd "$(dirname "$0")/../.."
mkdir -p "$OUT"
csv=$OUT/onchip.csv
rm -f "$csv"
common="--decide device --sample-every 100 --steps 5000 --equil 1000 --stage-reps 0 --quiet"
args_of() {   # program point
    local sys=${2%%:*} ne=${2##*:} lat=""
    [ "$sys" = lammps-lj ] && lat="--lattice sc"
    case $1 in
        gpu-onchip) echo "--system $sys $lat --ne $ne" ;;
        gpu-onchip-cluster) echo "--system $sys $lat --ne $ne --tier cluster" ;;
        gpu-layer) echo "--system $sys $lat --ne $ne --layers device --reorder-at device --reduce device --graph cond --leapfrog fused --read ldg --tp 4" ;;
        gpu-rumd)
            case $2 in
                lammps-lj:8) echo "--system $sys $lat --ne $ne --graph on --read ldg --list n2 --tp 16 --pb 16" ;;
                lammps-lj:16) echo "--system $sys $lat --ne $ne --graph on --read ldg --list n2 --tp 14 --pb 32 --delta 0.7" ;;
                *) echo "--system $sys $lat --ne $ne --graph on --read ldg" ;;
            esac ;;
    esac
}
for round in $(seq 1 "$ROUNDS"); do
    for point in $POINTS; do
        for prog in gpu-onchip gpu-onchip-cluster gpu-rumd gpu-layer; do
            [ $prog = gpu-onchip-cluster ] && [ "${point##*:}" -ge 32 ] && continue
            tag=onchip-$prog-${point/:/-ne}-r$round
            # shellcheck disable=SC2046
            if ! "$BUILD/float/${prog%-cluster}" $(args_of $prog $point) $common --csv "$csv" --tag "$tag" >"$OUT/$tag.out" 2>&1; then
                echo "onchip: $tag failed: $(tail -1 "$OUT/$tag.out")"
            fi
        done
    done
done
awk -F, 'NR == 1 { for (k = 1; k <= NF; k++) c[$k] = k; next } $c["status"] == "ok" {
        t = $c["tag"]; sub(/-r[0-9]+$/, "", t); if (!(t in n)) order[++m] = t; v[t, ++n[t]] = $c["us_per_step"]; nat[t] = $c["n"] }
    END { printf "%-36s %7s %6s %10s\n", "point", "N", "runs", "us/step(median)"
          for (k = 1; k <= m; k++) { t = order[k]; q = n[t]
              for (a = 1; a <= q; a++) for (b = a + 1; b <= q; b++) if (v[t, b] < v[t, a]) { x = v[t, a]; v[t, a] = v[t, b]; v[t, b] = x }
              med = q % 2 ? v[t, (q + 1) / 2] : (v[t, q / 2] + v[t, q / 2 + 1]) / 2
              printf "%-36s %7d %6d %10.2f\n", t, nat[t], q, med } }' <(python3 runs/csvq.py wide "$csv") >"$OUT/onchip.txt"
cat "$OUT/onchip.txt"
