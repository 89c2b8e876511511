"""Property tests for the Fish'n'Stones rules: random legal games with random choices.

Every game is driven only through the engine contract: chance requests answered with random draws,
secret casts kept in the seat's own knowledge and logged as commitments, and every other move picked
from `legal_actions`. The checks are computed independently of the engine where they can be.
"""

import contextlib
import hashlib
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from campaign import examples, pick
from conformance_helpers import applied_purely, snapshot, start_options
from hypothesis import event, given
from hypothesis import strategies as st

from p2pfish.core.actions import Action, Chance, Commit, Reveal, SecretChoice
from p2pfish.core.errors import IllegalAction
from p2pfish.games.fishnstones.rules import OVER, RULES, SPOT_BY_NAME, Bait, Cast, Fish, NoBait, State, cat_purpose

ITEMS = ("fish", "stone", "water")
SETTINGS = examples(25)

# Independent geometry: spot name -> (x, y), shores clockwise from the south, columns from the own left.
XY = {name: ("abc".index(name[0]), int(name[1]) - 1) for name in SPOT_BY_NAME}
SPOT_XY = {SPOT_BY_NAME[name]: xy for name, xy in XY.items()}
SHORES = {2: "SN", 3: "SWN", 4: "SWNE"}


def column_of(shore: str, column: int) -> set[int]:
    k = column - 1
    # S and N look along the x axis (N from the other side), W and E along y (E from the south).
    axis, index = {"S": (0, k), "N": (0, 2 - k), "W": (1, 2 - k), "E": (1, k)}[shore]
    return {spot for spot, xy in SPOT_XY.items() if xy[axis] == index}


def orthogonal(a: int, b: int) -> bool:
    (ax, ay), (bx, by) = SPOT_XY[a], SPOT_XY[b]
    return abs(ax - bx) + abs(ay - by) == 1


# --- random games --------------------------------------------------------------------------------


@dataclass
class Setup:
    players: int
    options: dict[str, str]
    mix: Counter[str]


@st.composite
def setups(draw: Any) -> Setup:
    players = draw(st.integers(2, 4))
    options = draw(start_options(players))
    mix = Counter({"fish": 18, "stone": 9, "water": 9})
    if draw(st.booleans()):
        fish = draw(st.integers(0, 36))
        stone = draw(st.integers(0, 36 - fish))
        mix = Counter({"fish": fish, "stone": stone, "water": 36 - fish - stone})
        options["pond"] = ",".join(f"{item}:{mix[item]}" for item in draw(st.permutations(ITEMS)))
    return Setup(players, options, mix)


@dataclass
class Game:
    setup: Setup
    state: State
    known: list[dict[str, int | str]]
    log: list[tuple[int | None, Action]] = field(default_factory=list)


StepHook = Callable[[Game, int | None, Action, State], None]
"""Called after each step with (game before the step, seat, action, state after)."""


def digest(seat: int, purpose: str) -> bytes:
    return hashlib.sha256(f"prop/{seat}/{purpose}".encode()).digest()


def choose(
    data: Any, game: Game, choose_bait: Callable[[Game, int], Action] | None = None
) -> tuple[int | None, Action]:
    state = game.state
    request = RULES.chance(state)
    if request is not None:
        if request.count == 1:
            return None, Chance((pick(data, request.pool),))
        pool = list(request.pool)
        drawn = [pool.pop(pick(data, range(len(pool)))) for _ in range(request.count)]
        return None, Chance(tuple(drawn))
    seat = pick(data, RULES.to_act(state))
    if choose_bait is not None and state.phase == "bait":
        return seat, choose_bait(game, seat)
    legal = RULES.legal_actions(state, seat, game.known[seat])
    assert legal, f"seat {seat} is to act in the {state.phase} phase but is offered nothing"
    return seat, pick(data, legal)


def loggable(game: Game, seat: int | None, action: Action) -> Action:
    """A secret choice goes into the seat's knowledge; the log gets its commitment."""
    if isinstance(action, SecretChoice):
        assert seat is not None
        game.known[seat][action.purpose] = action.value
        return Commit(action.purpose, digest(seat, action.purpose))
    return action


def play(
    data: Any,
    setup: Setup,
    on_step: StepHook | None = None,
    before_step: Callable[[Game], None] | None = None,
    **kwargs: Any,
) -> Game:
    game = Game(setup, RULES.new_game(setup.players, setup.options), [{} for _ in range(setup.players)])
    for _ in range(1000):
        if RULES.outcome(game.state) is not None:
            return game
        if before_step is not None:
            before_step(game)
        seat, choice = choose(data, game, **kwargs)
        before = Game(setup, game.state, [dict(k) for k in game.known])
        action = loggable(game, seat, choice)
        after = applied_purely(RULES, game.state, seat, action)
        if on_step is not None:
            on_step(before, seat, action, after)
        game.state = after
        game.log.append((seat, action))
    raise AssertionError("the game did not end")


