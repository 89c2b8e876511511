"""Property tests for the King Fish rules: random bot games of 2-5 players through `selfplay.play_game`.

Every step of a game goes through checks on the way: an independent model of the rules kept from the
public moves alone (whose turn it is, the legal moves, the reeling order, the automatic catches and keeps,
when an excursion and a round end, the points), the conservation of the round deck's cards, the secrecy of
every view, and probes with moves outside the legal set (refused, naming the seat, leaving the state as it
was). That the log of a game replays through its wire form is checked for every game in test_conformance.py.
"""

import random
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from campaign import examples
from conformance_helpers import snapshot
from hypothesis import event, given
from hypothesis import strategies as st

from p2pfish.bots.random_bot import RandomBot
from p2pfish.core.actions import Action, Chance, Dealt, RevealCard, Shuffled, card_name
from p2pfish.core.errors import IllegalAction
from p2pfish.core.game import ChanceRequest, DealRequest, ShuffleRequest
from p2pfish.core.player import Player
from p2pfish.games.kingfish import rules as kingfish
from p2pfish.games.kingfish.rules import (
    OVER,
    RULES,
    State,
)
from p2pfish.selfplay import Step, play_game

SETTINGS = examples(20)
LABELS = tuple(rank + suit for suit in "SHDC" for rank in ("A", *map(str, range(2, 11)), "J", "Q", "K"))
RANK = {rank: value for value, rank in enumerate(("A", *map(str, range(2, 11)), "J", "Q", "K"), start=1)}


def rank_of(label: str) -> int:
    return RANK[label[:-1]]


def caught_by(line: str, bait: str, fish: str) -> bool:
    """The rulebook's catch, read afresh: the bait's suit; below a number line; anything for a J/Q/K line."""
    if fish[-1] != bait[-1]:
        return False
    return rank_of(line) > 10 or rank_of(fish) < rank_of(line)


def points(fish: str) -> int:
    return 2 if fish[:-1] in ("J", "Q", "K") else 1


@dataclass
class Model:
    """One round, kept from the public moves."""

    players: int
    dealer: int
    number: int
    hands: list[int] = field(default_factory=list)
    ponds: list[list[str]] = field(default_factory=list)
    deck_left: int = 52
    excursion: int = 0
    pond: int | None = None
    lines: dict[int, str] = field(default_factory=dict)
    baits: dict[int, str | None] = field(default_factory=dict)
    reeled: list[int] = field(default_factory=list)
    tackle: list[str] = field(default_factory=list)
    kept: int = 0
    caught: list[list[str]] = field(default_factory=list)
    due: tuple[str, int | None] = ("deal", None)
    """What the game waits for: (choose|line|bait|turn|catch|keep, seat), (tackle-deal|deal|end, None)."""
    ended_by: str = ""
    ties: int = 0
    decisions: int = 0

    def __post_init__(self) -> None:
        self.hands = [0] * self.players
        self.caught = [[] for _ in range(self.players)]

    @property
    def order(self) -> list[int]:
        return [(self.dealer + k) % self.players for k in range(self.players)]

    def start_excursion(self) -> None:
        self.excursion += 1
        self.pond, self.lines, self.baits, self.reeled = None, {}, {}, []
        chooser = self.order[(self.excursion - 1) % self.players]
        open_ponds = [k for k, pond in enumerate(self.ponds) if pond]
        if len(open_ponds) == 1:
            self.pond = open_ponds[0]
            self.due = ("line", self.order[0])
        else:
            self.due = ("choose", chooser)

    def options(self, seat: int) -> list[str]:
        assert self.pond is not None
        bait = self.baits[seat]
        assert bait is not None
        return [fish for fish in self.ponds[self.pond] if caught_by(self.lines[seat], bait, fish)]

    def take(self, seat: int, fish: str | None) -> None:
        if fish is not None:
            assert self.pond is not None
            self.ponds[self.pond].remove(fish)
            self.caught[seat].append(fish)
        self.reeled.append(seat)

    def reel_on(self) -> None:
        """Turn and reel, lowest line first, until a seat must act."""
        while True:
            waiting = [s for s in self.order if s not in self.reeled]
            if not waiting:
                self.end_excursion()
                return
            lowest = min(rank_of(self.lines[s]) for s in waiting)
            group = [s for s in waiting if rank_of(self.lines[s]) == lowest]
            if len(group) > 1:
                self.ties += 1
            face_down = [s for s in group if self.baits[s] is None]
            if face_down:
                self.due = ("turn", face_down[0])
                return
            best = max(rank_of(str(self.baits[s])) for s in group)
            seat = next(s for s in group if rank_of(str(self.baits[s])) == best)
            options = self.options(seat)
            if len(options) > 1:
                self.due = ("catch", seat)
                self.decisions += 1
                return
            self.take(seat, options[0] if options else None)

    def end_excursion(self) -> None:
        assert len(set(self.hands)) == 1, self.hands  # every seat played two cards and kept one each time
        if not any(self.ponds):
            self.due, self.ended_by = ("end", None), "empty ponds"
        elif self.deck_left < self.players:
            self.due, self.ended_by = ("end", None), "deck short"
        elif self.hands[self.dealer] + 1 < 2:
            # even with a tackle-box card a seat could not play a line and a bait: no tackle box
            self.due, self.ended_by = ("end", None), "hands"
        else:
            self.due = ("tackle-deal", None)

    def keep(self, seat: int, card: str) -> None:
        self.tackle.remove(card)
        self.hands[seat] += 1
        self.kept += 1

    def after_keep(self) -> None:
        if len(self.tackle) == 1:
            self.keep(self.order[self.kept], self.tackle[0])
        if self.tackle:
            self.due = ("keep", self.order[self.kept])
        else:
            # a tackle box is dealt only when it leaves every seat a line and a bait
            assert self.hands == [self.hands[self.dealer]] * self.players and self.hands[self.dealer] >= 2
            self.start_excursion()

    def points(self) -> list[int]:
        return [sum(points(fish) for fish in fish_list) for fish_list in self.caught]


