#!/usr/bin/env bash
# runs/table.sh CSV [TAG-PREFIX] - print the main columns of a results CSV as a table
# (rows whose tag starts with TAG-PREFIX; all rows without one).
csv=$1 prefix=${2:-}
[ -f "$csv" ] || { echo "table.sh: no such file: $csv" >&2; exit 2; }
awk -F, -v prefix="$prefix" '
NR == 1 {
    for (k = 1; k <= NF; k++) col[$k] = k
    split("variant precision system ne n us_per_atom_step frac_list frac_force nbr_per_atom layers steps_per_rebuild bytes_per_atom drift status", want, " ")
    for (k in want) if (!(want[k] in col)) { printf "table.sh: %s has no column %s (line 1)\n", FILENAME, want[k] > "/dev/stderr"; bad = 1; exit 2 }
    printf "%-13s %-6s %-3s %4s %8s %10s %6s %6s %8s %5s %6s %8s %10s %s\n", "variant", "prec", "sys", "ne", "N",
           "us/atom-st", "list", "force", "Np/Na", "N_l", "N_u", "B/atom", "drift", "status"
    next
}
NF != length(col) { printf "table.sh: %s line %d has %d fields, header has %d\n", FILENAME, NR, NF, length(col) > "/dev/stderr"; bad = 1; exit 2 }
index($col["tag"], prefix) == 1 {
    printf "%-13s %-6s %-3s %4s %8s %10.4g %6.3f %6.3f %8.2f %5s %6.2f %8.0f %10.3g %s\n", $col["variant"], $col["precision"],
           $col["system"], $col["ne"], $col["n"], $col["us_per_atom_step"], $col["frac_list"], $col["frac_force"],
           $col["nbr_per_atom"], $col["layers"], $col["steps_per_rebuild"], $col["bytes_per_atom"], $col["drift"], $col["status"]
}
END { exit bad ? 2 : 0 }' "$csv"
