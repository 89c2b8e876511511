"""The search bot (bots/search.py): it plays only legal moves in every game, keeps to its budget, makes its
secret choices mixed, and a player picks it by its kind (`search`) or level (`hard`)."""

import dataclasses
import itertools
import random
from dataclasses import dataclass
from typing import Any, cast

import pytest

from p2pfish.bots import BOT_KINDS, LEVELS
from p2pfish.bots.search import Budget, PolicyMaker, Sampler, SearchBot, World
from p2pfish.cli import main
from p2pfish.core.actions import Action
from p2pfish.core.game import AnyRules, Outcome
from p2pfish.core.player import Player, PlaysBy
from p2pfish.games.registry import GAME_IDS, game_of, make_bot
from p2pfish.selfplay import play_game


class StopAtDecision(Exception):
    def __init__(self, view: Any, legal: list[Action]) -> None:
        self.view, self.legal = view, legal


class Stopper:
    """Plays greedy until its `after`-th decision with a choice, then stops the game with that decision."""

    def __init__(self, game_id: str, after: int) -> None:
        self._greedy = make_bot("greedy", game_id, random.Random(5))
        self._left = after

    def choose(self, view: Any, legal: list[Action]) -> Action:
        if len(legal) > 1:
            self._left -= 1
            if self._left < 0:
                raise StopAtDecision(view, legal)
        return self._greedy.choose(view, legal)


def a_decision(game_id: str, after: int = 3) -> StopAtDecision:
    game = game_of(game_id)
    bots = [Stopper(game_id, after), make_bot("greedy", game_id, random.Random(6))]
    with pytest.raises(StopAtDecision) as stopped:
        play_game(game.rules, 2, {}, bots, random.Random(7))
    return stopped.value


@pytest.mark.parametrize("game_id", list(GAME_IDS))
def test_the_search_bot_picks_a_legal_move_in_every_game(game_id: str) -> None:
    decision = a_decision(game_id)
    bot = make_bot("search", game_id, random.Random(1), budget=Budget(iterations=6))
    assert bot.choose(decision.view, decision.legal) in decision.legal


def test_the_search_bot_plays_a_whole_game() -> None:
    game = game_of("fishnstones")
    bots = [make_bot("search", game.id, random.Random(1), budget=Budget(iterations=8)), game.greedy(random.Random(2))]
    outcome, _ = play_game(game.rules, 2, {}, bots, random.Random(3))
    assert len(outcome.scores) == 2


def test_the_search_bot_keeps_to_its_time_budget() -> None:
    decision = a_decision("fishnstones", after=2)
    ticks = itertools.count()
    game = game_of("fishnstones")
    bot = SearchBot(
        game.rules, game.sampler(), game.greedy, random.Random(1), Budget(1000, seconds=3.0), clock=lambda: next(ticks)
    )
    bot.choose(decision.view, decision.legal)
    assert 1 <= bot.last_iterations <= 3


def test_the_search_bot_mixes_its_cat_column() -> None:
    """The first cast of a game, searched again and again: no column comes up more than 1/3 + the margin allows."""
    game = game_of("fishnstones")
    bots = [Stopper("fishnstones", 0), make_bot("greedy", "fishnstones", random.Random(6))]
    with pytest.raises(StopAtDecision) as stopped:
        play_game(game.rules, 2, {}, bots, random.Random(7))
    bot = make_bot("search", "fishnstones", random.Random(2), budget=Budget(iterations=6))
    chosen = [bot.choose(stopped.value.view, stopped.value.legal) for _ in range(60)]
    assert len(set(chosen)) == 3
    assert max(chosen.count(cast) for cast in set(chosen)) <= 60 * 0.383 + 12


def test_search_is_a_bot_kind_and_the_hard_level() -> None:
    assert "search" in BOT_KINDS
    assert LEVELS == {"easy": "random", "normal": "greedy", "hard": "search"}


def test_an_unknown_level_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        main(["watch", "fishnstones", "--level", "brutal"])
    assert exited.value.code == 2
    assert "brutal" in capsys.readouterr().err


@dataclass(frozen=True, slots=True)
class Pick(Action, tag="pick", said="picked {number}"):
    number: int


@dataclass(frozen=True)
class GuessState:
    secret: int
    """Seat 1's digit, 0..2: seat 0 never sees it."""
    picked: int | None = None


@dataclass(frozen=True)
class GuessView:
    seat: int


class Guess:
    """A toy game: seat 0 picks 0..3; a 3 always wins, a digit wins only if it is seat 1's secret."""

    def outcome(self, state: GuessState) -> Outcome | None:
        if state.picked is None:
            return None
        won = state.picked in (3, state.secret)
        return Outcome.highest_wins((1, 0) if won else (0, 1))

    def chance(self, state: GuessState) -> None:
        return None

    def to_act(self, state: GuessState) -> tuple[int, ...]:
        return (0,)

    def legal_actions(self, state: GuessState, seat: int, known: object) -> list[Action]:
        return [Pick(number) for number in range(4)]

    def view(self, state: GuessState, seat: int, known: object) -> GuessView:
        return GuessView(seat)

    def apply(self, state: GuessState, seat: int | None, action: Action) -> GuessState:
        assert isinstance(action, Pick)
        return dataclasses.replace(state, picked=action.number)


def guess_sample(view: Any, rng: random.Random) -> World:
    """Seat 1's secret drawn from seat 0's view alone: any digit."""
    return World(GuessState(rng.randrange(3)), [{}, {}])


def guess_bot(budget: Budget, policy: PolicyMaker) -> SearchBot:
    return SearchBot(cast(AnyRules, Guess()), Sampler(guess_sample), policy, random.Random(3), budget)


def picks_zero(rng: random.Random) -> Player:
    return PlaysBy(lambda view, legal: legal[0])


def test_the_search_bot_overrules_its_greedy_default_for_a_clearly_winning_move() -> None:
    bot = guess_bot(Budget(iterations=40), picks_zero)
    legal = Guess().legal_actions(GuessState(0), 0, {})
    assert bot.choose(GuessView(0), legal) == Pick(3)
    assert 40 <= bot.last_iterations < 40 + len(legal)


def test_the_search_bot_keeps_a_default_that_no_move_beats() -> None:
    """The default already the winning pick (a 3): no other pick overrules it, whatever the noise."""
    bot = guess_bot(Budget(iterations=40), lambda rng: PlaysBy(lambda view, legal: legal[3]))
    legal = Guess().legal_actions(GuessState(0), 0, {})
    assert all(bot.choose(GuessView(0), legal) == Pick(3) for _ in range(5))