def place_of(state: State) -> dict[int, str]:
    """Where each position of the round deck lies; fails if a position is in two places."""
    where: dict[int, str] = {}

    def put(position: int, place: str) -> None:
        assert position not in where, f"position {position} is in {where[position]} and in {place}"
        where[position] = place

    for seat, hand in enumerate(state.hands):
        for position in hand:
            put(position, f"hand {seat}")
    for k, pond in enumerate(state.ponds):
        for position in pond:
            put(position, f"pond {k}")
    played = {p for p in (*state.lines, *state.baits) if p is not None}
    assert len(set(state.discarded)) == len(state.discarded)
    for position in played | set(state.discarded):
        put(position, "played")
    for position in state.tackle:
        put(position, "tackle")
    caught = {fish for fish_list in state.caught for fish in fish_list}
    for position, label in enumerate(state.shown):
        if label in caught:
            put(position, "caught")
    for position in range(state.next_position, 52):
        put(position, "deck")
    return where


@dataclass
class Checker:
    """The on_step hook: checks each step against the model and the invariants."""

    players: int
    rng: random.Random
    probe_every: int
    model: Model | None = None
    first: int | None = None
    history: list[tuple[int, ...]] = field(default_factory=list)
    dealers: list[int] = field(default_factory=list)
    log: list[tuple[int | None, Action]] = field(default_factory=list)
    last: State | None = None
    steps: int = 0
    ends: list[str] = field(default_factory=list)
    ties: int = 0
    decisions: int = 0

    def __call__(self, step: Step) -> None:
        self.steps += 1
        before, after, action, seat = step.before, step.after, step.action, step.seat
        if self.last is not None:
            assert before == self.last, "apply changed the state it was given"
        self.log.append((seat, action))
        if seat is not None and self.steps % 4 == self.probe_every:
            self.probe(before, seat, step.known)
        self.follow(before, after, seat, action)
        self.check(after, step.known)
        self.last = snapshot(after)

    # --- the model ---

    def follow(self, before: State, after: State, seat: int | None, action: Action) -> None:
        p = self.players
        if isinstance(action, Chance):
            self.first = int(action.values[0])
            return
        if isinstance(action, Shuffled):
            number = len(self.history) + 1
            if self.first is None:
                self.first = before.first
            dealer = (self.first + number - 1) % p
            self.dealers.append(dealer)
            self.model = Model(p, dealer, number)
            assert after.round == number
            return
        m = self.model
        assert m is not None
        if isinstance(action, Dealt):
            if action.to is not None:
                assert action.positions == tuple(range(6 * action.to, 6 * action.to + 6))
                assert m.hands[action.to] == 0 and action.labels is None
                m.hands[action.to] = 6
            elif not m.ponds:
                assert m.hands == [6] * p
                assert action.labels is not None and len(action.labels) == 9
                m.ponds = [list(action.labels[k : k + 3]) for k in (0, 3, 6)]
                m.deck_left = 52 - 6 * p - 9
                m.start_excursion()
            else:
                assert m.due == ("tackle-deal", None)
                assert action.labels is not None and len(action.labels) == p
                m.tackle, m.kept = list(action.labels), 0
                m.deck_left -= p
                m.after_keep()
        elif isinstance(action, kingfish.ChoosePond):
            assert m.due == ("choose", seat)
            assert m.ponds[action.pond]
            m.pond = action.pond
            m.due = ("line", m.order[0])
        elif isinstance(action, kingfish.PlayLine):
            assert m.due == ("line", seat) and seat is not None
            m.lines[seat] = action.label
            m.hands[seat] -= 1
            m.due = ("line", m.order[len(m.lines)]) if len(m.lines) < p else ("bait", m.order[0])
        elif isinstance(action, kingfish.PlayBait):
            assert m.due == ("bait", seat) and seat is not None
            m.baits[seat] = before.shown[action.position]  # a kept tackle card is known to all
            m.hands[seat] -= 1
            if len(m.baits) < p:
                m.due = ("bait", m.order[len(m.baits)])
            else:
                m.reel_on()
        elif isinstance(action, RevealCard):
            assert m.due == ("turn", seat) and seat is not None
            assert m.baits[seat] is None
            m.baits[seat] = action.label
            m.reel_on()
        elif isinstance(action, kingfish.Catch):
            assert m.due == ("catch", seat) and seat is not None
            assert action.fish in m.options(seat)
            m.take(seat, action.fish)
            m.reel_on()
        else:
            assert isinstance(action, kingfish.Keep)
            assert m.due == ("keep", seat) and seat is not None
            m.keep(seat, action.card)
            m.after_keep()
        if m.due == ("end", None):
            if m.ended_by == "hands":
                # six cards, two played and one kept each excursion: empty after the 5th, with 4 tackle boxes
                assert m.excursion == 5 and m.hands == [0] * p
                assert m.deck_left == 52 - 6 * p - 9 - 4 * p
            self.history.append(tuple(m.points()))
            self.ends.append(m.ended_by)
            self.ties += m.ties
            self.decisions += m.decisions
            self.model = None

    # --- checks of a state ---

    def check(self, state: State, known: Any) -> None:
        p = self.players
        assert state.history == tuple(self.history)
        m = self.model
        to_act = RULES.to_act(state)
        request = RULES.chance(state)
        if m is None:
            if state.phase == OVER:
                assert request is None and to_act == ()
            elif len(self.history) == 0:
                assert request == ChanceRequest("start", tuple(range(p)), 1) or isinstance(request, ShuffleRequest)
            else:
                assert request == ShuffleRequest(f"round-{len(self.history) + 1}", LABELS)
            return
        assert state.round == m.number and state.dealer == m.dealer
        if isinstance(request, ShuffleRequest | ChanceRequest):
            return
        if isinstance(request, DealRequest):
            assert to_act == ()
            if m.due == ("tackle-deal", None):
                assert request == DealRequest(state.deck, tuple(range(52 - m.deck_left, 52 - m.deck_left + p)), None)
            return
        kind, seat = m.due
        assert seat is not None
        assert to_act == (seat,), (m.due, to_act)
        assert state.excursion == m.excursion
        views = [RULES.view(state, s, known[s]) for s in range(p)]
        for s in range(p):
            assert RULES.reveal_due(state, s) == (kind == "turn" and s == seat)
            if s != seat:
                assert RULES.legal_actions(state, s, known[s]) == ()
            view = views[s]
            assert view.hand_sizes == tuple(m.hands)
            assert [list(pond) for pond in view.ponds] == m.ponds
            assert view.scores == tuple(sum(h[t] for h in self.history) + m.points()[t] for t in range(p))
            assert view.chooser == m.order[(m.excursion - 1) % p]
        legal = RULES.legal_actions(state, seat, known[seat])
        if kind == "choose":
            assert list(legal) == [kingfish.ChoosePond(k) for k in range(3) if m.ponds[k]]
            assert len(legal) > 1
        elif kind in ("line", "bait"):
            assert len(legal) == m.hands[seat] == len(views[seat].hand)
            assert {a.position for a in legal if isinstance(a, kingfish.PlayLine | kingfish.PlayBait)} == set(
                state.hands[seat]
            )
        elif kind == "turn":
            (reveal,) = legal
            assert isinstance(reveal, RevealCard) and reveal.position == state.baits[seat]
        elif kind == "catch":
            assert list(legal) == [kingfish.Catch(fish) for fish in m.options(seat)]
            assert views[seat].catchable == tuple(m.options(seat))
        else:
            assert list(legal) == [kingfish.Keep(card) for card in m.tackle]
        # every position of the round deck is in exactly one place
        where = place_of(state)
        assert sorted(where) == list(range(52))
        assert sum(1 for place in where.values() if place == "caught") == sum(len(c) for c in m.caught)
        # no view shows a card another seat holds face down
        texts = [repr(view) for view in views]
        for other in range(p):
            hidden = [
                str(known[other][card_name(state.deck, position)])
                for position in (*state.hands[other], state.baits[other])
                if position is not None and state.shown[position] is None
            ]
            for s, text in enumerate(texts):
                for label in hidden:
                    assert (f"'{label}'" in text) == (s == other), (s, other, label)

    # --- moves outside the legal set ---

    def probe(self, state: State, seat: int, known: Any) -> None:
        p = self.players
        deck = state.deck
        labels = {}
        for position in range(52):
            label = state.shown[position]
            for s in range(p):
                label = label or known[s].get(card_name(deck, position))
            labels[position] = str(label or self.rng.choice(LABELS))
        positions = [*self.rng.sample(range(52), 8), -1, 52]
        probes: list[Action] = [kingfish.ChoosePond(k) for k in (-1, 0, 1, 2, 3)]
        for position in positions:
            label = labels.get(position, "AS")
            probes += [
                kingfish.PlayLine(deck, position, label),
                kingfish.PlayBait(position),
                RevealCard(deck, position, label),
            ]
        probes += [kingfish.Catch(label) for label in self.rng.sample(LABELS, 6)]
        probes += [kingfish.Catch(str(state.shown[q])) for pond in state.ponds for q in pond]
        probes += [kingfish.Keep(label) for label in self.rng.sample(LABELS, 4)]
        probes += [kingfish.Keep(str(state.shown[q])) for q in state.tackle]
        probes += [Chance((0,)), kingfish.PlayLine("round-0", state.hands[seat][0] if state.hands[seat] else 0, "AS")]
        legal = set(RULES.legal_actions(state, seat, known[seat]))
        frozen = snapshot(state)
        for actor in (seat, (seat + 1 + self.rng.randrange(p - 1)) % p):
            for action in probes:
                try:
                    RULES.apply(state, actor, action)
                except IllegalAction as error:
                    assert error.seat == actor
                    assert actor != seat or action not in legal, action
                else:
                    assert actor == seat and action in legal, (actor, action)
                assert state == frozen


