"""The game's log in words as one seat reads it: each applied action told with that seat's view just
before and just after it, so that a game's words can say what it changed (a card turned up, a fish
eaten, a point scored) and not only what was done."""

from collections.abc import Mapping, Sequence
from typing import Any

from p2pfish.core.actions import Action
from p2pfish.core.game import AnyRules, Known
from p2pfish.ui.kit import GameUi


class Narrator:
    """Replays the log it is shown, from a new game of `rules`, as seat `seat` sees it."""

    def __init__(self, rules: AnyRules, options: Mapping[str, str], kit: GameUi, *, seat: int, names: tuple[str, ...]):
        self.rules, self.seat, self.kit, self.names = rules, seat, kit, names
        self.state: Any = rules.new_game(len(names), options)
        self.told = 0

    def lines(self, log: Sequence[tuple[int | None, Action]], known: Known) -> list[str]:
        """The words for the entries of `log` not told yet (`log` is the whole log so far)."""
        out = []
        for seat, action in log[self.told :]:
            before = self.rules.view(self.state, self.seat, known)
            self.state = self.rules.apply(self.state, seat, action)
            after = self.rules.view(self.state, self.seat, known)
            out.append(self.kit.narrate(seat, action, self.names, before, after))
        self.told = len(log)
        return out
