"""The `p2pfish` program: a player's command, or a test tool's (`match`, `bench`, `ladder`), wrapping the player's."""

import sys
from collections.abc import Sequence

TOOL_COMMANDS = ("match", "bench", "ladder")


def main(argv: Sequence[str] | None = None) -> int:
    words = sys.argv[1:] if argv is None else list(argv)
    if words and words[0] in TOOL_COMMANDS:
        from p2pfish.tools.cli import main as tools_main

        return tools_main(words)
    from p2pfish.cli import main as player_main

    return player_main(words)
