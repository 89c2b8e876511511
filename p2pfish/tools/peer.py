"""A hostile peer: `python -m p2pfish.tools.peer host|join|resume ... --cheat SEAT:KIND` runs the player's own
command, but the peer that finds itself at SEAT cheats as KIND (p2pfish/tools/cheats.py). Only
`p2pfish match --cheat` starts it; the player's commands have no such flag."""

import sys
from collections.abc import Sequence

from p2pfish.cli import main as player_main
from p2pfish.core.errors import P2pfishError
from p2pfish.launcher import exit_now
from p2pfish.tools.cheats import Cheat, Hostile


def main(argv: Sequence[str] | None = None) -> int:
    words = sys.argv[1:] if argv is None else list(argv)
    if "--cheat" not in words[:-1]:
        print("p2pfish.tools.peer: error: give --cheat SEAT:KIND", file=sys.stderr)
        return 2
    at = words.index("--cheat")
    flag = words[at + 1]
    del words[at : at + 2]
    try:
        cheat = Cheat.parse(flag)
    except P2pfishError as error:
        print(f"p2pfish.tools.peer: error: {error.reason}", file=sys.stderr)
        return 2
    return player_main(words, variant=Hostile(cheat))


if __name__ == "__main__":
    exit_now(main())
