"""A fast playout of the rest of a King Fish round for the search bot: the same play as search.play_out.

The search plays thousands of playouts a move, each to the end of the round (its horizon). The rules engine
keeps an immutable state of deck positions and checks every move; here the round goes on in plain lists of
labels the world already knows, so a playout costs a fraction of the engine's. The seats are played by the same
players with the same views and legal actions, in the same order, and a decision with one legal action is made
without asking them, as search.play_out does: from the same world and seed the result is the same (a test
plays both side by side). A state this does not start from (outside an excursion) goes to search.play_out.
"""

import random
from collections.abc import Sequence
from typing import Any

from p2pfish.bots.search import Horizon, Scores, World, play_out, round_horizon
from p2pfish.core.actions import Action, card_name
from p2pfish.core.game import AnyRules, Outcome
from p2pfish.core.player import Player
from p2pfish.games.kingfish.rules import (
    BAIT,
    CAUGHT,
    CHOOSE,
    DECK_LABELS,
    LINE,
    MIN_HAND,
    PONDS,
    REEL,
    TACKLE,
    TACKLE_DEAL,
    Catch,
    ChoosePond,
    Keep,
    Phase,
    PlayBait,
    PlayLine,
    State,
    View,
    clockwise_from,
    fish_points,
    rank,
)

Card = tuple[int, str, bool]
"""A card in a hand: its deck position, its label, and whether everyone saw it (kept from the tackle box)."""

PLAYED = (CHOOSE, LINE, BAIT, REEL, TACKLE, TACKLE_DEAL)


