# Sourced by scripts/play and scripts/test: makes sure .venv exists and holds this package.
# Re-installs when pyproject.toml changes (its hash is kept in .venv/.p2pfish-stamp).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
venv="$root/.venv"
extra="${1:-}"
python="${PYTHON:-python3}"
if ! "$python" -c 'import sys; sys.exit(sys.version_info < (3, 11))' 2>/dev/null; then
    echo "p2pfish needs Python 3.11 or newer (set PYTHON=/path/to/python3.11)" >&2
    exit 2
fi
[ -x "$venv/bin/python" ] || "$python" -m venv "$venv"
stamp="$(sha256sum "$root/pyproject.toml" | cut -c1-16)$extra"
installed="$(cat "$venv/.p2pfish-stamp" 2>/dev/null || true)"
if [ "$installed" != "$stamp" ] && [ "$installed" != "${stamp}test" ]; then
    echo "setting up $venv (once) ..." >&2
    spec="$root"
    [ -n "$extra" ] && spec="$root[$extra]"
    # uv (from the package index, into the venv) fetches and installs the packages in parallel: 23 s against
    # 58 s for pip on a fresh machine here (2026-11-28). Where uv cannot be had, the
    # venv's own pip (Python 3.11 ships pip 22.3 or newer, which installs an editable pyproject package).
    log="$venv/install.log"
    if ! { "$venv/bin/python" -m pip install -q uv==0.13.9 > "$log" 2>&1 &&
        "$venv/bin/uv" pip install -q --python "$venv/bin/python" --compile-bytecode -e "$spec" >> "$log" 2>&1; } &&
        ! "$venv/bin/python" -m pip install -q -e "$spec" >> "$log" 2>&1; then
        cat "$log" >&2
        echo "p2pfish: could not install the dependencies (log: $log)" >&2
        exit 1
    fi
    echo "$stamp" > "$venv/.p2pfish-stamp"
fi
