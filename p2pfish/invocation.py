"""How to tell a person to run p2pfish again: the command as they can type it in their shell.

`p2pfish` itself when that name on their PATH is this very installation; else what the project's scripts
say they are (P2PFISH_COMMAND, set by scripts/p2pfish and scripts/play); else the full path of the program
in this installation's bin folder (a virtual environment's `.venv/bin/p2pfish`); else `python -m p2pfish`.
"""

import os
import shlex
import shutil
import sys
from pathlib import Path

COMMAND_VARIABLE = "P2PFISH_COMMAND"


def p2pfish_command() -> str:
    """The words that start this p2pfish from a shell."""
    given = os.environ.get(COMMAND_VARIABLE, "").strip()
    if given:
        return given
    ours = Path(sys.executable).parent / "p2pfish"
    on_path = shutil.which("p2pfish")
    if on_path is not None and ours.exists() and os.path.samefile(on_path, ours):
        return "p2pfish"
    if ours.exists():
        return shlex.quote(str(ours))
    return f"{shlex.quote(sys.executable)} -m p2pfish"


def join_line(address: str, code: str) -> str:
    """The command a player types to join the lobby at `address` with `code`."""
    return f"{p2pfish_command()} join {address} --code {code}"


def resume_line(store: Path | None = None) -> str:
    """The command that brings a player back to a game: this store's, or the latest unfinished one."""
    return f"{p2pfish_command()} resume" + ("" if store is None else f" {shlex.quote(str(store))}")
