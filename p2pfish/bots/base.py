"""What the bots share. A bot is a `Player` (p2pfish.core.player): it sees one seat's view and its legal
actions, nothing else."""

import random
from collections.abc import Sequence

from p2pfish.core.actions import Action

TIE = 1e-9
"""Values closer than this count as equal."""


def pick_best(rng: random.Random, legal: Sequence[Action], values: Sequence[float]) -> Action:
    """The action of highest value; among equal ones, one drawn with `rng`."""
    top = max(values)
    ties = [action for action, value in zip(legal, values, strict=True) if value >= top - TIE]
    return ties[rng.randrange(len(ties))]
