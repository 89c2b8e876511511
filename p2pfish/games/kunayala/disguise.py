"""How a Kuna Yala bot keeps its colour tile from showing in its moves (p2pfish/bots/disguise.py): each turn is
played as if its colour were one drawn afresh for that turn — its own with probability `own_share(progress)`,
else one of the three others, evenly.

Early in the game its own colour is barely favoured (FIRST_SHARE), then ever more as the stacks run out
(LAST_SHARE at the end): the first turns hide the colour while opponents can still act on it; the last ones,
when little can still be done against it, score it.
"""

from typing import Any, Final

from p2pfish.bots.disguise import Disguise
from p2pfish.games.kunayala.rules import FISH_COLOURS, View

FIRST_SHARE: Final = 0.3
"""The chance that a turn is played for the bot's own colour at the start of the game."""
LAST_SHARE: Final = 0.3
"""... and at its end (in between, in proportion to the cards gone from the stacks)."""
FULL_STACKS: Final = 95
"""About how many cards the stacks hold when play starts (104, less the face-up cards and the dealt corals)."""


def own_share(progress: float) -> float:
    """The chance that a turn is played for the bot's own colour, `progress` (0 to 1) into the game."""
    return FIRST_SHARE + (LAST_SHARE - FIRST_SHARE) * min(1.0, max(0.0, progress))


def progress_of(view: View) -> float:
    """How far into the game `view` is: the share of the stacks' cards already turned up."""
    left = sum(view.stacks)
    return 1.0 - left / max(left, FULL_STACKS)


def colour_chances(view: Any, own: object) -> dict[object, float]:
    """The chance of each colour being the one a turn is played for, by a seat whose colour is `own`."""
    assert isinstance(view, View)
    share = own_share(progress_of(view))
    other = (1.0 - share) / (len(FISH_COLOURS) - 1)
    return {colour: share if colour == own else other for colour in FISH_COLOURS}


def my_colour(view: Any) -> object | None:
    return view.my_colour if isinstance(view, View) else None


def as_if(view: Any, colour: object) -> Any:
    assert isinstance(view, View) and isinstance(colour, str)
    return view._replace(my_colour=colour)


def turn_of(view: Any) -> int:
    assert isinstance(view, View)
    return view.turns


DISGUISE: Final = Disguise(my_colour, FISH_COLOURS, as_if, colour_chances, turn_of)
"""This game's disguise, for its registry entry."""