def census(state: State) -> Counter[str]:
    total: Counter[str] = Counter(dict(zip(ITEMS, state.pile, strict=True)))
    for stack in state.pond:
        total.update(stack)
    for bucket in state.buckets:
        total.update(dict(zip(ITEMS, bucket, strict=True)))
    return +total


# --- properties ----------------------------------------------------------------------------------


@SETTINGS
@given(setup=setups(), data=st.data())
def test_cards_are_conserved_and_apply_never_mutates(setup: Setup, data: Any) -> None:
    snapshots: list[tuple[State, State]] = []
    assert census(RULES.new_game(setup.players, setup.options)) == +setup.mix

    def check(before: Game, seat: int | None, action: Action, after: State) -> None:
        # nothing created or lost: pile + every card in the pond + every bucket == the initial mix
        assert census(after) == +setup.mix
        assert sum(after.pile) + sum(len(s) for s in after.pond) + sum(map(sum, after.buckets)) == 36
        snapshots.append((before.state, snapshot(before.state)))

    game = play(data, setup, on_step=check)
    assert len(snapshots) == len(game.log)
    # No later step changed any earlier state object either.
    for state, copied in snapshots:
        assert state == copied


@SETTINGS
@given(setup=setups(), data=st.data())
def test_legal_actions_agree_with_apply(setup: Setup, data: Any) -> None:
    def check(before: Game, seat: int | None, action: Action, after: State) -> None:
        state = before.state
        to_act = RULES.to_act(state)
        for s in range(setup.players):
            legal = list(RULES.legal_actions(state, s, before.known[s]))
            if s not in to_act:
                assert legal == [], (state.phase, s)
                continue
            assert legal
            assert len(legal) == len(set(legal))
            for offered in legal:
                move = offered
                if isinstance(offered, Cast):
                    assert offered.purpose == cat_purpose(state.round)
                    assert offered.value in (1, 2, 3)
                    move = Commit(offered.purpose, digest(s, offered.purpose))
                RULES.apply(state, s, move)  # never raises for an offered action
        if state.phase == "bait":
            check_baits(before, to_act[0])
        if state.phase == "fish" and state.cats[to_act[0]] is not None:
            check_fishing(state, to_act[0])

    play(data, setup, on_step=check)


def check_baits(game: Game, seat: int) -> None:
    """apply() accepts a bait iff it is orthogonal with a non-empty source; legal_actions offers
    exactly those whose target lies in the seat's committed column, plus no bait."""
    state = game.state
    column = game.known[seat][cat_purpose(state.round)]
    assert isinstance(column, int)
    own = column_of(SHORES[state.players][seat], column)
    legal = set(RULES.legal_actions(state, seat, game.known[seat]))
    accepted = set()
    for target in range(9):
        for source in range(9):
            bait = Bait(target, source)
            try:
                after = RULES.apply(state, seat, bait)
            except IllegalAction as error:
                assert error.seat == seat
            else:
                accepted.add(bait)
                # the whole source stack lies on top of the target now, the source is empty
                assert after.pond[target] == state.pond[target] + state.pond[source]
                assert after.pond[source] == ()
                assert all(after.pond[i] == state.pond[i] for i in range(9) if i not in (target, source))
    assert accepted == {Bait(t, s) for t in range(9) for s in range(9) if orthogonal(t, s) and state.pond[s]}
    assert legal == {NoBait()} | {b for b in accepted if b.target in own}


def check_fishing(state: State, seat: int) -> None:
    """After the reveal, exactly the non-empty spots of the column may be fished, or nothing
    when the whole column is empty."""
    cat = state.cats[seat]
    assert cat is not None
    own = column_of(SHORES[state.players][seat], cat)
    full = {s for s in own if state.pond[s]}
    expected = {Fish(s) for s in full} or {Fish(None)}
    assert set(RULES.legal_actions(state, seat, {})) == expected
    for spot in (*range(9), None):
        try:
            after = RULES.apply(state, seat, Fish(spot))
        except IllegalAction as error:
            assert error.seat == seat
            assert Fish(spot) not in expected
        else:
            assert Fish(spot) in expected
            if spot is not None:
                gained = Counter(dict(zip(ITEMS, after.buckets[seat], strict=True)))
                gained.subtract(dict(zip(ITEMS, state.buckets[seat], strict=True)))
                assert +gained == Counter(state.pond[spot])  # the whole stack


def expected_winners(buckets: tuple[tuple[int, int, int], ...]) -> tuple[int, ...]:
    scores = [fish - stones for fish, stones, _ in buckets]
    best = max(scores)
    top = [seat for seat, score in enumerate(scores) if score == best]
    fewest = min(buckets[seat][1] for seat in top)
    return tuple(seat for seat in top if buckets[seat][1] == fewest)