class EagerBot:
    """Fishes hard, so that ponds run dry: the longest line, a bait of the suit with most fish in the
    pond; otherwise random."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    def choose(self, view: Any, legal: Sequence[Action]) -> Action:
        if isinstance(legal[0], kingfish.PlayLine):
            return max(legal, key=lambda a: rank_of(a.label) if isinstance(a, kingfish.PlayLine) else 0)
        if isinstance(legal[0], kingfish.PlayBait) and view.pond is not None:
            suits = [fish[-1] for fish in view.ponds[view.pond]]
            labels = dict(view.hand)
            return max(
                legal, key=lambda a: suits.count(labels[a.position][-1]) if isinstance(a, kingfish.PlayBait) else 0
            )
        return legal[self.rng.randrange(len(legal))]


@st.composite
def games(draw: st.DrawFn) -> tuple[int, dict[str, str], int, tuple[bool, ...]]:
    players = draw(st.sampled_from([2, 3, 4, 5]))
    start = draw(st.sampled_from(["random", *map(str, range(players))]))
    eager = tuple(draw(st.lists(st.booleans(), min_size=players, max_size=players)))
    return players, {"start": start}, draw(st.integers(0, 2**32 - 1)), eager


def make_bots(rng: random.Random, eager: tuple[bool, ...]) -> list[Player]:
    return [(EagerBot if e else RandomBot)(random.Random(rng.getrandbits(32))) for e in eager]


def run(
    players: int, options: dict[str, str], seed: int, eager: tuple[bool, ...], probe_every: int
) -> tuple[Checker, Any, State]:
    rng = random.Random(seed)
    bots = make_bots(rng, eager)
    checker = Checker(players, random.Random(seed + 1), probe_every)
    outcome, final = play_game(RULES, players, options, bots, rng, on_step=checker)
    return checker, outcome, final


@SETTINGS
@given(games(), st.integers(0, 3))
def test_random_games_follow_the_rules_and_keep_every_invariant(
    game: tuple[int, dict[str, str], int, tuple[bool, ...]], probe_every: int
) -> None:
    players, options, seed, eager = game
    checker, outcome, final = run(players, options, seed, eager, probe_every)
    assert final.phase == OVER
    assert checker.model is None
    assert len(checker.history) == players == len(final.history)
    assert checker.first is not None
    if options["start"] != "random":
        assert checker.first == int(options["start"])
    assert checker.dealers == [(checker.first + r) % players for r in range(players)]
    totals = tuple(sum(h[s] for h in checker.history) for s in range(players))
    assert outcome.scores == totals
    assert outcome.winners == tuple(s for s in range(players) if totals[s] == max(totals))
    assert RULES.outcome(final) == outcome
    for end in checker.ends:
        event(f"{players} players: a round ended by {end}")
    if players >= 4:
        assert "hands" not in checker.ends  # 4 or 5 hands outrun the deck first
    if players <= 3:
        assert "deck short" not in checker.ends
    event("tied lines" if checker.ties else "no tied lines")
    event("catch decisions" if checker.decisions else "no catch decisions")
    event("shared win" if len(outcome.winners) > 1 else "single winner")
