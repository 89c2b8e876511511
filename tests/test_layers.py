"""The layer rule of DESIGN.md: each layer imports only from the layers above it."""

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).parent.parent / "p2pfish"

FORBIDDEN = {
    "core": ["p2pfish.games", "p2pfish.crypto", "p2pfish.session", "p2pfish.net", "p2pfish.ui", "p2pfish.bots"],
    "games": ["p2pfish.crypto", "p2pfish.session", "p2pfish.net", "p2pfish.ui", "p2pfish.bots", "zmq",
              "prompt_toolkit", "random", "secrets", "os", "socket", "sqlite3", "time"],
    "crypto": ["p2pfish.games", "p2pfish.session", "p2pfish.net", "p2pfish.ui", "p2pfish.bots", "zmq",
               "prompt_toolkit"],
    "session": ["p2pfish.net", "p2pfish.ui", "p2pfish.bots", "zmq", "prompt_toolkit", "socket", "asyncio"],
    "net": ["p2pfish.games", "p2pfish.ui", "p2pfish.bots", "prompt_toolkit"],
    "bots": ["p2pfish.net", "p2pfish.session", "p2pfish.crypto", "zmq"],
    "ui": ["p2pfish.net", "p2pfish.session", "zmq"],
}  # fmt: skip


def imported_modules(path: Path) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
    return names


@pytest.mark.parametrize("layer", sorted(FORBIDDEN))
def test_layer_imports_only_what_it_may(layer: str) -> None:
    offences = []
    for path in sorted((PACKAGE / layer).rglob("*.py")):
        for name in imported_modules(path):
            for banned in FORBIDDEN[layer]:
                if name == banned or name.startswith(banned + "."):
                    offences.append(f"{path.relative_to(PACKAGE)} imports {name}")
    assert offences == []


def test_the_layer_check_sees_imports() -> None:
    assert "p2pfish.core.errors" in imported_modules(PACKAGE / "games" / "fishnstones.py")


def test_no_production_module_imports_a_test_tool() -> None:
    """The player's code never loads a hostile peer, the match harness or the bench: only the tools (and the
    launcher, which picks between the two command lines) import p2pfish.tools."""
    tools = PACKAGE / "tools"
    offences = [
        f"{path.relative_to(PACKAGE)} imports {name}"
        for path in sorted(PACKAGE.rglob("*.py"))
        if tools not in path.parents and path.name != "launcher.py"
        for name in imported_modules(path)
        if name == "p2pfish.tools" or name.startswith("p2pfish.tools.")
    ]
    assert offences == []


def test_the_player_commands_have_no_cheat_flag() -> None:
    from p2pfish.cli import build_parser

    for words in (["host", "kingfish"], ["join", "127.0.0.1:1", "--code", "ABCDEF"], ["resume", "store"]):
        build_parser().parse_args(words)
        with pytest.raises(SystemExit):
            build_parser().parse_args([*words, "--cheat", "1:replay"])
