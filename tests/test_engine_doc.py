"""protocol/ENGINE.md says what the code does: its examples are exactly what p2pfish writes, every answer in it
reads as the move it names, its view tables list exactly each game's view fields, and the example engines
answer its requests."""

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from p2pfish.bots.engine_protocol import read_move, read_ready
from p2pfish.core.wire import Json
from p2pfish.games.registry import games
from p2pfish.tools.engine_examples import ENGINE_MD, examples_in, examples_markdown

ROOT = Path(__file__).parent.parent
TEXT = ENGINE_MD.read_text()


def example_lines(game: str) -> list[tuple[str, bytes]]:
    """(">" or "<", the line) of `game`'s examples in ENGINE.md."""
    examples = examples_in(TEXT)
    section = examples[examples.index(f"(`{game}`)") :]
    block = section[section.index("```\n") + 4 :]
    block = block[: block.index("```")]
    return [(text[0], text[2:].encode()) for text in block.splitlines()]


def test_the_examples_are_what_the_code_makes() -> None:
    assert examples_in(TEXT) == examples_markdown(), "run: python -m p2pfish.tools.engine_examples --write"


@pytest.mark.parametrize("game", [game.id for game in games()])
def test_every_answer_of_the_examples_names_the_last_legal_move(game: str) -> None:
    lines = example_lines(game)
    kinds = [json.loads(raw).get("type") for who, raw in lines if who == ">"]
    assert kinds[0] == "hello" and kinds[-1] == "quit" and set(kinds[1:-1]) == {"move"} and len(kinds) >= 4
    assert read_ready(lines[1][1]) == "example"
    for (who, request), (answer_who, answer) in zip(lines[2:-1:2], lines[3:-1:2], strict=True):
        assert (who, answer_who) == (">", "<")
        sent = json.loads(request)
        assert read_move(answer, sent["id"], sent["legal"]) == len(sent["legal"]) - 1
        assert len(sent["legal"]) == len(sent["legal_text"])


def documented_fields(game: str) -> list[str]:
    section = TEXT[TEXT.index("### View of ") :]
    section = section[section.index(f"(`{game}`)") :]
    section = section[: section.index("\nMoves:")]
    return re.findall(r"^\| `(\w+)` \|", section, flags=re.MULTILINE)


@pytest.mark.parametrize("game", [game.id for game in games()])
def test_each_games_view_table_lists_exactly_its_view_fields_in_order(game: str) -> None:
    views: list[dict[str, Json]] = [json.loads(raw)["view"] for who, raw in example_lines(game)[2:-1:2]]
    assert all(list(view) == list(views[0]) for view in views)
    assert documented_fields(game) == list(views[0])


ENGINES = [f"{sys.executable} {ROOT / 'examples' / 'engines' / 'first_legal.py'}"]
if shutil.which("jq") and shutil.which("sh"):
    ENGINES.append(f"sh {ROOT / 'examples' / 'engines' / 'first_legal.sh'}")


@pytest.mark.parametrize("command", ENGINES, ids=["python", "sh"][: len(ENGINES)])
def test_the_example_engines_answer_the_documented_requests(command: str) -> None:
    """Fed a game's lines of ENGINE.md, an example engine says ready, answers each request with its first
    legal move, and exits at quit."""
    for game in games():
        lines = example_lines(game.id)
        requests = b"".join(raw + b"\n" for who, raw in lines if who == ">")
        done = subprocess.run(command.split(), input=requests, capture_output=True, timeout=30, check=False)
        assert done.returncode == 0, done.stderr
        answers = done.stdout.splitlines()
        read_ready(answers[0])
        sent = [json.loads(raw) for who, raw in lines if who == ">"][1:-1]
        assert len(answers) == len(sent) + 1
        for request, answer in zip(sent, answers[1:], strict=True):
            assert read_move(answer, request["id"], request["legal"]) == 0
