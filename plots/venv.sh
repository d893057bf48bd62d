#!/usr/bin/env bash
# plots/venv.sh - the python that make plots, make report and the plot tests run: a
# project-local virtual environment (NBR_VENV, default $BUILD/venv = build/venv, ignored by
# git) made from the pinned plots/requirements.txt the first time, and again whenever that
# file changes. Prints the python's path on stdout; progress and problems on stderr.
#   NBR_PYTHON=/path/to/python   use that python as it is (it must have pandas and matplotlib)
# Needs python3 with venv (Debian: python3-venv) or virtualenv, and pip's access to PyPI.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ -n "${NBR_PYTHON:-}" ]; then echo "$NBR_PYTHON"; exit 0; fi
venv=${NBR_VENV:-${BUILD:-build}/venv}
req=plots/requirements.txt stamp=$venv/.requirements.txt
if [ -x "$venv/bin/python" ] && cmp -s "$req" "$stamp"; then echo "$venv/bin/python"; exit 0; fi
echo "plots/venv.sh: setting up $venv from $req (once; pip, from PyPI)" >&2
if [ ! -x "$venv/bin/python" ] || ! "$venv/bin/python" -m pip --version >/dev/null 2>&1; then
    rm -rf "$venv"
    mkdir -p "$(dirname "$venv")"
    if ! python3 -m venv "$venv" >&2; then
        rm -rf "$venv"
        if ! { command -v virtualenv >/dev/null 2>&1 && virtualenv -q -p python3 "$venv" >&2; }; then
            rm -rf "$venv"
            echo "plots/venv.sh: cannot make a virtual environment: apt-get install python3-venv (or pip install virtualenv)" >&2
            exit 1
        fi
    fi
fi
if ! "$venv/bin/python" -m pip install -q --disable-pip-version-check -r "$req" >&2; then
    echo "plots/venv.sh: pip could not install $req into $venv (is PyPI reachable?)" >&2
    exit 1
fi
cp "$req" "$stamp"
echo "plots/venv.sh: $venv ready" >&2
echo "$venv/bin/python"
