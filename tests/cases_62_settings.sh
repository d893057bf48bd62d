# tests/cases_62_settings.sh - the drivers' settings table (runs/settings.sh): --help lists
# every declared setting, unknown flags are refused, --config and the environment set values
# in their order, the record beside the CSV says what a run used, and a driver variable that
# a driver does not declare does nothing there. Sourced by tests/run.sh; writes under a
# temporary directory only. A fake program (a shell script) stands in for the nbrlab ones.

T62=$(mktemp -d "${TMPDIR:-/tmp}/nbrlab-t62.XXXXXX")
export NBR_LOCK=none

# the drivers that parse their settings (settings_begin), and the settings each declares: its
# own `setting` lines and those of the libraries it sources (runs/device/*.sh source neither)
_t62_drivers() { grep -l '^settings_begin ' runs/*.sh runs/device/*.sh 2>/dev/null; }
_t62_declared() {
    local f
    for f in "$1" $(grep -q '^\. runs/lib.sh' "$1" && echo runs/lib.sh) \
        $(grep -q '^\. runs/tables_lib.sh' "$1" && echo runs/tables_lib.sh); do
        grep -hoE '^[[:space:]]*setting(_switch)? [A-Za-z_][A-Za-z0-9_]*' "$f" | awk '{ print $2 }'
    done
}

# --help: exit 0, and every declared setting is listed as its flag with its name
_t62_help_lists_all() {
    local d n flag out bad=0 k=0
    for d in $(_t62_drivers); do
        out=$("$d" --help 2>&1) || { echo "$d --help: exit $?"; bad=1; continue; }
        for n in $(_t62_declared "$d"); do
            flag=$(echo "$n" | tr 'A-Z_' 'a-z-')
            grep -qE -- "^  --$flag( |$).*\[$n[],]" <<<"$out" || { echo "$d --help lacks --$flag [$n]"; bad=1; }
            k=$((k + 1))
        done
    done
    [ $k -gt 0 ] || { echo "no declared settings found"; return 1; }
    echo "$k settings checked"
    return $bad
}
t_ok settings_help_lists_all _t62_help_lists_all

# an unknown flag: exit 2 and one line naming it, from every driver, before anything runs
_t62_unknown_flag() {
    local d rc err bad=0
    for d in $(_t62_drivers); do
        rc=0
        err=$(OUT_DIR=$T62/unknown "$d" --no-such-setting 1 2>&1 >/dev/null) || rc=$?
        if [ $rc -ne 2 ] || [ "$(grep -c '' <<<"$err")" -ne 1 ] || ! grep -q -- '--no-such-setting' <<<"$err"; then
            echo "$d: exit $rc, stderr: $err"; bad=1
        fi
    done
    [ ! -e "$T62/unknown" ] || { echo "a refused run created $T62/unknown"; bad=1; }
    return $bad
}
t_ok settings_unknown_flag_refused _t62_unknown_flag
t_error settings_unknown_flag_line 2 'unknown option --bogus' runs/sweep.sh --bogus x a b
t_error settings_bad_config_name 2 'cfg-bad.conf:2: NOT_A_SETTING is not a setting of sweep.sh' \
    bash -c "printf 'TAG=x\nNOT_A_SETTING=1\n' >'$T62/cfg-bad.conf'; runs/sweep.sh --config '$T62/cfg-bad.conf' a b"

# A stand-in for an nbrlab program: --print-config names a revision; a run appends one row and
# says on stderr what it saw of the driver variables STEPS and TAG.
cat >"$T62/fake" <<'EOF'
#!/bin/sh
for a; do [ "$a" = --print-config ] && { echo git_rev=fake0000; exit 0; }; done
csv="" tag=""
while [ $# -gt 0 ]; do
    case "$1" in --csv) csv=$2; shift ;; --tag) tag=$2; shift ;; esac
    shift
done
echo "fake: STEPS=${STEPS-unset} TAG=${TAG-unset}" >&2
[ -e "$csv" ] || echo "tag,status,git_rev" >"$csv"
echo "$tag,ok,fake0000" >>"$csv"
EOF
chmod +x "$T62/fake"

# the last block of CSV.settings: NAME=VALUE lines and comments
_t62_last_block() { awk '/^# run /{ b = "" } { b = b $0 "\n" } END { printf "%s", b }' "$1.settings"; }

# --config sets a value, the environment is below it and a flag above it, and the record says
# which values the run used and where each came from
_t62_config() (
    local out=$T62/config csv
    mkdir -p "$out"
    csv=$out/sweep.csv
    printf '# a config\nTAG=cfgtag\nREPEAT=2\n' >"$out/run.conf"
    TAG=envtag runs/sweep.sh --config "$out/run.conf" --repeat=1 --out-dir "$out" "$T62/fake" sp --ne 8 || return 1
    [ "$(grep -c '^cfgtag-fake' "$csv")" = 1 ] || { echo "rows: $(cut -d, -f1 "$csv" | tr '\n' ' ') (want one cfgtag-... row: config over env, flag over config)"; return 1; }
    local b
    b=$(_t62_last_block "$csv")
    grep -qx 'TAG=cfgtag' <<<"$b" || { echo "record lacks TAG=cfgtag: $b"; return 1; }
    grep -qx 'REPEAT=1' <<<"$b" || { echo "record lacks REPEAT=1: $b"; return 1; }
    grep -qE '^# not default: .*TAG=config.*REPEAT=flag' <<<"$b" || { echo "record lacks the sources: $b"; return 1; }
    # the block is itself a config: a run from it writes the same tag
    runs/sweep.sh --config <(grep -v '^OUT_DIR=' <<<"$b") --out-dir "$out/again" --redo "$T62/fake" sp --ne 8 || return 1
    grep -q '^cfgtag-fake' "$out/again/sweep.csv" || { echo "a run from the record wrote other tags"; return 1; }
)
t_ok settings_config_recorded _t62_config

# a driver variable this driver does not declare (STEPS: table*.sh have it, sweep.sh not) is
# named on stderr, recorded as ignored, and unset: the program does not see it
_t62_undeclared() (
    local out=$T62/undeclared log
    mkdir -p "$out"
    log=$(STEPS=7 runs/sweep.sh --out-dir "$out" "$T62/fake" sp --ne 8 2>&1) || { echo "$log"; return 1; }
    grep -q '^sweep.sh: ignoring STEPS from the environment' <<<"$log" || { echo "no notice: $log"; return 1; }
    grep -q 'fake: STEPS=unset' <<<"$log" || { echo "the program saw it: $log"; return 1; }
    _t62_last_block "$out/sweep.csv" | grep -qx '# ignored from the environment: STEPS' ||
        { echo "not recorded: $(_t62_last_block "$out/sweep.csv")"; return 1; }
)
t_ok settings_undeclared_env_ignored _t62_undeclared

# settings whose names are those of settings.sh's own variables (compare.sh's --name) get
# their values: a driver of its own, each value set by flag, config and default
_t62_names() {
    local d=$T62/names.sh
    cat >"$d" <<EOF2
#!/usr/bin/env bash
set -euo pipefail
. "$PWD/runs/lib.sh"
settings_begin "names.sh"
for n in name value flag file line n k a i head kind known src v configs flags; do setting \$n "" "x"; done
settings_parse "\$@"
echo "\$name \$value \$flag \$file \$line \$n \$k \$a \$i \$head \$kind \$known \$src \$v \$configs \$flags"
EOF2
    chmod +x "$d"
    printf 'v=9\nconfigs=c\n' >"$T62/names.conf"
    timeout 20 "$d" --name N --value V --flag F --file=F2 --line L --n 1 --k 2 --a 3 --i 4 --head H --kind K \
        --known W --src S --flags G --config "$T62/names.conf"
}
t_grep settings_names_of_locals '^N V F F2 L 1 2 3 4 H K W S 9 c G$' _t62_names

# every driver in runs/ and runs/device/ takes its settings from the table (settings_begin), but
# for those named here: the helpers that are not drivers
_t62_every_driver() {
    local f bad=0 k=0
    for f in runs/*.sh runs/device/*.sh; do
        case ${f#runs/} in
        lib.sh|settings.sh|tables_lib.sh|revs.sh|device/lib.sh) continue ;;   # sourced libraries
        lmp_variant.sh) continue ;;   # LAMMPS behind an nbrlab program's command line
        table.sh|stamp_rev.sh|code_rev.sh) continue ;;   # helpers: positional arguments, no settings
        timings.sh) continue ;;   # positional items; it times other commands from a fresh clone
        device/snap.sh) continue ;;   # the two-mode wrapper of a device call: no settings
        esac
        k=$((k + 1))
        grep -q '^settings_begin ' "$f" || { echo "$f: no settings_begin (its settings are not in the table)"; bad=1; }
        grep -qE '^#.*\benv: [A-Z]' "$f" && { echo "$f: an env: line beside the table"; bad=1; }
    done
    echo "$k drivers checked"
    return $bad
}
t_ok settings_every_driver _t62_every_driver

# the device call scripts run only on the H200, but their --help answers anywhere: exit 0, the
# table, and nothing made before it (their OUT not created), so a flag can be checked here
_t62_device_help() {
    local f n out bad=0
    for f in runs/device/*.sh; do
        n=$(basename "$f" .sh)
        case $n in lib | snap) continue ;; esac
        out=$(OUT="$T62/device-out-$n" timeout 20 "$f" --help 2>&1) || { echo "$f --help: exit $?: $out"; bad=1; continue; }
        [[ $out == "usage: runs/device/$n.sh "* && $out == *"--out V"* ]] || { echo "$f --help: $out"; bad=1; }
        [ ! -e "$T62/device-out-$n" ] || { echo "$f --help made its OUT"; bad=1; }
        out=$(OUT="$T62/device-out-$n" timeout 20 "$f" --no-such-flag 2>&1) && { echo "$f took --no-such-flag"; bad=1; }
        [[ $out == "$n.sh: unknown option --no-such-flag"* ]] || { echo "$f --no-such-flag: $out"; bad=1; }
        [ ! -e "$T62/device-out-$n" ] || { echo "$f --no-such-flag made its OUT"; bad=1; }
    done
    return $bad
}
t_ok settings_device_help _t62_device_help

# settings_forward: a driver that runs drivers (runs/gpu_tables.sh) leaves their settings in
# the environment for them, and records them as handed on; without it they are ignored
_t62_forward() (
    local d=$T62/forward.sh out
    cat >"$d" <<EOF2
#!/usr/bin/env bash
set -euo pipefail
. "$PWD/runs/lib.sh"
settings_begin "forward.sh"
[ "\${1:-}" = fwd ] && settings_forward "$PWD/runs/table5.sh"
settings_parse
sh -c 'echo "child: STEPS=\${STEPS-unset}"'
settings_record "$T62/forward-\${1:-none}"
EOF2
    chmod +x "$d"
    out=$(STEPS=7 "$d" fwd 2>&1) || { echo "$out"; return 1; }
    grep -qx 'child: STEPS=7' <<<"$out" || { echo "not handed on: $out"; return 1; }
    grep -qx '# handed on from the environment: STEPS=7 ' "$T62/forward-fwd.settings" ||
        { echo "not recorded: $(cat "$T62/forward-fwd.settings")"; return 1; }
    out=$(STEPS=7 "$d" 2>&1) || { echo "$out"; return 1; }
    grep -qx 'child: STEPS=unset' <<<"$out" || { echo "without settings_forward: $out"; return 1; }
    echo "handed on"
)
t_grep settings_forward_hands_on '^handed on$' _t62_forward

# the suite's own cases never see the caller's driver settings (tests/run.sh unsets them): a
# device call exports OUT, which rumd_lammps_lj.sh declares, and every other driver named it
# on stderr, so 13 one-line-message cases failed there
_t62_suite_env() (
    local out
    out=$(OUT=/tmp/nbrlab-t62-nope STEPS=7 CL_PLATFORM=0 TEST_LOG_DIR="$T62/inner-logs" TEST_ONLY='^sweep_bad_usage$' \
        tests/run.sh 60_drivers 2>&1) || { echo "$out"; return 1; }
    grep -qx '1 passed, 0 failed, 0 skipped' <<<"$out" || { echo "$out"; return 1; }
    echo "clean"
)
t_grep settings_suite_env_clean '^clean$' _t62_suite_env
