# Sourced by scripts/play and scripts/test: makes sure .venv exists and holds this package.
# Re-installs when pyproject.toml changes (its hash is kept in .venv/.p2pfish-stamp).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
venv="$root/.venv"
extra="${1:-}"
new_enough() { "$1" -c 'import sys; sys.exit(sys.version_info < (3, 11))' 2> /dev/null; }
real_path() { "$1" -c 'import os, sys; print(os.path.realpath(sys.executable))'; }
# PYTHON if set; else, on Linux, the distribution's python3 when it is 3.11 or newer: distributions build it with
# profile-guided and link-time optimisation (Debian: into one static program), where a version manager's default build
# (pyenv's, first on PATH here) is neither: the test command took 13-22 % less time under Debian's 3.11 than under
# pyenv's 3.11, side by side on the same machine (2026-11-28). Else python3 on PATH.
python="${PYTHON:-python3}"
if [ -z "${PYTHON:-}" ] && [ "$(uname -s)" = Linux ] && [ -x /usr/bin/python3 ] && new_enough /usr/bin/python3; then
    python=/usr/bin/python3
elif ! new_enough "$python"; then
    echo "p2pfish needs Python 3.11 or newer (set PYTHON=/path/to/python3.11)" >&2
    exit 2
fi
if [ -n "${PYTHON:-}" ] && [ -x "$venv/bin/python" ] && [ "$(readlink -f "$venv/bin/python")" != "$(real_path "$python")" ]; then
    echo "PYTHON=$PYTHON: making $venv again with it" >&2
    rm -rf "$venv"
fi
pip_wheel() {
    # The pip wheel this Python ships for ensurepip, if it has one (run from where it lies, it needs no install):
    # beside ensurepip, or where the distribution keeps it (Debian: WHEEL_PKG_DIR, /usr/share/python-wheels).
    "$python" -c 'import ensurepip, pathlib, sysconfig
folders = [pathlib.Path(ensurepip.__file__).parent / "_bundled"]
if sysconfig.get_config_var("WHEEL_PKG_DIR"):
    folders.append(pathlib.Path(sysconfig.get_config_var("WHEEL_PKG_DIR")))
print(next((wheel for folder in folders for wheel in sorted(folder.glob("pip-*.whl"))), ""))' 2> /dev/null || true
}
venv_pip() {
    # pip for the venv: its own, else the shipped wheel, else one installed into it by ensurepip.
    if ! "$venv/bin/python" -c 'import pip' 2> /dev/null; then
        wheel="$(pip_wheel)"
        if [ -n "$wheel" ] && "$venv/bin/python" "$wheel/pip" "$@"; then
            return 0
        fi
        "$venv/bin/python" -m ensurepip -q || return 1
    fi
    "$venv/bin/python" -m pip "$@"
}
if [ ! -x "$venv/bin/python" ]; then
    # Without pip where the shipped wheel can run instead (uv installs everything else): putting pip into the venv
    # took 7.6 of a fresh setup's 18 s here (2026-11-28).
    if [ -n "$(pip_wheel)" ]; then "$python" -m venv --without-pip "$venv"; else "$python" -m venv "$venv"; fi
fi
stamp="$(sha256sum "$root/pyproject.toml" | cut -c1-16)-compat$extra"
installed="$(cat "$venv/.p2pfish-stamp" 2>/dev/null || true)"
if [ "$installed" != "$stamp" ] && [ "$installed" != "${stamp}test" ]; then
    echo "setting up $venv with $(real_path "$python") (once) ..." >&2
    spec="$root"
    [ -n "$extra" ] && spec="$root[$extra]"
    # uv (from the package index, into the venv) fetches and installs the packages in parallel: 23 s against
    # 58 s for pip on a fresh machine here (2026-11-28). Where uv cannot be had, pip (Python 3.11 ships pip 22.3
    # or newer, which installs an editable pyproject package).
    # The package is installed editable as a plain path in a .pth file (setuptools' compat mode; for uv, set for
    # p2pfish alone, not for a dependency it might build): setuptools' default, an import hook, costs every Python
    # process here about 20 ms of processor time at start-up (it loads pathlib, fnmatch and urllib to find p2pfish).
    log="$venv/install.log"
    if ! { venv_pip install -q uv==0.13.9 > "$log" 2>&1 &&
        "$venv/bin/uv" pip install -q --python "$venv/bin/python" --compile-bytecode \
            --config-settings-package p2pfish:editable_mode=compat -e "$spec" >> "$log" 2>&1; } &&
        ! venv_pip install -q --config-settings editable_mode=compat -e "$spec" >> "$log" 2>&1; then
        cat "$log" >&2
        echo "p2pfish: could not install the dependencies (log: $log)" >&2
        exit 1
    fi
    echo "$stamp" > "$venv/.p2pfish-stamp"
fi
