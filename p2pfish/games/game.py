"""One game's entry in the registry (p2pfish/games/registry.py): everything the rest of p2pfish needs to know
of a game, typed. The bots and the terminal kit are loaded only when asked for, so that a process that only
checks rules (a session, `verify`) loads neither."""

import random
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

from p2pfish.core.game import AnyRules

if TYPE_CHECKING:
    from p2pfish.core.player import Player
    from p2pfish.ui.kit import GameUi


@dataclass(frozen=True)
class Game:
    rules: AnyRules
    greedy: "Callable[[random.Random], Player]"
    """Its greedy bot, drawing its own random choices from the generator given."""
    ui: "Callable[[], GameUi]"
    """Its terminal kit."""
    deals_cards: bool
    """Whether it deals from a mental-poker deck (the deck cheats apply to it)."""
    shortest_game: Mapping[int, int]
    """Per table size, fewer messages than any bot game of it holds (where the crash soak may strike)."""

    @property
    def id(self) -> str:
        return self.rules.id
