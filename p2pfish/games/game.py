"""One game's entry in the registry (p2pfish/games/registry.py): everything the rest of p2pfish needs to know
of a game, typed. The bots and the terminal kit are loaded only when asked for, so that a process that only
checks rules (a session, `verify`) loads neither."""

import importlib
import random
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

from p2pfish.core.game import AnyRules

if TYPE_CHECKING:
    from p2pfish.bots.disguise import Disguise
    from p2pfish.bots.search import Sampler
    from p2pfish.core.player import Player
    from p2pfish.ui.kit import GameUi


@dataclass(frozen=True)
class Game:
    rules: AnyRules
    greedy: "Callable[[random.Random], Player]"
    """Its greedy bot, drawing its own random choices from the generator given."""
    sampler: "Callable[[], Sampler]"
    """Its determinizer for the search bot: a full state consistent with one seat's view."""
    ui: "Callable[[], GameUi]"
    """Its terminal kit."""
    deals_cards: bool
    """Whether it deals from a mental-poker deck (the deck cheats apply to it)."""
    shortest_game: Mapping[int, int]
    """Per table size, fewer messages than any bot game of it holds (where the crash soak may strike)."""
    disguise: "Callable[[], Disguise | None]" = lambda: None
    """How its bots keep a dealt secret from showing in their moves (None: it has no such secret)."""

    @property
    def id(self) -> str:
        return self.rules.id


def game_in_folder(
    folder: str, rules: AnyRules, *, deals_cards: bool, shortest_game: Mapping[int, int], disguised: bool = False
) -> Game:
    """The entry of the game in package `folder` (its `__name__`): its bot is the class GREEDY of its greedy.py,
    its determinizer the SAMPLER of its sampler.py, its terminal kit the KIT of its kit.py, and if `disguised` its
    bots' disguise the DISGUISE of its disguise.py, each imported when first asked for."""

    def greedy(rng: random.Random) -> "Player":
        make: Callable[[random.Random], Player] = importlib.import_module(f"{folder}.greedy").GREEDY
        return make(rng)

    def sampler() -> "Sampler":
        found: Sampler = importlib.import_module(f"{folder}.sampler").SAMPLER
        return found

    def ui() -> "GameUi":
        kit: GameUi = importlib.import_module(f"{folder}.kit").KIT
        return kit

    def disguise() -> "Disguise | None":
        if not disguised:
            return None
        found: Disguise = importlib.import_module(f"{folder}.disguise").DISGUISE
        return found

    return Game(
        rules=rules,
        greedy=greedy,
        sampler=sampler,
        ui=ui,
        deals_cards=deals_cards,
        shortest_game=shortest_game,
        disguise=disguise,
    )
