"""The engine protocol (protocol/ENGINE.md): a program plays a seat over JSON lines, and whatever it does — crash,
stall, answer late, lie — the seat plays a legal move, with one clear line saying what went wrong."""

import json
import random
import shlex
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple

import pytest

from p2pfish.bots.engine import EnginePlayer
from p2pfish.bots.engine_protocol import MAX_LINE_BYTES, asked
from p2pfish.core.actions import Action
from p2pfish.core.plain import plain
from p2pfish.core.player import Player, PlaysBy, decision_for
from p2pfish.games.game import Game
from p2pfish.games.registry import game_of, games
from p2pfish.launcher import main
from p2pfish.selfplay import Step, play_game

ROOT = Path(__file__).parent.parent
FIRST_LEGAL = f"{shlex.quote(sys.executable)} {ROOT / 'examples' / 'engines' / 'first_legal.py'}"
MISBEHAVING = f"{shlex.quote(sys.executable)} {Path(__file__).parent / 'misbehaving_engine.py'}"
ENGINE_SEAT = 1


class Table:
    """One rules-only game: seat ENGINE_SEAT played by an engine (its fallback recorded), the others greedy."""

    def __init__(self, game: Game, command: str, *, players: int = 2, **engine_options: float) -> None:
        self.game, self.players = game, players
        self.notes: list[str] = []
        self.fallback_moves = 0
        greedy = game.greedy(random.Random(7))

        def fallback(view: object, legal: list[Action]) -> Action:
            self.fallback_moves += 1
            return greedy.choose(view, legal)

        self.engine = EnginePlayer(
            command, game=game.id, title=game.rules.title, players=players, seat=ENGINE_SEAT, options={},
            fallback=PlaysBy(fallback), note=self.notes.append, **engine_options,
        )  # fmt: skip
        self.engine_steps: list[tuple[list[Action], Action]] = []
        """Each of the engine seat's decisions it was asked (not its reveals): its legal moves and the move played."""

    def play(self, seed: int = 3) -> None:
        rules = self.game.rules
        bots: list[Player] = [self.game.greedy(random.Random(seat)) for seat in range(self.players)]
        bots[ENGINE_SEAT] = self.engine

        def step(done: Step) -> None:
            if done.seat == ENGINE_SEAT:
                legal = decision_for(rules, done.before, ENGINE_SEAT, done.known[ENGINE_SEAT]).legal
                if asked(legal):
                    self.engine_steps.append((legal, done.choice))

        try:
            outcome, _ = play_game(rules, self.players, {}, bots, random.Random(seed), on_step=step)
        finally:
            self.engine.close()
        assert outcome is not None
        assert self.engine_steps, "the engine's seat never decided"


@pytest.mark.parametrize("game", games(), ids=lambda game: game.id)
def test_the_example_engine_plays_a_whole_game_of_each_game(game: Game) -> None:
    table = Table(game, FIRST_LEGAL, players=3)
    table.play()
    assert table.notes == [] and table.fallback_moves == 0 and table.engine.gone is None
    assert all(choice == legal[0] for legal, choice in table.engine_steps)
    assert table.engine.requests == len(table.engine_steps)


FISHNSTONES = game_of("fishnstones")


@pytest.mark.parametrize(
    ("mode", "says"),
    [
        ("garbage", "its answer is not JSON: 'e2e4'"),
        ("huge", f"wrote a line over {MAX_LINE_BYTES // 1024} KiB"),
        ("illegal", 'move \'{"t":"no-such-move"}\' is not legal now'),
        ("bad-index", "index '999' is not one of the 3 legal moves (0 to 2)"),
        ("wrong-id", "it answered request '6', not 1"),
        ("mismatch", "index 0 and move"),
    ],
)
def test_a_lying_engine_gets_one_clear_line_and_the_fallback_move_for_that_turn(mode: str, says: str) -> None:
    table = Table(FISHNSTONES, f"{MISBEHAVING} {mode}")
    table.play()
    assert table.fallback_moves == 1, table.notes
    (note,) = table.notes
    assert note.startswith(f"engine {MISBEHAVING!r}"[:40]) and "(seat 1)" in note, note
    assert says in note and note.endswith("the fallback bot plays this move"), note
    assert table.engine.gone is None
    assert all(choice == legal[0] for legal, choice in table.engine_steps[1:]), "the engine played on"


def test_a_crashed_engine_is_named_with_its_exit_code_and_the_fallback_bot_plays_on() -> None:
    table = Table(FISHNSTONES, f"{MISBEHAVING} crash")
    table.play()
    (note,) = table.notes
    assert "(seat 1): exited with code 3; the fallback bot plays the seat for the rest of the game" in note
    assert table.fallback_moves == len(table.engine_steps) - 1
    assert table.engine.gone == "exited with code 3"


