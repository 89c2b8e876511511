"""The examples of protocol/ENGINE.md, made by the real code: a seeded two-player game of each game, its seat 1's
lines as an engine would be sent them (hello, the first move request of each phase, quit) and an answer to each.
Every seat plays its first legal move, so the examples change only when a game's rules or views do (not when
a bot gets smarter).

`python -m p2pfish.tools.engine_examples --write` rewrites the examples in ENGINE.md (between its markers);
tests/test_engine_doc.py checks that the file holds exactly what this makes.
"""

import argparse
import random
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from p2pfish.bots.engine_protocol import asked, engine_wire, hello, line, move_request, quit_message
from p2pfish.core.actions import Action
from p2pfish.core.player import Player, PlaysBy
from p2pfish.core.wire import Json
from p2pfish.games.game import Game
from p2pfish.games.registry import games
from p2pfish.selfplay import play_game

SEAT = 1
PLAYERS = 2
SEED = 0
TIME_MS = 5000
BEGIN = "<!-- examples: made by `python -m p2pfish.tools.engine_examples --write`; do not edit below -->"
END = "<!-- end of the examples -->"
ENGINE_MD = Path(__file__).parent.parent.parent / "protocol" / "ENGINE.md"


class Recorder:
    """Plays like `inner`, keeping the first decision of each phase it meets."""

    def __init__(self, inner: Player) -> None:
        self.inner = inner
        self.decisions: list[tuple[Any, list[Action]]] = []
        self._phases: set[str] = set()

    def choose(self, view: Any, legal: list[Action]) -> Action:
        phase = str(getattr(view, "phase", ""))
        if phase not in self._phases and asked(legal):
            self._phases.add(phase)
            self.decisions.append((view, list(legal)))
        return self.inner.choose(view, legal)


def answer(request_id: int, legal: Sequence[dict[str, Json]], number: int) -> dict[str, Json]:
    """An answer naming the last legal move: by index and move, by index alone, or by move alone, in turn."""
    index = len(legal) - 1
    forms: list[dict[str, Json]] = [
        {"type": "move", "id": request_id, "index": index, "move": legal[index]},
        {"index": index},
        {"move": legal[index]},
    ]
    return forms[number % len(forms)]


def game_lines(game: Game) -> list[tuple[str, bytes]]:
    """(who writes it, the line) for seat SEAT of one seeded game: "p2pfish" or "engine"."""
    rules = game.rules
    first_legal = PlaysBy(lambda view, legal: legal[0])
    recorder = Recorder(first_legal)
    bots: list[Player] = [first_legal] * PLAYERS
    bots[SEAT] = recorder
    outcome, _ = play_game(rules, PLAYERS, {}, bots, random.Random(SEED))
    greeting = hello(rules.id, title=rules.title, players=PLAYERS, seat=SEAT, options={}, time_ms=TIME_MS)
    lines = [("p2pfish", line(greeting)), ("engine", line({"type": "ready", "name": "example", "protocol": 1}))]
    for number, (view, legal) in enumerate(recorder.decisions):
        request = move_request(number + 1, game=rules.id, seat=SEAT, time_ms=TIME_MS, view=view, legal=legal)
        wires = [engine_wire(action) for action in legal]
        lines += [("p2pfish", line(request)), ("engine", line(answer(number + 1, wires, number)))]
    lines.append(("p2pfish", line(quit_message("finished", outcome))))
    return lines


def examples_markdown() -> str:
    parts = [BEGIN, ""]
    for game in games():
        title = game.rules.title
        parts += [f"### {title} (`{game.id}`)", ""]
        parts += [
            f"Seat {SEAT} of a two-player game (chance seeded with {SEED}, every seat playing its first legal move):"
        ]
        parts += ["what p2pfish writes (`>`) and what the engine answers (`<`), each a single line; one move request"]
        parts += ["per phase of the game.", ""]
        parts += ["```"]
        parts += [f"{'>' if who == 'p2pfish' else '<'} {raw.decode().rstrip()}" for who, raw in game_lines(game)]
        parts += ["```", ""]
    parts.append(END)
    return "\n".join(parts)


def examples_in(text: str) -> str:
    """The examples part of ENGINE.md's text (from BEGIN to END)."""
    start, end = text.index(BEGIN), text.index(END) + len(END)
    return text[start:end]


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0] if __doc__ else None)
    parser.add_argument("--write", action="store_true", help="rewrite the examples in protocol/ENGINE.md")
    args = parser.parse_args(argv)
    made = examples_markdown()
    if not args.write:
        print(made)
        return 0
    text = ENGINE_MD.read_text()
    ENGINE_MD.write_text(text.replace(examples_in(text), made))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
