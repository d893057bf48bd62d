#!/usr/bin/env bash
# runs/same_physics.sh [options] A B - do two revisions compute the same physics?
#
# Issue 26's refactor promise: in double every program's per-atom forces and energies on a
# given start equal the old revision's within 1e-12 and its rebuild steps over 500 steps are
# the same; in float both pass their check. For every program built in both A and B (the
# programs given, default every gpu-* where a GPU runs them, else every cpu-*), and each of
# its code paths below that it has flags for, two runs per build from the same start:
#   step 0   --steps 0 --check: U and W (the check prints them to 12 digits) within the
#            tolerance between A and B, and each build's largest per-atom force and energy
#            error against the same O(N^2) reference within half of it, so that the two
#            builds' per-atom forces differ by less than the tolerance;
#   500      --steps 500, no rescaling, --check: the steps of the rebuilds (hashed in the
#            summary) identical, and the check passing in both.
# It reads the check's and the summary's lines, because that is what both revisions print (the
# older ones have no machine-readable form of them).
#   A, B   as runs/compare.sh: a git revision, WT, dir:PATH or build:PATH
# Settings (runs/same_physics.sh --help): --programs "P ...", --precision double|float, --tol X,
# --out DIR, --jobs N; flags only, not read from the environment.
# rebuilds: N:H, the count and the hash of the steps of the rebuilds. A path whose flag values
# both builds refuse alike (exit 2, the same line: gpu-onchip's --list sort) is one row
# "refused", verdict n/a.
# Output: DIR/same_physics.csv, one row per (program, path, quantity) with both values, their
# relative difference, the tolerance and the verdict; a table on stdout.
# Exit: 0 the same, 1 a difference beyond the tolerance (or a check failing), 2 could not run.
set -u
cd "$(dirname "$0")/.." || exit 2
. runs/lib.sh
. runs/revs.sh

settings_begin "runs/same_physics.sh [settings] A B" "do two revisions compute the same physics? A, B as runs/compare.sh: a git revision, WT, dir:PATH or build:PATH"
setting programs "" "programs to compare (default: every gpu-* built in both with a GPU present, else every cpu-*)"
setting precision double "double (tolerance 1e-12, hashes must match) or float (the checks must pass; U, W and the hashes are reported, not required)"
setting tol "" "relative tolerance of U, W and the per-atom errors (default: double 1e-12, float 1e-5)"
setting out build/same-physics "where same_physics.csv goes"
setting jobs 2 "make -j of the builds"
settings_parse_args "$@"
pos=("${SETTINGS_ARGS[@]}") prec=$precision
for a in "${pos[@]}"; do
    case $a in -*) echo "same_physics.sh: unknown option $a (--help lists them)" >&2; exit 2 ;; esac
done
[ ${#pos[@]} -eq 2 ] || { echo "same_physics.sh: two revisions A B, not ${#pos[@]} arguments (--help)" >&2; exit 2; }
case $prec in double) : "${tol:=1e-12}" ;; float) : "${tol:=1e-5}" ;;
    *) echo "same_physics.sh: --precision $prec: double or float" >&2; exit 2 ;; esac

REV_PRECISIONS=$prec REV_JOBS=$jobs REV_TARGETS=cpu
have_gpu && REV_TARGETS="cpu gpu"
export REV_PRECISIONS REV_JOBS REV_TARGETS
trap rev_cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
rev_tree "${pos[0]}" "" || exit 2
a_build=$REV_BUILD a_label=$REV_LABEL
suffix=""
[ "${pos[0]}" = "${pos[1]}" ] && suffix=.b
rev_tree "${pos[1]}" "$suffix" || exit 2
b_build=$REV_BUILD b_label=$REV_LABEL

if [ -z "$programs" ]; then
    glob='cpu-*'
    have_gpu && glob='gpu-*'
    for f in "$a_build/$prec"/$glob; do
        p=${f##*/}
        [ -x "$f" ] && [ -x "$b_build/$prec/$p" ] && programs="$programs $p"
    done
fi
[ -n "${programs// /}" ] || { echo "same_physics.sh: no program built in both $a_label and $b_label" >&2; exit 2; }

# The code paths: flags, run where the program takes every flag of them (its --help).
paths=("" "--tp 4" "--list n2" "--list sort" "--list none" "--decide device" "--wlayout col" "--read plain")
starts=("--system sp --ne 8 --config jitter --seed 7" "--system lj --ne 10 --config jitter --seed 7")

has_flags() {   # HELP FLAGS...: every --flag of FLAGS is in HELP
    local help=$1 w; shift
    for w in "$@"; do
        case $w in --*) grep -Eq -- "^  $w( |\$)" <<<"$help" || return 1 ;; esac
    done
}
# --decide device takes the device versions of the stages the host would otherwise run, and
# gpu-dd a backend without host steps (p2p: one rank works on one GPU)
device_companions() {   # HELP PATH -> PATH with --layers / --reorder-at device, --comm p2p where HELP has them
    local help=$1 path=$2 f
    if [ "$path" = "--decide device" ]; then
        for f in --layers --reorder-at; do has_flags "$help" $f && path+=" $f device"; done
        has_flags "$help" --comm && path+=" --comm p2p"
    fi
    echo "$path"
}
field_after() { awk -v w="$1" '{ for (k = 1; k < NF; k++) if ($k == w) v = $(k + 1) } END { gsub(/,$/, "", v); print v }'; }

