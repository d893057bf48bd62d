# tests/cases_32_declared.sh - bad input, generated from what each program declares: every
# program of variants/ that is built prints its options with --print-options (the option table:
# flag, type, domain, value, CSV column), and tests/declared.py derives the cases from that, so a
# new program or a new flag gets them with no edit here:
#   decl-values-P   each default lies in its domain and reads back through its own flag
#   decl-limits-P   below the minimum, above the maximum, a fraction, a word, a text too long:
#                   exit 2, one line naming the flag and the limit
#   decl-enums-P    a name outside the list: exit 2, one line with the choices
#   decl-missing-P  a flag without its value: exit 2, one line
#   decl-knobs-P    the flags the other programs of its table have and P lacks: refused, exit 2
# The limit check is itself planted out in `make mutants` (tests/mutants.txt: options-no-limits).
_t32_programs=""
for _t32_src in variants/*.c variants/*.cu; do
    _t32_p=$(basename "${_t32_src%.*}")
    [ -x "$BUILD/double/$_t32_p" ] && _t32_programs="$_t32_programs $_t32_p"
done
if [ -z "$_t32_programs" ]; then
    t_skip decl "no program built under $BUILD/double"
else
    for _t32_p in $_t32_programs; do
        # the other programs of the same option table: the Coulomb programs share theirs
        _t32_others=()
        for _t32_q in $_t32_programs; do
            [ "$_t32_q" = "$_t32_p" ] && continue
            [ "${_t32_q%%-*}" = coulomb ] || [ "$_t32_q" = coulomb ] && _t32_qc=1 || _t32_qc=0
            [ "${_t32_p%%-*}" = coulomb ] || [ "$_t32_p" = coulomb ] && _t32_pc=1 || _t32_pc=0
            [ $_t32_qc = $_t32_pc ] && _t32_others+=("$BUILD/double/$_t32_q")
        done
        for _t32_k in values limits enums missing; do
            t_ok "decl-$_t32_k-$_t32_p" python3 tests/declared.py "$_t32_k" "$BUILD/double/$_t32_p"
        done
        t_ok "decl-knobs-$_t32_p" python3 tests/declared.py knobs "$BUILD/double/$_t32_p" "${_t32_others[@]}"
    done
    # --print-options is the option table: every flag it lists is in --help, and back
    _t32_help_same() {
        local p=$1 a b
        a=$("$p" --print-options | tail -n +2 | cut -f1 | sort)
        b=$("$p" --help | sed -n 's/^  --\([a-z0-9-]*\).*/\1/p' | grep -vx print-options | sort)
        [ "$a" = "$b" ] || { diff <(echo "$a") <(echo "$b"); return 1; }
        echo "$(echo "$a" | wc -l) flags in both"
    }
    for _t32_p in $_t32_programs; do
        t_ok "decl-help-$_t32_p" _t32_help_same "$BUILD/double/$_t32_p"
    done
fi
