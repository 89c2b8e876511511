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
