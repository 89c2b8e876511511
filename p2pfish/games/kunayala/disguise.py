"""How a Kuna Yala bot keeps its colour tile from showing in its moves (p2pfish/bots/disguise.py): each turn is
played as if its colour were one drawn afresh for that turn — its own with probability `own_share(progress)`,
else one of the three others, evenly.

The share may rise over the game (FIRST_SHARE at the start, LAST_SHARE when the stacks are spent): late turns,
when little can still be done against the colour, would score it. But a spy adds up the evidence of every turn,
so what a later turn shows, it shows of the whole game. Measured with the greedy bot inside, heads-up, over 40
games (10 for the first three lines) with tools/spy.py measure_secret_spy — the spy's hit rate before each of the
bot's decisions, and at the game's end, against 1/3 blind — then its win rate against the undisguised greedy bot
over 100 games:
- undisguised: 96.5 %, 100 % at the end;
- 0.25 rising to 1.0: 72 %, 100 %; wins 32 %;
- 0.4 rising to 0.8: 81 %, 100 %; wins 33 %;
- 0.3 rising to 0.4: 46 %, 58 %; wins 20 %;
- 0.3 throughout: 40 %, 48 % (over 100 games: 43 %, 48 %); wins 22 % (and 88 % against the random bot, 99 %
  undisguised).
Only the last keeps the spy within 10 points of blind at each decision: it is the default. Hiding the colour costs
the bot much of its strength — a colour only scores when played for.
"""

from typing import Any, Final

from p2pfish.bots.disguise import Disguise
from p2pfish.games.kunayala.rules import FISH_COLOURS, View

FIRST_SHARE: Final = 0.3
"""The chance that a turn is played for the bot's own colour at the start of the game (blind: 0.25)."""
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
