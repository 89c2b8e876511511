"""King Fish deal: the first round of King Fish up to the ponds, for the `kingfish_deal_5_s` figure.

The game is King Fish with seat 0 dealing, over as soon as the ponds are turned up: the whole deck
shuffled by every seat (a lock pass and a re-key pass each), six cards dealt privately to each seat,
and nine turned up for all. Everyone scores 0. The session then releases and re-checks every key,
as after any game, but the figure stops at the deal.
"""

from collections.abc import Mapping
from typing import Final

from p2pfish.core.errors import MalformedInput
from p2pfish.core.game import Outcome
from p2pfish.games.kingfish.rules import DEAL, POND_DEAL, SHUFFLE, START, KingFish, State

DEALING_PHASES: Final = (START, SHUFFLE, DEAL, POND_DEAL)


class KingFishDeal(KingFish):
    id = "kingfish-deal"
    title = "King Fish deal (benchmark)"

    def new_game(self, players: int, options: Mapping[str, str]) -> State:
        if options:
            raise MalformedInput(f"{self.id} takes no options, not {', '.join(sorted(options))}")
        return super().new_game(players, {"start": "0"})

    def outcome(self, state: State) -> Outcome | None:
        if state.phase in DEALING_PHASES:
            return None
        return Outcome((0,) * state.players, tuple(range(state.players)))


RULES: Final = KingFishDeal()
