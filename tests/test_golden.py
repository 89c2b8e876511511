"""Golden playthroughs: for every game of the registry, one seeded rules-only game between greedy and
random bots, stored in tests/golden/<game>_<players>p.json: every action (the bot's choice and what the
log got), every seat's view where the game's views have a wire form (as one SHA-256 a step where the
file would pass 300 kB), and the outcome.

Any change of play shows as a diff of the golden file; the stored log must also replay, from its wire
forms alone, to the stored outcome. After a deliberate change, or for a new game, rewrite them with:
P2PFISH_UPDATE_GOLDEN=1 scripts/test tests/test_golden.py
"""

import hashlib
import json
import os
import random
from pathlib import Path

import pytest

from p2pfish.core.actions import Action, Dealt, Shuffled
from p2pfish.core.wire import Json
from p2pfish.games.game import Game
from p2pfish.games.registry import games, make_bot
from p2pfish.selfplay import Step, play_game

FOLDER = Path(__file__).parent / "golden"
SEED = 20261122
KINDS = ("greedy", "random")
MAX_BYTES = 300_000
"""A golden file holding every view past this size holds each step's views as one SHA-256 instead."""


def players_of(game: Game) -> int:
    return min(4, game.rules.max_players)


def golden_path(game: Game) -> Path:
    return FOLDER / f"{game.id}_{players_of(game)}p.json"


def record(game: Game) -> Json:
    rules, players = game.rules, players_of(game)
    rng = random.Random(SEED)
    kinds = [KINDS[seat % len(KINDS)] for seat in range(players)]
    bots = [make_bot(kind, rules.id, random.Random(rng.getrandbits(64))) for kind in kinds]
    steps: list[Json] = []

    def keep(step: Step) -> None:
        entry: dict[str, Json] = {"seat": step.seat, "choice": str(step.choice), "logged": step.action.to_wire()}
        views = [rules.view(step.after, seat, step.known[seat]) for seat in range(players)]
        if all(hasattr(view, "to_wire") for view in views):
            entry["views"] = [view.to_wire() for view in views]
        steps.append(entry)

    outcome, _ = play_game(rules, players, {}, bots, rng, on_step=keep)
    played: Json = {"game": rules.id, "seed": SEED, "bots": list(kinds), "outcome": outcome.to_wire(), "steps": steps}
    if len(dump(played)) > MAX_BYTES:
        for entry in steps:
            assert isinstance(entry, dict)
            if "views" in entry:
                entry["views"] = hashlib.sha256(json.dumps(entry["views"]).encode()).hexdigest()
    return played


def dump(played: Json) -> str:
    """JSON with one line per step and per view, so that a change shows as a short diff."""
    assert isinstance(played, dict)
    steps = played["steps"]
    assert isinstance(steps, list)
    head = json.dumps({k: v for k, v in played.items() if k != "steps"})[:-1]
    lines = [head + ', "steps": [']
    for n, step in enumerate(steps):
        assert isinstance(step, dict)
        end = "," if n < len(steps) - 1 else ""
        views = step.get("views")
        fields = json.dumps({k: v for k, v in step.items() if k != "views" or not isinstance(v, list)})
        if not isinstance(views, list):
            lines.append(" " + fields + end)
            continue
        lines.append(" " + fields[:-1] + ', "views": [')
        lines.extend("  " + json.dumps(view) + ("," if i < len(views) - 1 else "") for i, view in enumerate(views))
        lines.append(" ]}" + end)
    lines.append("]}")
    return "\n".join(lines) + "\n"


def decode(game: Game, wire: Json) -> Action:
    """An action of the log from its wire form: the deck's turns are the session's, the rest the game's."""
    assert isinstance(wire, dict)
    if wire["t"] == "shuffled":
        deck, size = wire["deck"], wire["size"]
        assert isinstance(deck, str) and isinstance(size, int)
        return Shuffled(deck, size)
    if wire["t"] == "dealt":
        deck, positions, to, labels = wire["deck"], wire["positions"], wire["to"], wire["labels"]
        assert isinstance(deck, str) and isinstance(positions, list) and (to is None or isinstance(to, int))
        shown = None if labels is None else tuple(str(label) for label in labels) if isinstance(labels, list) else ()
        return Dealt(deck, tuple(int(str(p)) for p in positions), to, shown)
    return game.rules.decode_action(wire)


BY_GAME = [pytest.param(game, id=game.id) for game in games()]


@pytest.mark.parametrize("game", BY_GAME)
def test_golden_playthrough_is_unchanged(game: Game) -> None:
    played = record(game)
    path = golden_path(game)
    if os.environ.get("P2PFISH_UPDATE_GOLDEN") == "1":
        path.write_text(dump(played))
    assert path.exists(), f"no golden playthrough of {game.id}: write it with P2PFISH_UPDATE_GOLDEN=1"
    golden = json.loads(path.read_text())
    assert golden == played


@pytest.mark.parametrize("game", BY_GAME)
def test_the_golden_log_replays_from_its_wire_forms_to_its_outcome(game: Game) -> None:
    golden = json.loads(golden_path(game).read_text())
    rules = game.rules
    state = rules.new_game(players_of(game), {})
    for step in golden["steps"]:
        action = decode(game, step["logged"])
        assert action.to_wire() == step["logged"]
        state = rules.apply(state, step["seat"], action)
    outcome = rules.outcome(state)
    assert outcome is not None and outcome.to_wire() == golden["outcome"]
