# runs/device/lib.sh - sourced by the H200 call scripts (runs/device/*.sh): runs/settings.sh's
# table (flags, --help, --config, the environment's upper-case names), with two rules of the
# calls kept as they were before the table:
#  - nothing is unset: the drivers and the suite a script runs read their own settings from the
#    call's environment (DD_* for runs/dd_scaling.sh, TEST_ONLY, ...), so all are handed on;
#  - a setting set empty is its default (the scripts read ${NAME:-default}).
NBR_RUNS_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
. "$NBR_RUNS_DIR/settings.sh"
settings_forward "$NBR_RUNS_DIR"/*.sh "$NBR_RUNS_DIR"/device/*.sh
_device_empty_is_default() {
    local n
    for n in "${SETTINGS_NAMES[@]}"; do [ -n "${!n}" ] || printf -v "$n" '%s' "${SETTINGS_DEFAULT[$n]}"; done
}
SETTINGS_HOOKS+=(_device_empty_is_default)   # after settings_parse (settings_hook would run it now)