mkdir -p "$out" || exit 2
csv=$out/same_physics.csv
echo "a,b,precision,program,path,start,quantity,a_value,b_value,rel_diff,tol,verdict" >"$csv"
bad=0 rows=0
row() {   # program path start quantity a b diff verdict
    echo "$a_label,$b_label,$prec,$1,${2:-default},$3,$4,$5,$6,$7,$tol,$8" >>"$csv"
    printf '%-11s %-15s %-3s %-12s %-20s %-20s %-9s %s\n' "$1" "${2:-default}" "$3" "$4" "$5" "$6" "$7" "$8"
    rows=$((rows + 1))
    case $8 in same | reported | n/a) ;; *) bad=1 ;; esac
}
relcmp() {   # a b tol -> "diff verdict"
    awk -v a="$1" -v b="$2" -v t="$3" 'BEGIN {
        if (a == "" || b == "") { print "- missing"; exit }
        d = a - b; if (d < 0) d = -d; s = (a < 0 ? -a : a); if (s == 0) s = 1
        printf "%.3g %s\n", d / s, (d / s <= t ? "same" : "differs") }'
}

printf '%-11s %-15s %-3s %-12s %-20s %-20s %-9s %s\n' program path sys quantity "A ($a_label)" "B ($b_label)" rel verdict
for p in $programs; do
    help_a=$("$a_build/$prec/$p" --help 2>/dev/null) help_b=$("$b_build/$prec/$p" --help 2>/dev/null)
    for path in "${paths[@]}"; do
        # shellcheck disable=SC2086
        has_flags "$help_a" $path && has_flags "$help_b" $path || continue
        run_path=$(device_companions "$help_b" "$path")
        for start in "${starts[@]}"; do
            sys=$(echo "$start" | awk '{ print $2 }')
            declare -A got=()   # got[QUANTITY:SIDE], what the side's two runs printed
            for k in a b; do
                bin=$a_build/$prec/$p
                [ $k = b ] && bin=$b_build/$prec/$p
                # shellcheck disable=SC2086
                r0=$("$bin" $start $run_path --steps 0 --equil 0 --check 2>&1)
                got[rc:$k]=$?
                # shellcheck disable=SC2086
                r5=$("$bin" $start $run_path --steps 500 --equil 0 --rescale-every 100000 --check 2>&1)
                got[U:$k]=$(sed -n 's/^check total energy: U = \([^,]*\),.*/\1/p' <<<"$r0")
                got[W:$k]=$(sed -n 's/^check virial: W = \([^,]*\),.*/\1/p' <<<"$r0")
                got[force/atom:$k]=$(grep '^check forces' <<<"$r0" | field_after error)
                got[energy/atom:$k]=$(grep '^check energies' <<<"$r0" | field_after error)
                got[rebuilds:$k]=$(sed -n 's/.*rebuilds after step 0: \([0-9]*\), their steps hashed \([0-9a-f]*\).*/\1:\2/p' <<<"$r5")
                got[refusal:$k]=$(head -1 <<<"$r0")
                got[checks:$k]=$(printf '%s\n%s\n' "$r0" "$r5" | grep -c "^check $p: PASS")
            done
            # a value the program's option table refuses (gpu-onchip's --list sort): both builds
            # exit EXIT_INPUT with the same line, so there is nothing to compare
            if [ "${got[rc:a]}" = 2 ] && [ "${got[rc:b]}" = 2 ] && [ "${got[refusal:a]}" = "${got[refusal:b]}" ]; then
                row "$p" "$path" "$sys" refused "${got[refusal:a]//,/;}" "${got[refusal:b]//,/;}" - n/a
                unset got
                continue
            fi
            for q in U W; do
                read -r d v < <(relcmp "${got[$q:a]}" "${got[$q:b]}" "$tol")
                row "$p" "$path" "$sys" $q "${got[$q:a]}" "${got[$q:b]}" "$d" "$v"
            done
            half=$(awk -v t="$tol" 'BEGIN { print t / 2 }')
            for q in force/atom energy/atom; do
                v=$(awk -v a="${got[$q:a]}" -v b="${got[$q:b]}" -v h="$half" -v f="$prec" 'BEGIN {
                    if (a == "" && b == "") print "n/a"; else if (a == "" || b == "") print "missing"
                    else if (f == "float") print "reported"
                    else print (a <= h && b <= h) ? "same" : "differs" }')
                row "$p" "$path" "$sys" $q "${got[$q:a]}" "${got[$q:b]}" "<=$half" "$v"
            done
            ha=${got[rebuilds:a]} hb=${got[rebuilds:b]}
            if [ -n "$ha" ] && [ "$ha" = "$hb" ]; then v=same; elif [ $prec = float ]; then v=reported; else v=differs; fi
            row "$p" "$path" "$sys" rebuilds "$ha" "$hb" - "$v"
            [ "${got[checks:a]}" = 2 ] && [ "${got[checks:b]}" = 2 ] && v=same || v=differs
            row "$p" "$path" "$sys" checks "${got[checks:a]}/2 PASS" "${got[checks:b]}/2 PASS" - "$v"
            unset got
        done
    done
done
echo "same_physics.sh: $rows comparisons, $( [ $bad = 0 ] && echo "all the same" || echo "$(grep -c ',differs$\|,missing$' "$csv") differ" ) ($csv)"
exit $bad