class Round:
    """The rest of one round, in labels."""

    def __init__(self, state: State, known: Sequence[dict[str, Any]], order: Sequence[str]) -> None:
        shown, deck = state.shown, state.deck

        def label(position: int, owner: int | None) -> str:
            public = shown[position]
            if public is not None:
                return public
            assert owner is not None
            return str(known[owner][card_name(deck, position)])

        self.state = state
        self.players = players = state.players
        self.deck = deck
        self.dealer = state.dealer
        self.seats = clockwise_from(self.dealer, players)
        self.excursion = state.excursion
        self.hands: list[list[Card]] = [
            [(p, label(p, s), shown[p] is not None) for p in state.hands[s]] for s in range(players)
        ]
        self.ponds: list[list[str]] = [[str(shown[p]) for p in pond] for pond in state.ponds]
        self.pond = state.pond
        self.lines: list[str | None] = [None if p is None else shown[p] for p in state.lines]
        self.baits: list[tuple[int, str] | None] = [
            None if p is None else (p, label(p, s)) for s, p in enumerate(state.baits)
        ]
        self.turned: list[bool] = [p is not None and shown[p] is not None for p in state.baits]
        self.reeled = list(state.reeled)
        self.reel_log = list(state.reel_log)
        self.tackle: list[tuple[int, str]] = [(p, str(shown[p])) for p in state.tackle]
        self.next_position = state.next_position
        self.order = order
        """The deck's labels by position (the world's)."""
        self.caught: list[list[str]] = [list(c) for c in state.caught]
        self.history = history = state.history
        self.playing = len(history) < state.round
        self.past = tuple(sum(points[s] for points in history) for s in range(players))
        self._caught_changed()

    @property
    def chooser(self) -> int:
        return (self.dealer + max(self.excursion, 1) - 1) % self.players

    def _caught_changed(self) -> None:
        """The ponds, the catches and the scores as a view shows them (they change only when a fish is caught)."""
        self.ponds_shown = tuple(tuple(pond) for pond in self.ponds)
        self.caught_shown = tuple(tuple(c) for c in self.caught)
        self.scores = tuple(
            past + (_points(caught) if self.playing else 0) for past, caught in zip(self.past, self.caught, strict=True)
        )

    def view(self, seat: int, phase: Phase, catchable: tuple[str, ...] = ()) -> View:
        bait = self.baits[seat]
        baits, turned = self.baits, self.turned
        return View(
            seat,
            self.players,
            phase,
            (seat,),
            self.state.round,
            self.players,
            self.dealer,
            self.chooser,
            self.excursion,
            tuple([(p, label) for p, label, _ in self.hands[seat]]),
            tuple([len(h) for h in self.hands]),
            tuple([tuple([label for _, label, public in h if public]) for h in self.hands]),
            self.ponds_shown,
            self.pond,
            tuple(self.lines),
            tuple([b is not None and not up for b, up in zip(baits, turned, strict=True)]),
            tuple([b[1] if b is not None and up else None for b, up in zip(baits, turned, strict=True)]),
            None if bait is None else bait[1],
            tuple(self.reeled),
            tuple(self.reel_log),
            catchable,
            tuple([label for _, label in self.tackle]),
            len(DECK_LABELS) - self.next_position,
            self.caught_shown,
            self.history,
            self.scores,
        )

    def decide(self, players: Sequence[Player], seat: int, phase: Phase, legal: list[Action], **extra: Any) -> Action:
        if len(legal) == 1:
            return legal[0]
        return players[seat].choose(self.view(seat, phase, **extra), legal)

    def play(self, players: Sequence[Player], phase: Phase) -> None:
        """Play the round from `phase` (a decision, or the tackle box's deal) to its end."""
        while True:
            if phase == CHOOSE:
                chooser = self.chooser
                open_ponds: list[Action] = [ChoosePond(k) for k in range(PONDS) if self.ponds[k]]
                choice = self.decide(players, chooser, CHOOSE, open_ponds)
                assert isinstance(choice, ChoosePond)
                self.pond = choice.pond
                phase = LINE
            if phase == LINE:
                for seat in self.seats:
                    if self.lines[seat] is None:
                        hand = self.hands[seat]
                        legal: list[Action] = [PlayLine(self.deck, p, label) for p, label, _ in hand]
                        line = self.decide(players, seat, LINE, legal)
                        assert isinstance(line, PlayLine)
                        self.hands[seat] = [card for card in hand if card[0] != line.position]
                        self.lines[seat] = line.label
                phase = BAIT
            if phase == BAIT:
                for seat in self.seats:
                    if self.baits[seat] is None:
                        hand = self.hands[seat]
                        legal = [PlayBait(p) for p, _, _ in hand]
                        bait = self.decide(players, seat, BAIT, legal)
                        assert isinstance(bait, PlayBait)
                        position, label, public = next(card for card in hand if card[0] == bait.position)
                        self.baits[seat] = (position, label)
                        self.turned[seat] = public  # a card kept from the tackle box: everyone knows it
                        self.hands[seat] = [card for card in hand if card[0] != bait.position]
                phase = REEL
            if phase == REEL:
                self.reel(players)
                if not self.end_excursion():
                    return
                phase = TACKLE_DEAL
            if phase == TACKLE_DEAL:
                count = self.players
                self.tackle = [(p, self.order[p]) for p in range(self.next_position, self.next_position + count)]
                self.next_position += count
                phase = TACKLE
            if phase == TACKLE:
                self.keep(players)
                if len(self.hands[self.dealer]) < MIN_HAND:
                    return
                self.excursion += 1
                self.pond, self.reel_log = None, []
                self.lines = [None] * self.players
                self.baits = [None] * self.players
                self.turned = [False] * self.players
                self.reeled = [False] * self.players
                open_count = sum(1 for pond in self.ponds if pond)
                if open_count == 1:
                    self.pond = next(k for k in range(PONDS) if self.ponds[k])
                    phase = LINE
                else:
                    phase = CHOOSE

    def reel(self, players: Sequence[Player]) -> None:
        """Turn the baits up and reel, lowest line first (rules.reel_step and _settle_reel)."""
        while True:
            group: list[int] = []
            lowest = 0
            for seat in self.seats:
                if self.reeled[seat]:
                    continue
                line = self.lines[seat]
                assert line is not None
                line_rank = rank(line)
                if not group or line_rank < lowest:
                    group, lowest = [seat], line_rank
                elif line_rank == lowest:
                    group.append(seat)
            if not group:
                return
            for seat in group:
                self.turned[seat] = True  # a reveal: the seat's one legal action
            seat = max(group, key=lambda s: rank(self._bait(s)))
            line = self.lines[seat]
            assert line is not None and self.pond is not None
            caught_by = CAUGHT[line][self._bait(seat)[-1]]
            pond = self.ponds[self.pond]
            options = tuple(fish for fish in pond if fish in caught_by)
            if len(options) > 1:
                legal: list[Action] = [Catch(fish) for fish in options]
                choice = players[seat].choose(self.view(seat, REEL, catchable=options), legal)
                assert isinstance(choice, Catch)
                fish: str | None = choice.fish
            else:
                fish = options[0] if options else None
            if fish is not None:
                pond.remove(fish)
                self.caught[seat].append(fish)
                self._caught_changed()
            self.reeled[seat] = True
            self.reel_log.append((seat, fish))

    def _bait(self, seat: int) -> str:
        bait = self.baits[seat]
        assert bait is not None
        return bait[1]

    def end_excursion(self) -> bool:
        """Whether the round goes on to the tackle box (rules._end_excursion)."""
        if not any(self.ponds):
            return False
        deck_left = len(DECK_LABELS) - self.next_position
        return not (deck_left < self.players or len(self.hands[self.dealer]) + 1 < MIN_HAND)

    def keep(self, players: Sequence[Player]) -> None:
        """Each seat from the dealer keeps a tackle card, the last one by itself."""
        for index, seat in enumerate(self.seats):
            if index < self.players - len(self.tackle):
                continue  # kept already
            if len(self.tackle) == 1:
                position, label = self.tackle.pop()
            else:
                legal: list[Action] = [Keep(label) for label in dict.fromkeys(label for _, label in self.tackle)]
                choice = self.decide(players, seat, TACKLE, legal)
                assert isinstance(choice, Keep)
                position, label = next(card for card in self.tackle if card[1] == choice.card)
                self.tackle.remove((position, label))
            self.hands[seat].append((position, label, True))
            if not self.tackle:
                return

    def totals(self) -> tuple[int, ...]:
        history = (*self.history, tuple(_points(c) for c in self.caught))
        return tuple(sum(points[s] for points in history) for s in range(self.players))


def _points(caught: Sequence[str]) -> int:
    return sum(fish_points(fish) for fish in caught)


def fast_play_out(
    rules: AnyRules,
    world: World,
    players: Sequence[Player],
    rng: random.Random,
    *,
    horizon: Horizon | None = None,
    root: Any = None,
) -> "Outcome | Scores":
    """search.play_out for a King Fish world stopped at the end of the round (round_horizon): the same result."""
    state = world.state
    if (
        horizon is not round_horizon
        or not isinstance(state, State)
        or state.phase not in PLAYED
        or (root is not None and len(root.history) != len(state.history))
    ):
        return play_out(rules, world, players, rng, horizon=horizon, root=root)
    game_round = Round(state, world.known, world.decks[state.deck])
    game_round.play(players, state.phase)
    scores = game_round.totals()
    if state.round == state.players:
        return Outcome.highest_wins(scores)
    return scores
