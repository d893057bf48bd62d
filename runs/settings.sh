# runs/settings.sh - a driver's settings in one table: flags, --help, --config, the record.
# Sourced by runs/lib.sh (so by every driver). The shell side of common/params.c's option
# table: a setting is declared once and parsing, --help and the record follow from it.
#
#   settings_begin USAGE [LINE]...   the driver's synopsis and description for --help; also
#                         says the driver parses its settings (settings_hook waits for it)
#   setting NAME DEFAULT DOC         a setting with a value: --name VALUE, --name=VALUE
#   setting_switch NAME DOC          0 or 1: --name sets 1, --name=0 / --name=1
#                         NAME is the variable the driver's body reads (the flag is NAME in
#                         lower case, _ as -; not _s_*, settings.sh's own locals). The variable is set at once from the environment
#                         (upper-case names only: the old interface, kept for compatibility) or
#                         DEFAULT, so a driver not yet converted still works as before.
#   settings_parse ARGS...      flags only (a driver without positional arguments)
#   settings_parse_args ARGS... flags anywhere, -- ends them; the rest in SETTINGS_ARGS
#   settings_parse_head ARGS... flags up to the first argument that is not one (sweep.sh: its
#                         own --flag lists follow its positional arguments)
#                         Precedence: flag > --config FILE (NAME=VALUE lines; several are read
#                         in order) > environment > default. --help prints the table (exit 0);
#                         an unknown flag or config name is refused in one line (exit 2).
#                         A variable set in the environment that is a setting of some driver
#                         in runs/ but not of this one is unset and named on stderr: it does
#                         nothing here. Then the hooks (settings_hook) run.
#   settings_forward DRIVER...  a driver that runs other drivers (runs/gpu_tables.sh): their
#                         settings set in the environment are theirs, left there for them
#                         (recorded as handed on), not ignored
#   settings_hook FN      run FN after settings_parse (a library's checks and set-up that
#                         need the final values); at once when the driver has no settings_begin
#   settings_source NAME  default | env | config | flag
#   settings_prefer NAME VALUE...  VALUE where NAME is still at its default (QUICK's values)
#   settings_shared       SETTINGS_SHARED=(--name=VALUE ...): the library settings not at their
#                         default, to hand on to a sub-driver (runs/sweep.sh)
#   settings_record FILE  append this run's block to FILE.settings (once per FILE per run):
#                         "# run" line, then NAME=VALUE for every setting (the block is itself
#                         a valid --config), their sources, the settings ignored from the
#                         environment and the NBR_* variables the programs may read

[ -z "${SETTINGS_LOADED:-}" ] || return 0
SETTINGS_LOADED=1
SETTINGS_NAMES=() SETTINGS_ARGS=() SETTINGS_HOOKS=() SETTINGS_USAGE=() SETTINGS_IGNORED=()
declare -A SETTINGS_DEFAULT=() SETTINGS_DOC=() SETTINGS_KIND=() SETTINGS_SRC=() SETTINGS_RECORDED=() SETTINGS_LIB=()
SETTINGS_DRIVER="" SETTINGS_PARSED="" SETTINGS_ARGV=""
SETTINGS_PROG=$(basename "$0")
declare -A SETTINGS_FORWARD=()
SETTINGS_HANDED=()

settings_begin() { SETTINGS_DRIVER=1; SETTINGS_USAGE=("$@"); }

_settings_declare() {   # KIND NAME DEFAULT DOC
    local _s_kind=$1 _s_name=$2
    [[ $_s_name =~ ^[A-Za-z_][A-Za-z0-9_]*$ && $_s_name != _s_* ]] || { echo "settings: bad setting name '$_s_name'" >&2; exit 2; }
    [ -n "${SETTINGS_KIND[$_s_name]:-}" ] || SETTINGS_NAMES+=("$_s_name")
    SETTINGS_KIND[$_s_name]=$_s_kind SETTINGS_DEFAULT[$_s_name]=$3 SETTINGS_DOC[$_s_name]=$4
    # declared in a library (runs/lib.sh, runs/tables_lib.sh), not the driver: a shared setting
    [ "$(basename "${BASH_SOURCE[2]}")" = "$SETTINGS_PROG" ] || SETTINGS_LIB[$_s_name]=1
    # the old interface: an upper-case name set in the environment (set, even if empty)
    if [[ $_s_name =~ ^[A-Z] ]] && [ -n "${!_s_name+x}" ]; then
        SETTINGS_SRC[$_s_name]=env
    else
        SETTINGS_SRC[$_s_name]=default
        printf -v "$_s_name" '%s' "$3"
    fi
}
setting() { _settings_declare value "$1" "$2" "$3"; }
setting_switch() { _settings_declare switch "$1" 0 "$2"; }

_settings_flag() { local f=${1,,}; echo "${f//_/-}"; }
_settings_name_of_flag() {   # the declared name whose flag is $1, or nothing
    local _s_n
    for _s_n in "${SETTINGS_NAMES[@]}"; do [ "$(_settings_flag "$_s_n")" = "$1" ] && { echo "$_s_n"; return 0; }; done
    return 0
}
_settings_die() { echo "$SETTINGS_PROG: $*" >&2; exit 2; }

