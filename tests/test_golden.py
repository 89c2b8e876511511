"""A golden playthrough: one seeded 4-player Fish'n'Stones game, every action and every seat's view.

Any change of play shows as a diff of tests/golden/fishnstones_4p.json. After a deliberate change,
rewrite it with: P2PFISH_UPDATE_GOLDEN=1 scripts/test tests/test_golden.py
"""

import json
import os
import random
from pathlib import Path

from p2pfish.core.wire import Json
from p2pfish.games.registry import get_rules, make_bot
from p2pfish.selfplay import Step, play_game

GOLDEN = Path(__file__).parent / "golden" / "fishnstones_4p.json"
SEED = 20261122


def record() -> Json:
    rules = get_rules("fishnstones")
    rng = random.Random(SEED)
    kinds = ["greedy", "random", "greedy", "random"]
    bots = [make_bot(kind, rules.id, random.Random(rng.getrandbits(64))) for kind in kinds]
    steps: list[Json] = []

    def keep(step: Step) -> None:
        steps.append(
            {
                "seat": step.seat,
                "choice": str(step.choice),
                "logged": step.action.to_wire(),
                "views": [rules.view(step.after, seat, step.known[seat]).to_wire() for seat in range(4)],
            }
        )

    outcome, _ = play_game(rules, 4, {}, bots, rng, on_step=keep)
    return {"game": rules.id, "seed": SEED, "bots": list(kinds), "outcome": outcome.to_wire(), "steps": steps}


def dump(played: Json) -> str:
    """JSON with one line per step and per view, so that a change shows as a short diff."""
    assert isinstance(played, dict)
    steps = played["steps"]
    assert isinstance(steps, list)
    head = json.dumps({k: v for k, v in played.items() if k != "steps"})[:-1]
    lines = [head + ', "steps": [']
    for n, step in enumerate(steps):
        assert isinstance(step, dict)
        views = step["views"]
        assert isinstance(views, list)
        fields = json.dumps({k: v for k, v in step.items() if k != "views"})[:-1]
        lines.append(" " + fields + ', "views": [')
        lines.extend("  " + json.dumps(view) + ("," if i < len(views) - 1 else "") for i, view in enumerate(views))
        lines.append(" ]}" + ("," if n < len(steps) - 1 else ""))
    lines.append("]}")
    return "\n".join(lines) + "\n"


def test_golden_playthrough_is_unchanged() -> None:
    played = record()
    if os.environ.get("P2PFISH_UPDATE_GOLDEN") == "1":
        GOLDEN.write_text(dump(played))
    golden = json.loads(GOLDEN.read_text())
    assert golden == played
