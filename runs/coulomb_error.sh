#!/usr/bin/env bash
# runs/coulomb_error.sh - where the float Coulomb kernels' energy error comes from (issue 12):
# builds runs/coulomb_error.c (gcc, OpenMP) and runs it on water boxes and the protein, each
# written by `coulomb --write`. The figures are relative errors against the exact energy with
# one float source switched on after another (input, dx and r^2, rsqrt, the kernel's kahan and
# plain float sums), for the coordinates as given, centred, and with each row scaled by its
# own s_i (what the kahan and pairwise modes do). CPU only, about N^2 / 2 * 9 ns per column
# per core: 43 239 atoms about a minute on 2 cores, 239 922 half an hour.
#   usage: runs/coulomb_error.sh [settings] [SYSTEM...]   (SYSTEM: water box size N, or bio;
#          default 43239 bio). Settings: --help.
set -euo pipefail
cd "$(dirname "$0")/.."
. runs/lib.sh
settings_begin "runs/coulomb_error.sh [settings] [SYSTEM...]" "where the float Coulomb energy error comes from (SYSTEM: water box size N, or bio; default 43239 bio)"
setting COLUMNS_SEL gcs "the coordinate columns: g given, c centred, s scaled"
setting BLOCK 128 "the kernel's block of j atoms"
setting THREADS "" "OpenMP threads (default OMP_NUM_THREADS)"
settings_parse_args "$@"
set -- "${SETTINGS_ARGS[@]}"
c=$BUILD/double/coulomb
[ -x "$c" ] || { echo "coulomb_error.sh: $c not built (make)" >&2; exit 2; }
bin=$BUILD/coulomb_error
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
gcc -std=c11 -O3 -march=native -fopenmp -Wall -Wextra -o "$bin" runs/coulomb_error.c -lm
[ -n "$THREADS" ] && export OMP_NUM_THREADS=$THREADS
[ $# -gt 0 ] || set -- 43239 bio
for s in "$@"; do
    case $s in
        bio) zcat reference/adk_oplsaa/adk_oplsaa.xyzq.gz >"$tmp/sys.xyzq" ;;
        *) $c --water "$s" --write "$tmp/sys.xyzq" >/dev/null ;;
    esac
    "$bin" "$tmp/sys.xyzq" "$BLOCK" nan "$COLUMNS_SEL" | sed "s|$tmp/sys.xyzq|$s|"
done