@pytest.mark.parametrize(
    ("command", "hello_s", "says"),
    [
        ("/no/such/engine --fast", 30.0, "names no program that can be run: '/no/such/engine'"),
        (f"{MISBEHAVING} bad-ready", 30.0, "its answer to hello is not JSON: 'hello to you too'"),
        (f"{MISBEHAVING} no-ready", 0.3, "did not answer hello within 0.3 s"),
    ],
)
def test_an_engine_that_cannot_start_or_greet_leaves_the_seat_to_the_fallback_bot(
    command: str, hello_s: float, says: str
) -> None:
    """(An engine that answers at all has all the time a slow machine needs to start.)"""
    table = Table(FISHNSTONES, command, hello_s=hello_s)
    table.play()
    (note,) = table.notes
    assert says in note and note.endswith("the fallback bot plays the seat for the rest of the game"), note
    assert table.fallback_moves == len(table.engine_steps)


@pytest.mark.parametrize(
    ("behaviour", "move_s"),
    [
        ("late 1.8", 1.5),  # its late answer names the last legal move of request 1, never taken for request 2
        ("skip-late 1.3", 1.1),  # it skips the request it was late for: read by the ids it gives
    ],
)
def test_a_late_answer_gets_the_fallback_move_and_is_never_taken_for_the_next_answer(
    behaviour: str, move_s: float
) -> None:
    """The engine answers the second request as soon as it is done with the first: the times leave that answer
    0.8 s or more before its deadline on a loaded machine (with 0.3 s and 0.1 s, one in many runs missed it)."""
    table = Table(FISHNSTONES, f"{MISBEHAVING} {behaviour}", move_s=move_s)
    table.play()
    (note,) = table.notes
    assert f"gave no answer to move request 1 within {move_s} s; the fallback bot plays this move" in note
    assert table.fallback_moves == 1
    assert all(choice == legal[0] for legal, choice in table.engine_steps[1:])


def test_a_stalled_engine_costs_each_move_its_time_and_the_game_still_ends() -> None:
    table = Table(FISHNSTONES, f"{MISBEHAVING} silent", move_s=0.05)
    table.play()
    assert table.fallback_moves == len(table.engine_steps) == len(table.notes)
    assert all("gave no answer to move request" in note for note in table.notes)


def test_the_engine_is_told_quit_with_the_outcome_and_sees_no_other_seats_hand(tmp_path: Path) -> None:
    """King Fish deals every hand privately: the first request to the engine's seat holds its own hand's labels,
    and no label of a card another seat still holds."""
    log = tmp_path / "lines.jsonl"
    game = game_of("kingfish")
    table = Table(game, f"{MISBEHAVING} quit-log {shlex.quote(str(log))}", players=3)
    hands: list[list[str]] = []
    rules = game.rules
    bots: list[Player] = [game.greedy(random.Random(seat)) for seat in range(3)]
    bots[ENGINE_SEAT] = table.engine

    def step(done: Step) -> None:
        if done.seat == ENGINE_SEAT and not hands:
            deck = f"round-{done.before.round}"
            held = done.before.hands
            hands.extend([str(done.known[seat][f"{deck}#{p}"]) for p in held[seat]] for seat in range(3))

    outcome, _ = play_game(rules, 3, {}, bots, random.Random(4), on_step=step)
    table.engine.close(outcome)
    lines = [json.loads(text) for text in log.read_text().splitlines()]
    assert [line["type"] for line in (lines[0], lines[1], lines[-1])] == ["hello", "move", "quit"]
    assert lines[-1] == {"type": "quit", "reason": "finished", "outcome": outcome.to_wire()}
    first = json.dumps(lines[1])
    assert all(f'"{label}"' in first for label in hands[ENGINE_SEAT])
    others = [label for seat, hand in enumerate(hands) if seat != ENGINE_SEAT for label in hand]
    assert others and not [label for label in others if f'"{label}"' in first]


@pytest.mark.parametrize("game", games(), ids=lambda game: game.id)
def test_every_seats_view_at_every_step_of_a_game_is_plain_json(game: Game) -> None:
    rules = game.rules
    encoded = 0

    def step(done: Step) -> None:
        nonlocal encoded
        for seat in range(3):
            text = json.dumps(plain(rules.view(done.after, seat, done.known[seat])))
            assert json.loads(text)["seat"] == seat
            encoded += 1

    play_game(rules, 3, {}, [game.greedy(random.Random(seat)) for seat in range(3)], random.Random(1), on_step=step)
    assert encoded > 30


def test_plain_refuses_what_a_view_cannot_hold() -> None:
    class Cell(NamedTuple):
        x: int
        top: str | None

    @dataclass(frozen=True)
    class Line:
        bets: tuple[int, ...]
        cell: Cell

    assert plain(Line((1, 2), Cell(0, None))) == {"bets": [1, 2], "cell": {"x": 0, "top": None}}
    with pytest.raises(TypeError, match="a view holds a bytes"):
        plain((b"commitment",))


def test_selfplay_seats_an_engine_afresh_for_each_game(capfd: pytest.CaptureFixture[str]) -> None:
    argv = ["selfplay", "fishnstones", "--players", "2", "--games", "2", "--bots", "greedy", "--json"]
    assert main([*argv, "--engine", f"1:{FIRST_LEGAL}"]) == 0
    out, err = capfd.readouterr()
    assert json.loads(out)["bots"] == ["greedy", "engine"]
    assert err.count("first_legal: playing fishnstones as seat 1") == 2, err