@SETTINGS
@given(setup=setups(), data=st.data())
def test_every_game_ends_after_four_rounds_with_tie_broken_winners(setup: Setup, data: Any) -> None:
    fills: list[tuple[str, int]] = []
    starts: list[int] = []

    def record(before: Game, seat: int | None, action: Action, after: State) -> None:
        request = RULES.chance(before.state)
        if request is not None and request.purpose == "start":
            starts.append(after.start)
        elif request is not None:
            fills.append((request.purpose, before.state.start))

    game = play(data, setup, on_step=record)
    state = game.state
    n = setup.players
    first = int(setup.options["start"]) if "start" in setup.options else starts[0]
    assert len(starts) == (0 if "start" in setup.options else 1)
    assert fills == [(f"fill/{r}", (first + r - 1) % n) for r in range(1, 5)]
    assert state.phase == OVER
    assert state.pile == (0, 0, 0)
    actions = [a for _, a in game.log]
    assert sum(isinstance(a, Commit) for a in actions) == 4 * n
    assert sum(isinstance(a, (Bait, NoBait)) for a in actions) == 4 * n
    assert sum(isinstance(a, Reveal) for a in actions) == 4 * n
    assert sum(isinstance(a, Fish) for a in actions) == 4 * n
    outcome = RULES.outcome(state)
    assert outcome is not None
    assert outcome.scores == tuple(fish - stones for fish, stones, _ in state.buckets)
    assert outcome.winners == expected_winners(state.buckets)
    for w in outcome.winners:
        for other in range(n):
            assert outcome.scores[w] >= outcome.scores[other]
            if outcome.scores[w] == outcome.scores[other]:
                assert state.buckets[w][1] <= state.buckets[other][1]
    for seat in range(n):
        assert RULES.view(state, seat, game.known[seat]).buckets == state.buckets


def scrambled(state: State, seat: int) -> State:
    """The same public picture with every covered card and every other seat's bucket contents changed."""
    rotate = {"fish": "stone", "stone": "water", "water": "fish"}
    pond = tuple(tuple(rotate[c] for c in stack[:-1]) + stack[-1:] for stack in state.pond)
    buckets = tuple(b if s == seat or state.phase == OVER else (b[1], b[2], b[0]) for s, b in enumerate(state.buckets))
    return state._replace(pond=pond, buckets=buckets)


@SETTINGS
@given(setup=setups(), data=st.data())
def test_views_show_nothing_covered_nor_other_buckets_nor_other_cats(setup: Setup, data: Any) -> None:
    def check(before: Game, seat: int | None, action: Action, after: State) -> None:
        state = before.state
        for s in range(setup.players):
            view = RULES.view(state, s, before.known[s])
            assert view == RULES.view(scrambled(state, s), s, before.known[s])
            assert view.tops == tuple(stack[-1] if stack else None for stack in state.pond)
            assert view.heights == tuple(len(stack) for stack in state.pond)
            assert view.my_bucket == state.buckets[s]
            assert view.bucket_sizes == tuple(map(sum, state.buckets))
            secret = before.known[s].get(cat_purpose(state.round))
            if state.phase != OVER:
                assert view.my_cat == secret
                assert view.buckets is None
            # Only revealed cats are public: other seats' unopened cats never show.
            for other in range(setup.players):
                if other != s and state.cats[other] is None:
                    assert view.cats[other] is None

    play(data, setup, on_step=check)


@SETTINGS
@given(setup=setups(), data=st.data())
def test_a_bait_outside_the_column_is_caught_exactly_at_its_reveal(setup: Setup, data: Any) -> None:
    """Seats may bait anywhere the table allows; at its reveal a seat is refused iff one of its
    baits of this round targets a spot outside the revealed column."""

    def any_bait(game: Game, seat: int) -> Action:
        state = game.state
        options: list[Action] = [NoBait()]
        options += [Bait(t, s) for t in range(9) for s in range(9) if orthogonal(t, s) and state.pond[s]]
        chosen: Action = pick(data, options)
        return chosen

    class CheaterCaught(Exception):
        pass

    def before_reveal(game: Game) -> None:
        state = game.state
        if state.phase != "fish":
            return
        (seat,) = RULES.to_act(state)
        if state.cats[seat] is not None:
            return
        shore = SHORES[setup.players][seat]
        for column in (1, 2, 3):
            own = column_of(shore, column)
            cheated = any(b == seat and t not in own for b, t, _ in state.baits)
            before = snapshot(state)
            try:
                RULES.apply(state, seat, Reveal(cat_purpose(state.round), column))
            except IllegalAction as error:
                assert cheated
                assert error.seat == seat
                assert state == before
            else:
                assert not cheated
        committed = game.known[seat][cat_purpose(state.round)]
        assert isinstance(committed, int)
        if any(b == seat and t not in column_of(shore, committed) for b, t, _ in state.baits):
            event("a cheater was caught at the reveal")
            raise CheaterCaught  # the honest reveal of this seat's cat would now be refused

    with contextlib.suppress(CheaterCaught):
        play(data, setup, before_step=before_reveal, choose_bait=any_bait)
