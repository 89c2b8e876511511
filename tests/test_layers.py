"""The layer rule of DESIGN.md: each layer imports only from the layers above it."""

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).parent.parent / "p2pfish"
GAME_FOLDERS = sorted(path.name for path in (PACKAGE / "games").iterdir() if (path / "rules.py").exists())
UI_PARTS = ("screen", "commands", "words", "text", "kit")

FORBIDDEN = {
    "core": ["p2pfish.games", "p2pfish.crypto", "p2pfish.session", "p2pfish.net", "p2pfish.ui", "p2pfish.bots"],
    "rules": ["p2pfish.crypto", "p2pfish.session", "p2pfish.net", "p2pfish.ui", "p2pfish.bots", "zmq",
              "prompt_toolkit", "random", "secrets", "os", "socket", "sqlite3", "time"],
    "crypto": ["p2pfish.games", "p2pfish.session", "p2pfish.net", "p2pfish.ui", "p2pfish.bots", "zmq",
               "prompt_toolkit"],
    "session": ["p2pfish.net", "p2pfish.ui", "p2pfish.bots", "zmq", "prompt_toolkit", "socket", "asyncio"],
    "net": ["p2pfish.games", "p2pfish.ui", "p2pfish.bots", "prompt_toolkit"],
    "bots": ["p2pfish.net", "p2pfish.session", "p2pfish.crypto", "p2pfish.ui", "zmq", "prompt_toolkit"],
    "ui": ["p2pfish.net", "p2pfish.session", "zmq"],
    "entry": ["p2pfish.net", "p2pfish.session", "p2pfish.crypto", "zmq"],
}  # fmt: skip
"""What each layer must not import. A game's folder holds three layers — rules.py its rules, greedy.py its
bot, the rest its terminal kit — and its entry (__init__.py; with games/game.py and games/registry.py)."""


def layer_of(path: Path) -> str | None:
    parts = path.relative_to(PACKAGE).parts
    if parts[0] != "games":
        return parts[0] if len(parts) > 1 and parts[0] in FORBIDDEN else None
    if len(parts) == 2:
        return "rules" if parts[1] == "__init__.py" else "entry"
    module = Path(parts[2]).stem
    if module == "rules":
        return "rules"
    if module in ("greedy", "sampler", "disguise", "reading"):
        return "bots"
    return "ui" if module in UI_PARTS else "entry"


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
    paths = [path for path in sorted(PACKAGE.rglob("*.py")) if layer_of(path) == layer]
    assert paths, f"no module is of layer {layer}"
    offences = []
    for path in paths:
        for name in imported_modules(path):
            for banned in FORBIDDEN[layer]:
                if name == banned or name.startswith(banned + "."):
                    offences.append(f"{path.relative_to(PACKAGE)} imports {name}")
    assert offences == []


def test_the_layer_check_sees_imports() -> None:
    assert "p2pfish.core.errors" in imported_modules(PACKAGE / "games" / "fishnstones" / "rules.py")
    assert layer_of(PACKAGE / "games" / "kingfish" / "screen.py") == "ui"
    assert layer_of(PACKAGE / "games" / "kingfish" / "greedy.py") == "bots"


def test_a_game_is_one_folder_that_no_other_game_and_no_generic_module_imports() -> None:
    """A game's modules import only their own folder's, and outside the games only the bench does (its figures are
    those of named games, e.g. a King Fish deal): the registry names each game's package in a line of text and
    imports it only when the game is asked for (tests/test_registry.py). Adding a game is a folder and a line."""
    offences = []
    for path in sorted(PACKAGE.rglob("*.py")):
        inside = path.relative_to(PACKAGE).parts
        own = inside[1] if inside[0] == "games" and len(inside) > 2 else None
        for name in imported_modules(path):
            parts = name.split(".")
            if parts[:2] != ["p2pfish", "games"] or len(parts) < 3 or parts[2] not in GAME_FOLDERS:
                continue
            allowed = path.parent == PACKAGE / "tools" / "bench"
            if parts[2] != own and not allowed:
                offences.append(f"{path.relative_to(PACKAGE)} imports {name}")
    assert offences == []
    assert GAME_FOLDERS == ["fishfish", "fishnstones", "kingfish", "kunayala"]


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