_settings_set() {   # NAME VALUE SOURCE
    if [ "${SETTINGS_KIND[$1]}" = switch ] && [ "$2" != 0 ] && [ "$2" != 1 ]; then
        _settings_die "--$(_settings_flag "$1")=$2: expected 0 or 1"
    fi
    printf -v "$1" '%s' "$2"
    SETTINGS_SRC[$1]=$3
}

_settings_config() {   # FILE: NAME=VALUE lines, # comments
    local _s_file=$1 _s_line _s_name _s_value _s_k=0
    [ -r "$_s_file" ] || _settings_die "--config $_s_file: cannot read it"
    while IFS= read -r _s_line || [ -n "$_s_line" ]; do
        _s_k=$((_s_k + 1))
        _s_line=${_s_line#"${_s_line%%[![:space:]]*}"}
        case "$_s_line" in ''|'#'*) continue ;; esac
        [[ $_s_line =~ ^([A-Za-z_][A-Za-z0-9_]*)=(.*)$ ]] || _settings_die "$_s_file:$_s_k: expected NAME=VALUE"
        _s_name=${BASH_REMATCH[1]} _s_value=${BASH_REMATCH[2]}
        _s_value=${_s_value%"${_s_value##*[![:space:]]}"}
        [[ $_s_value =~ ^\"(.*)\"$ || $_s_value =~ ^\'(.*)\'$ ]] && _s_value=${BASH_REMATCH[1]}
        [ -n "${SETTINGS_KIND[$_s_name]:-}" ] || _settings_die "$_s_file:$_s_k: $_s_name is not a setting of $SETTINGS_PROG (--help lists them)"
        _settings_set "$_s_name" "$_s_value" config
    done <"$_s_file"
}

settings_help() {
    local _s_n _s_line
    if [ ${#SETTINGS_USAGE[@]} -gt 0 ]; then
        echo "usage: ${SETTINGS_USAGE[0]}"
        for _s_line in "${SETTINGS_USAGE[@]:1}"; do echo "  $_s_line"; done
        echo
    fi
    echo "settings (--name VALUE or --name=VALUE; --config FILE reads NAME=VALUE lines; flag >"
    echo "config > environment variable NAME (upper-case names) > default):"
    for _s_n in "${SETTINGS_NAMES[@]}"; do
        if [ "${SETTINGS_KIND[$_s_n]}" = switch ]; then
            printf '  --%-22s %s [%s, 0 or 1]\n' "$(_settings_flag "$_s_n")" "${SETTINGS_DOC[$_s_n]}" "$_s_n"
        else
            printf '  --%-22s %s [%s, default: %s]\n' "$(_settings_flag "$_s_n") V" "${SETTINGS_DOC[$_s_n]}" \
                "$_s_n" "${SETTINGS_DEFAULT[$_s_n]:-(none)}"
        fi
    done
    printf '  --%-22s %s\n' "config FILE" "NAME=VALUE lines (# comments), e.g. a FILE.settings block" \
        "help" "this list"
}

# every upper-case name declared by some driver or library in runs/ (what "a driver variable" is)
settings_forward() {
    local _s_n
    for _s_n in $(grep -hoE '^[[:space:]]*setting(_switch)? [A-Z][A-Z0-9_]*' "$@" | awk '{ print $2 }'); do
        SETTINGS_FORWARD[$_s_n]=1
    done
}

_settings_known() {
    grep -hoE '^[[:space:]]*setting(_switch)? [A-Z][A-Z0-9_]*' "$NBR_RUNS_DIR"/*.sh "$NBR_RUNS_DIR"/device/*.sh 2>/dev/null |
        awk '{ print $2 }' | sort -u
}

_settings_parse() {   # HEAD ARGS...
    local _s_head=$1 _s_a _s_flag _s_name _s_value _s_configs=() _s_flags=() _s_i
    shift
    SETTINGS_ARGS=()
    SETTINGS_ARGV=$(printf '%q ' "$@")
    # pass 1: split the arguments; configs are read before any flag is applied
    while [ $# -gt 0 ]; do
        _s_a=$1
        case "$_s_a" in
        --) shift; SETTINGS_ARGS+=("$@"); break ;;
        --help|-h) settings_help; exit 0 ;;
        --config) [ $# -ge 2 ] || _settings_die "--config needs a FILE"; _s_configs+=("$2"); shift 2; continue ;;
        --config=*) _s_configs+=("${_s_a#--config=}"); shift; continue ;;
        --*)
            _s_flag=${_s_a#--} _s_value="" ; _s_flag=${_s_flag%%=*}
            _s_name=$(_settings_name_of_flag "$_s_flag")
            [ -n "$_s_name" ] || _settings_die "unknown option --$_s_flag (--help lists the settings)"
            if [[ $_s_a == *=* ]]; then _s_value=${_s_a#*=}
            elif [ "${SETTINGS_KIND[$_s_name]}" = switch ]; then _s_value=1
            else
                [ $# -ge 2 ] || _settings_die "--$_s_flag needs a value"
                _s_value=$2; shift
            fi
            _s_flags+=("$_s_name" "$_s_value"); shift ;;
        *)
            if [ "$_s_head" = 1 ]; then SETTINGS_ARGS+=("$@"); break; fi
            SETTINGS_ARGS+=("$_s_a"); shift ;;
        esac
    done
    for _s_a in "${_s_configs[@]}"; do _settings_config "$_s_a"; done
    for ((_s_i = 0; _s_i < ${#_s_flags[@]}; _s_i += 2)); do _settings_set "${_s_flags[_s_i]}" "${_s_flags[_s_i + 1]}" flag; done
    # a driver variable this driver does not declare does nothing here: say so, and unset it so
    # that no library code reads it either
    local _s_known _s_exported
    _s_exported=" $(compgen -e | tr '\n' ' ') "
    SETTINGS_IGNORED=()
    for _s_known in $(_settings_known); do
        [ -n "${SETTINGS_KIND[$_s_known]:-}" ] || [[ $_s_exported != *" $_s_known "* ]] && continue
        if [ -n "${SETTINGS_FORWARD[$_s_known]:-}" ]; then
            SETTINGS_HANDED+=("$_s_known")
        else
            SETTINGS_IGNORED+=("$_s_known")
            unset "$_s_known"
        fi
    done
    [ ${#SETTINGS_IGNORED[@]} -eq 0 ] ||
        echo "$SETTINGS_PROG: ignoring ${SETTINGS_IGNORED[*]} from the environment: not settings of $SETTINGS_PROG (--help lists them)" >&2
    SETTINGS_PARSED=1
    for _s_a in "${SETTINGS_HOOKS[@]}"; do "$_s_a"; done
}
settings_parse() {
    _settings_parse 0 "$@"
    [ ${#SETTINGS_ARGS[@]} -eq 0 ] || _settings_die "unexpected argument '${SETTINGS_ARGS[0]}' (--help lists the settings)"
}
settings_parse_args() { _settings_parse 0 "$@"; }
settings_parse_head() { _settings_parse 1 "$@"; }

# settings_prefer NAME VALUE ...: VALUE unless NAME was set (QUICK's defaults)
settings_prefer() {
    while [ $# -ge 2 ]; do
        [ "${SETTINGS_SRC[$1]}" != default ] || printf -v "$1" '%s' "$2"
        shift 2
    done
}

# SETTINGS_SHARED: --name=VALUE for every shared setting not at its default, for a sub-driver
# (runs/sweep.sh) so that it runs with this driver's values and records them
settings_shared() {
    local _s_n
    SETTINGS_SHARED=()
    for _s_n in "${SETTINGS_NAMES[@]}"; do
        [ -n "${SETTINGS_LIB[$_s_n]:-}" ] && [ "${SETTINGS_SRC[$_s_n]}" != default ] &&
            SETTINGS_SHARED+=("--$(_settings_flag "$_s_n")=${!_s_n}")
    done
    return 0
}

settings_hook() {
    if [ -n "$SETTINGS_DRIVER" ] && [ -z "$SETTINGS_PARSED" ]; then SETTINGS_HOOKS+=("$1"); else "$1"; fi
}

settings_source() { echo "${SETTINGS_SRC[$1]:-}"; }

settings_record() {
    local _s_file=$1.settings _s_n _s_src=() _s_v
    [ -z "${SETTINGS_RECORDED[$_s_file]:-}" ] || return 0
    SETTINGS_RECORDED[$_s_file]=1
    {
        printf '# run %s %s pid %s host %s\n' "$(date -u +%Y-%m-%dT%H:%M:%SZ)" "$SETTINGS_PROG" "$$" "$(hostname 2>/dev/null || echo -)"
        printf '# args: %s\n' "${SETTINGS_ARGV% }"
        [ -n "$SETTINGS_PARSED" ] || printf '# %s does not parse its settings yet: only the shared ones are listed\n' "$SETTINGS_PROG"
        for _s_n in "${SETTINGS_NAMES[@]}"; do
            printf '%s=%s\n' "$_s_n" "${!_s_n-}"
            [ "${SETTINGS_SRC[$_s_n]}" = default ] || _s_src+=("$_s_n=${SETTINGS_SRC[$_s_n]}")
        done
        printf '# not default: %s\n' "${_s_src[*]:-none}"
        printf '# ignored from the environment: %s\n' "${SETTINGS_IGNORED[*]:-none}"
        [ ${#SETTINGS_HANDED[@]} -eq 0 ] || printf '# handed on from the environment: %s\n' "$(for _s_v in "${SETTINGS_HANDED[@]}"; do printf '%s=%s ' "$_s_v" "${!_s_v}"; done)"
        # the programs' own test and diagnostic hooks (getenv in common/, kernels/, variants/)
        for _s_v in $(compgen -e | grep '^NBR_' || true); do
            [ -n "${SETTINGS_KIND[$_s_v]:-}" ] || printf '# environment: %s=%s\n' "$_s_v" "${!_s_v}"
        done
    } >>"$_s_file"
}
