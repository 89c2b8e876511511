"""Scenario tests for the Fish Fish rules (RULES.md §3, the French rulebook in seeds/003).

Scenarios fix the first Fisherman with the `start` option. A `Table` plays the Fisherman's secret Pêche
cards the way a driver does: the value goes into his own knowledge, a Commit (with a made-up digest)
into the log. Seats sit clockwise: the left of seat s is seat s+1.
"""

import hashlib
import json
import random
from collections.abc import Mapping
from typing import Any

import pytest
from conformance_helpers import illegal_checker

from p2pfish.bots.random_bot import RandomBot
from p2pfish.core.actions import Action, Chance, Commit, Reveal, SecretChoice
from p2pfish.core.errors import IllegalAction, MalformedInput
from p2pfish.core.game import ChanceRequest
from p2pfish.core.player import PlaysBy
from p2pfish.core.wire import Json, Scalar
from p2pfish.crypto.identity import Identity
from p2pfish.games.fishfish.rules import (
    BAIT,
    BET,
    CAST,
    OVER,
    REVEAL,
    RULES,
    Bait,
    Bet,
    Cast,
    State,
    View,
    peche_purpose,
)
from p2pfish.games.registry import get_rules
from p2pfish.selfplay import play_game
from p2pfish.session.audit import audit
from p2pfish.session.memory_table import MemoryTable
from p2pfish.session.session import Session
from p2pfish.session.setup import GameSetup

P, B = "prise", "bredouille"


# --- helpers -------------------------------------------------------------------------------------


def digest(purpose: str) -> bytes:
    return hashlib.sha256(purpose.encode()).digest()


class Table:
    """A rules-only table: the state, and what each seat knows of its own secrets."""

    def __init__(self, players: int, start: int = 0) -> None:
        self.state: State = RULES.new_game(players, {"start": str(start)})
        self.known: list[dict[str, Scalar]] = [{} for _ in range(players)]

    @property
    def fisherman(self) -> int:
        return self.state.fisherman

    def play(self, seat: int, action: Action) -> None:
        if isinstance(action, SecretChoice):
            self.known[seat][action.purpose] = action.value
            action = Commit(action.purpose, digest(action.purpose))
        self.state = RULES.apply(self.state, seat, action)

    def cast(self, bait: int, kind: str) -> str:
        """Bait and secret Pêche card of a new line (any kind: a cheater's commitment looks the same)."""
        self.play(self.fisherman, Bait(bait))
        purpose = self.state.purpose
        self.play(self.fisherman, Cast(purpose, kind))
        return purpose

    def bets(self, tiles: Mapping[int, int] | None = None) -> list[int]:
        """Every due bet (`tiles[seat]`, default 0) until the betting ends; returns the bettors in order."""
        order = []
        while self.state.phase == BET:
            (seat,) = RULES.to_act(self.state)
            order.append(seat)
            self.play(seat, Bet((tiles or {}).get(seat, 0)))
        return order

    def reveal(self) -> None:
        seat = self.fisherman
        assert RULES.reveal_due(self.state, seat)
        (action,) = RULES.legal_actions(self.state, seat, self.known[seat])
        self.play(seat, action)

    def line(self, bait: int, kind: str, tiles: Mapping[int, int] | None = None) -> list[int]:
        """A whole line: cast, bets, and the reveal when one is due."""
        self.cast(bait, kind)
        order = self.bets(tiles)
        if self.state.phase == REVEAL:
            self.reveal()
        return order

    def view(self, seat: int) -> View:
        return RULES.view(self.state, seat, self.known[seat])


expect_illegal = illegal_checker(RULES)


def tiles_in_play(state: State) -> int:
    open_bets = sum(sum(line.bets) for line in state.lines if not line.checked)
    return sum(state.hands) + sum(sum(b) for b in state.butins) + state.captured + open_bets


def opened_values(table: Table) -> dict[tuple[int, str], Scalar]:
    """What the session's end turn hands to audit: every commitment of the game with its value."""
    return {(seat, purpose): table.known[seat][purpose] for _, seat, purpose in table.state.casts}


# --- setup ---------------------------------------------------------------------------------------


def test_first_fisherman_is_drawn_by_joint_randomness_by_default() -> None:
    for options in ({}, {"start": "random"}):
        state = RULES.new_game(5, options)
        assert RULES.chance(state) == ChanceRequest("start", (0, 1, 2, 3, 4), 1)
        assert RULES.to_act(state) == ()
        expect_illegal(state, 0, Bait(5))
        expect_illegal(state, None, Chance((5,)))
        expect_illegal(state, None, Chance((1, 2)))
        drawn = RULES.apply(state, None, Chance((3,)))
        assert RULES.chance(drawn) is None
        assert (drawn.phase, drawn.fisherman, drawn.first) == (BAIT, 3, 3)
        expect_illegal(drawn, None, Chance((3,)))


def test_start_option_skips_the_draw_and_deals_the_round() -> None:
    state = RULES.new_game(4, {"start": "2"})
    assert RULES.chance(state) is None
    assert (state.phase, state.round, state.fisherman) == (BAIT, 1, 2)
    assert state.hands == (4, 4, 0, 4)
    assert state.baits == (2, 3, 3, 4, 5)
    assert state.butins == ((0, 0, 0, 0),) * 4
    assert RULES.to_act(state) == (2,)


# --- a line --------------------------------------------------------------------------------------


def test_bait_is_public_and_chosen_from_the_remaining_bait_cards() -> None:
    t = Table(3)
    assert RULES.legal_actions(t.state, 0, t.known[0]) == (Bait(2), Bait(3), Bait(4), Bait(5))
    assert RULES.legal_actions(t.state, 1, t.known[1]) == ()
    t.line(3, B, {1: 1})
    t.line(3, B, {1: 1})
    assert t.state.baits == (2, 4, 5)
    assert RULES.legal_actions(t.state, 0, t.known[0]) == (Bait(2), Bait(4), Bait(5))
    error = expect_illegal(t.state, 0, Bait(3))
    assert "no bait card 3" in error.reason
    t.play(0, Bait(5))
    assert t.view(2).lines[-1].bait == 5
    assert t.state.phase == CAST


def test_cast_is_a_secret_choice_of_the_pecheur_cards_still_held() -> None:
    t = Table(3)
    t.play(0, Bait(2))
    purpose = peche_purpose(1, 1)
    assert purpose == "peche/1/1"
    assert RULES.legal_actions(t.state, 0, t.known[0]) == (Cast(purpose, P), Cast(purpose, B))
    assert RULES.legal_actions(t.state, 1, t.known[1]) == ()
    t.play(0, Cast(purpose, P))
    t.bets()  # nobody bets: the Prise stays closed
    t.line(3, P, {1: 1})
    t.play(0, Bait(4))
    # two Prise used (one closed, one revealed): only Bredouille is left in the honest choice
    assert RULES.legal_actions(t.state, 0, t.known[0]) == (Cast("peche/1/3", B),)
    assert t.view(0).my_peche == (B, B, B)


def test_cast_offers_only_prise_once_three_bredouille_are_used() -> None:
    t = Table(4)
    for bait in (2, 3, 3):
        t.line(bait, B)  # nobody bets
    t.play(0, Bait(4))
    assert RULES.legal_actions(t.state, 0, t.known[0]) == (Cast("peche/1/4", P),)


def test_commitment_must_be_for_the_current_line() -> None:
    t = Table(3)
    t.play(0, Bait(2))
    for purpose in ("peche/1/2", "peche/2/1", "cat/1"):
        expect_illegal(t.state, 0, Commit(purpose, digest(purpose)))
    expect_illegal(t.state, 0, Bet(0))
    expect_illegal(t.state, 1, Commit("peche/1/1", digest("x")))
    error = expect_illegal(t.state, 0, Cast("peche/1/1", P))
    assert "secret choice" in error.reason


def test_fish_bet_once_each_in_order_and_only_tiles_they_hold() -> None:
    t = Table(4, start=1)
    t.cast(2, B)
    assert t.state.phase == BET
    assert RULES.to_act(t.state) == (2,)
    assert RULES.legal_actions(t.state, 2, t.known[2]) == tuple(Bet(k) for k in range(5))
    assert RULES.legal_actions(t.state, 3, t.known[3]) == ()
    expect_illegal(t.state, 3, Bet(1))  # out of turn
    expect_illegal(t.state, 1, Bet(1))  # the Fisherman does not bet
    expect_illegal(t.state, 2, Bet(5))
    expect_illegal(t.state, 2, Bait(3))
    t.play(2, Bet(3))
    assert t.state.hands == (4, 0, 1, 4)
    assert RULES.to_act(t.state) == (3,)
    expect_illegal(t.state, 2, Bet(1))  # a second bet on the same line
    t.play(3, Bet(0))
    t.play(0, Bet(4))
    assert t.state.phase == REVEAL
    assert t.state.lines[-1].bets == (4, 0, 3, 0)
    t.reveal()
    t.play(1, Bait(3))
    t.play(1, Cast(t.state.purpose, B))
    assert RULES.legal_actions(t.state, 2, t.known[2]) == (Bet(0), Bet(1))
    expect_illegal(t.state, 2, Bet(2))


def test_a_fish_with_no_tile_left_is_skipped_in_the_betting_order() -> None:
    t = Table(4)
    assert t.line(2, B, {1: 4, 2: 1}) == [1, 2, 3]
    assert t.line(3, B, {2: 1}) == [2, 3]
    assert t.state.hands == (0, 0, 2, 4)


def test_betting_direction_reverses_each_round() -> None:
    t = Table(4, start=1)
    seen = []
    for _ in range(4):
        fisherman = t.fisherman
        seen.append((t.state.round, fisherman, tuple(t.line(2, B, dict.fromkeys(range(4), 4)))))
    assert seen == [
        (1, 1, (2, 3, 0)),  # from the Fisherman's left, clockwise
        (2, 2, (1, 0, 3)),  # from his right, anticlockwise
        (3, 3, (0, 1, 2)),
        (4, 0, (3, 2, 1)),
    ]
    assert t.state.phase == OVER


def test_rulebook_example_two_fish_eat_a_bredouille_bait_of_3() -> None:
    """Louisa (0) fishes; Ninon (1) and Mickael (2) bet one tile each, Arthur (3) none: Bredouille, bait 3."""
    t = Table(4)
    t.cast(3, B)
    t.bets({1: 1, 2: 1})
    assert RULES.reveal_due(t.state, 0)
    assert not RULES.reveal_due(t.state, 1)
    assert RULES.legal_actions(t.state, 0, t.known[0]) == (Reveal("peche/1/1", B),)
    t.reveal()
    assert t.state.lines[-1].peche == B
    assert t.state.butins == ((0, 0, 0, 0), (0, 1, 0, 0), (0, 1, 0, 0), (0, 0, 0, 0))
    assert t.state.hands == (0, 3, 3, 4)
    assert t.state.captured == 0
    assert t.state.phase == BAIT


def test_rulebook_scoring_example_one_tile_at_3_and_two_at_2_score_7() -> None:
    t = Table(4)
    t.line(3, B, {1: 1, 2: 4, 3: 4})
    t.line(2, B, {1: 2})
    t.line(5, P, {1: 1})  # Ninon's last tile is caught; every tile is bet: the round ends
    assert t.state.round == 2
    (scores,) = t.state.history
    assert scores == (4 * 1, 1 * 3 + 2 * 2, 4 * 3, 4 * 3)
    assert scores[1] == 7


def test_prise_gives_the_fisherman_every_bet_tile() -> None:
    t = Table(3)
    t.line(4, P, {1: 2, 2: 3})
    assert t.state.captured == 5
    assert t.state.butins == ((0, 0, 0, 0),) * 3
    assert t.state.hands == (0, 2, 1)
    assert t.view(1).round_scores == (20, 0, 0)


def test_a_line_nobody_bets_on_reveals_nothing_and_the_commitment_stays_closed() -> None:
    t = Table(4)
    purpose = t.cast(5, P)
    t.bets()
    assert t.state.phase == BAIT
    assert not RULES.reveal_due(t.state, 0)
    line = t.state.lines[0]
    assert (line.peche, line.committed, line.checked, sum(line.bets)) == (None, True, True, 0)
    assert t.state.casts == ((1, 0, purpose),)
    expect_illegal(t.state, 0, Reveal(purpose, P))  # no reveal now, nor later
    for seat in (1, 2, 3):
        view = t.view(seat)
        assert view.lines[0].peche is None
        assert view.my_cast is None and view.my_peche is None
    assert t.state.baits == (2, 3, 3, 4)
    assert t.state.hands == (0, 4, 4, 4)


def test_both_prise_revealed_end_the_round_and_the_rest_goes_to_the_highest_bait_held() -> None:
    t = Table(3)
    t.line(5, P, {1: 1})
    t.line(2, B, {2: 2})
    t.line(4, P, {1: 1, 2: 1})
    # the Fisherman still holds baits 3 and 3: every tile still in hand goes to slot 3
    assert t.state.round == 2 and t.state.fisherman == 1
    (scores,) = t.state.history
    assert scores == (4 * 3, 2 * 3, 2 * 2 + 1 * 3)
    assert t.state.hands == (4, 0, 4)


def test_both_prise_with_bait_5_still_held_send_the_rest_to_slot_5() -> None:
    t = Table(2)
    t.line(2, P, {1: 1})
    t.line(3, P, {1: 1})
    assert t.state.history == ((8, 2 * 5),)


def test_a_closed_prise_does_not_end_the_round() -> None:
    t = Table(3)
    t.line(5, P)  # nobody bets: not revealed
    t.line(2, P, {1: 1})
    assert t.state.round == 1 and t.state.phase == BAIT
    t.play(0, Bait(3))
    assert RULES.legal_actions(t.state, 0, t.known[0]) == (Cast("peche/1/3", B),)


def test_on_the_fifth_line_every_fish_bets_all_remaining_tiles() -> None:
    t = Table(4)
    t.line(2, B, {1: 1})
    t.line(3, B)
    t.line(3, P, {2: 2})
    t.line(4, B, {1: 1, 3: 3})
    assert t.state.hands == (0, 2, 2, 1)
    t.play(0, Bait(5))
    t.play(0, Cast("peche/1/5", P))
    # no Bet actions: the all-in bets are placed at once and the reveal is due
    assert t.state.phase == REVEAL
    assert RULES.to_act(t.state) == (0,)
    assert t.state.lines[-1].bets == (0, 2, 2, 1)
    assert t.state.hands == (0, 0, 0, 0)
    t.reveal()
    (scores,) = t.state.history
    assert scores == (4 * (2 + 5), 2 + 4, 0, 3 * 4)


def test_round_ends_once_every_tile_is_bet() -> None:
    t = Table(3)
    t.line(2, B, {1: 4, 2: 2})
    assert t.state.round == 1
    t.line(5, B, {2: 2})
    assert t.state.history == ((0, 8, 4 + 10),)
    assert t.state.round == 2


def full_line_round(t: Table) -> None:
    """A one-line round: everyone bets every tile on bait 5, a Prise."""
    t.line(5, P, dict.fromkeys(range(t.state.players), 4))


@pytest.mark.parametrize(("players", "rounds"), [(2, 4), (3, 6), (4, 4), (8, 8)])
def test_fisherman_rotates_left_and_the_number_of_rounds(players: int, rounds: int) -> None:
    start = players - 1
    t = Table(players, start=start)
    fishermen = []
    while t.state.phase != OVER:
        fishermen.append(t.fisherman)
        full_line_round(t)
    assert fishermen == [(start + r) % players for r in range(rounds)]
    assert len(t.state.history) == rounds
    assert RULES.view(t.state, 0, {}).rounds == rounds
    outcome = RULES.outcome(t.state)
    assert outcome is not None
    times = rounds // players
    expected = 4 * 4 * (players - 1) * times
    assert outcome.scores == (expected,) * players
    assert outcome.winners == tuple(range(players))


def test_two_players_have_one_fish_player() -> None:
    t = Table(2, start=1)
    assert t.state.hands == (4, 0)
    assert t.line(3, B, {0: 1}) == [0]
    assert t.line(2, B, {0: 1}) == [0]


def test_scores_add_up_over_rounds_and_the_highest_total_wins() -> None:
    t = Table(2)
    t.line(5, B, {1: 4})  # round 1: seat 1 eats bait 5 with all four tiles
    t.line(5, P, {0: 4})  # round 2: seat 1 catches everything
    t.line(2, P, {1: 4})  # round 3: seat 0 catches everything
    t.line(4, B, {0: 4})  # round 4: seat 0 eats bait 4
    assert t.state.history == ((0, 20), (0, 16), (16, 0), (16, 0))
    outcome = RULES.outcome(t.state)
    assert outcome is not None
    assert outcome.scores == (32, 36)
    assert outcome.winners == (1,)
    assert t.view(0).totals == (32, 36)


def test_tied_totals_share_the_victory() -> None:
    t = Table(3)
    for _ in range(6):
        t.line(2, B, dict.fromkeys(range(3), 4))
    outcome = RULES.outcome(t.state)
    assert outcome is not None
    assert outcome.scores == (32, 32, 32)
    assert outcome.winners == (0, 1, 2)
    assert RULES.to_act(t.state) == ()
    for seat in range(3):
        assert RULES.legal_actions(t.state, seat, t.known[seat]) == ()
    expect_illegal(t.state, 0, Bait(2))


def test_no_outcome_before_the_last_round_ends() -> None:
    t = Table(4)
    for _ in range(3):
        full_line_round(t)
    assert RULES.outcome(t.state) is None
    full_line_round(t)
    assert RULES.outcome(t.state) is not None


# --- cheating caught at reveal -------------------------------------------------------------------


def test_a_reveal_must_be_a_pecheur_card_for_the_current_line() -> None:
    t = Table(3)
    t.cast(3, "salmon")
    t.bets({1: 1})
    error = expect_illegal(t.state, 0, Reveal("peche/1/1", "salmon"))
    assert error.seat == 0
    expect_illegal(t.state, 0, Reveal("peche/1/1", 1))
    expect_illegal(t.state, 0, Reveal("peche/1/2", B))
    expect_illegal(t.state, 0, Bait(2))
    expect_illegal(t.state, 1, Reveal("peche/1/1", B))


def test_a_fourth_bredouille_revealed_in_a_round_is_illegal() -> None:
    t = Table(4)
    for bait in (2, 3, 3):
        t.line(bait, B, {1: 1})
    t.cast(4, B)  # a cheater's fourth Bredouille: the commitment itself cannot show it
    t.bets({2: 1})
    error = expect_illegal(t.state, 0, Reveal("peche/1/4", B))
    assert "fourth Bredouille in round 1" in error.reason
    assert RULES.apply(t.state, 0, Reveal("peche/1/4", P)).lines[-1].peche == P


def test_a_third_prise_revealed_in_a_round_is_illegal() -> None:
    """The second revealed Prise ends the round, so a third can only follow in a state where two are
    already face up: the check stands on its own all the same."""
    t = Table(3)
    t.line(2, P, {1: 1})
    t.cast(3, P)
    t.bets({2: 1})
    first, current = t.state.lines
    two_up = t.state._replace(lines=(first, first._replace(bait=4), current), baits=(3, 5))
    error = expect_illegal(two_up, 0, Reveal("peche/1/3", P))
    assert "third Prise in round 1" in error.reason
    assert RULES.apply(t.state, 0, Reveal("peche/1/2", P)).round == 2


# --- the audit at the end ------------------------------------------------------------------------


def honest_game(players: int, seed: int) -> Table:
    """A whole game of random legal moves (no bets on about half the lines, so some stay closed)."""
    rng = random.Random(seed)
    t = Table(players, start=0)
    while t.state.phase != OVER:
        seat = RULES.to_act(t.state)[0]
        legal = list(RULES.legal_actions(t.state, seat, t.known[seat]))
        action = Bet(0) if t.state.phase == BET and rng.random() < 0.5 else rng.choice(legal)
        t.play(seat, action)
    return t


@pytest.mark.parametrize(("players", "seed"), [(2, 1), (4, 2), (8, 3)])
def test_an_honest_game_passes_the_audit(players: int, seed: int) -> None:
    t = honest_game(players, seed)
    opened = opened_values(t)
    assert len(opened) == len(t.state.casts) >= 4
    RULES.audit(t.state, opened)


def test_audit_blames_a_third_prise_that_nobody_bet_on() -> None:
    """Round 2's Fisherman (seat 1) bluffs with a third Prise on a line nobody bets on: nothing shows
    during play; the audit, with every commitment open, names him."""
    t = Table(3)
    full_line_round(t)  # round 1, seat 0: honest
    assert t.fisherman == 1
    t.line(2, P)  # closed
    t.line(3, P, {2: 1})
    t.line(3, B)  # closed
    t.line(4, P)  # closed: the third Prise
    assert t.state.round == 2 and t.state.phase == BAIT
    t.line(5, B, {0: 4, 2: 4})  # the all-in line: bredouille
    while t.state.phase != OVER:
        full_line_round(t)
    opened = opened_values(t)
    assert opened[(1, "peche/2/4")] == P
    with pytest.raises(IllegalAction) as info:
        RULES.audit(t.state, opened)
    assert info.value.seat == 1
    assert "third Prise in round 2" in info.value.reason


def test_audit_blames_a_fourth_bredouille_and_a_value_that_is_no_pecheur_card() -> None:
    t = Table(2)
    while t.state.phase != OVER:
        full_line_round(t)
    opened = opened_values(t)
    RULES.audit(t.state, opened)
    t2 = Table(2, start=1)
    for bait in (2, 3, 3, 4):
        t2.line(bait, B)  # seat 1 commits four Bredouille, none revealed
    t2.line(5, P, {0: 4})
    while t2.state.phase != OVER:
        full_line_round(t2)
    with pytest.raises(IllegalAction) as info:
        RULES.audit(t2.state, opened_values(t2))
    assert info.value.seat == 1 and "fourth Bredouille in round 1" in info.value.reason
    bad = {**opened, (0, "peche/3/1"): "shark"}
    with pytest.raises(IllegalAction) as info:
        RULES.audit(t.state, bad)
    assert info.value.seat == 0 and "shark" in info.value.reason


def test_audit_checks_each_round_separately() -> None:
    """Two Prise in each of two rounds of the same Fisherman is fine: the cards come back every round."""
    t = Table(2)
    for _ in range(4):
        t.line(2, P)
        t.line(3, P, {1 - t.fisherman: 1})
        t.line(3, B, {1 - t.fisherman: 3})
    assert t.state.phase == OVER
    RULES.audit(t.state, opened_values(t))


def test_audit_refuses_a_commitment_that_was_never_opened() -> None:
    t = Table(2)
    while t.state.phase != OVER:
        full_line_round(t)
    opened = opened_values(t)
    del opened[(0, "peche/1/1")]
    with pytest.raises(IllegalAction) as info:
        RULES.audit(t.state, opened)
    assert info.value.seat == 0


# --- views ---------------------------------------------------------------------------------------


def test_only_the_fisherman_sees_his_pecheur_cards_and_the_current_secret() -> None:
    t = Table(4, start=2)
    t.line(3, P)  # closed
    t.cast(4, B)
    fisher = t.view(2)
    assert fisher.my_cast == B
    assert fisher.my_peche == (P, B, B)
    assert fisher.peche_count == 3
    for seat in (0, 1, 3):
        view = t.view(seat)
        assert view.my_cast is None and view.my_peche is None
        assert view.peche_count == 3
        # even handed the Fisherman's knowledge, a Fish player's view shows none of it
        assert RULES.view(t.state, seat, t.known[2]) == view
        text = json.dumps(view.to_wire())
        assert P not in text and B not in text


def test_the_state_holds_no_secret_value() -> None:
    """Two games alike but for the Fisherman's closed cards reach the same state."""
    a, b = Table(3), Table(3)
    a.line(2, P)
    b.line(2, B)
    a.line(3, B, {1: 1})
    b.line(3, B, {1: 1})
    assert a.state == b.state
    assert a.known[0] != b.known[0]


def test_view_shows_lines_hands_butins_order_and_scores() -> None:
    t = Table(4, start=1)
    t.line(3, B, {2: 1, 0: 2})
    t.cast(5, P)
    t.play(2, Bet(3))
    view = t.view(3)
    assert view.fisherman == 1 and view.round == 1 and view.rounds == 4
    assert view.order == (2, 3, 0) and view.clockwise
    assert view.bettor == 3 and view.to_act == (3,)
    assert view.baits == (2, 3, 4)
    assert [(ln.bait, ln.bets, ln.peche) for ln in view.lines] == [(3, (2, 0, 1, 0), B), (5, (0, 0, 3, 0), None)]
    assert view.hands == (2, 0, 0, 4)
    assert view.butins[0] == (0, 2, 0, 0) and view.butins[2] == (0, 1, 0, 0)
    assert view.round_scores == (6, 0, 3, 0)
    assert view.totals == (0, 0, 0, 0)
    wire = view.to_wire()
    assert json.loads(json.dumps(wire)) == wire


# --- wire forms ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "action",
    [Bait(2), Bait(5), Bet(0), Bet(4), Commit("peche/1/1", bytes(32)), Reveal("peche/2/3", P), Chance((3,))],
)
def test_wire_round_trip(action: Action) -> None:
    wire = action.to_wire()
    assert RULES.decode_action(json.loads(json.dumps(wire))) == action
    assert str(action)


def test_wire_forms() -> None:
    assert Bait(3).to_wire() == {"t": "bait", "value": 3}
    assert Bet(2).to_wire() == {"t": "bet", "tiles": 2}
    with pytest.raises(TypeError):
        Cast("peche/1/1", P).to_wire()


@pytest.mark.parametrize(
    "wire",
    [
        None,
        [],
        {},
        {"t": "fish"},
        {"t": "bait"},
        {"t": "bait", "value": 1},
        {"t": "bait", "value": 6},
        {"t": "bait", "value": "3"},
        {"t": "bait", "value": True},
        {"t": "bait", "value": 3, "peche": "prise"},
        {"t": "bet", "tiles": -1},
        {"t": "bet", "tiles": 5},
        {"t": "bet", "tiles": 1.0},
        {"t": "bet", "tiles": 1, "seat": 2},
        {"t": "bet"},
        {"t": 3},
    ],
)
def test_malformed_wire_forms(wire: Any) -> None:
    with pytest.raises(MalformedInput):
        RULES.decode_action(wire)


# --- whole games ---------------------------------------------------------------------------------


def test_replaying_the_log_gives_the_same_game() -> None:
    rng = random.Random(4)
    log: list[tuple[int | None, Action]] = []

    def hook(step: Any) -> None:
        log.append((step.seat, step.action))

    outcome, final = play_game(RULES, 5, {}, [RandomBot(random.Random(i)) for i in range(5)], rng, on_step=hook)
    state = RULES.new_game(5, {})
    for seat, action in log:
        state = RULES.apply(state, seat, RULES.decode_action(json.loads(json.dumps(action.to_wire()))))
    assert state == final
    assert RULES.outcome(state) == outcome


@pytest.mark.parametrize("players", range(2, 9))
def test_random_self_play_ends_with_an_outcome(players: int) -> None:
    rng = random.Random(players)
    bots = [RandomBot(random.Random(players * 10 + seat)) for seat in range(players)]

    def hook(step: Any) -> None:
        assert tiles_in_play(step.after) == 4 * (players - 1) or step.after.phase == "start"

    for _ in range(3):
        outcome, final = play_game(RULES, players, {}, bots, rng, on_step=hook)
        assert final.phase == OVER
        assert len(outcome.scores) == players and outcome.winners
        assert all(outcome.scores[w] == max(outcome.scores) for w in outcome.winners)
        assert len(final.history) == (2 * players if players <= 3 else players)


# --- through the real session --------------------------------------------------------------------


class RecordingTable(MemoryTable):
    """A MemoryTable that keeps what each seat received."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.received: list[list[bytes]] = [[] for _ in self.sessions]

    def deliver(self, to: int, raw: bytes, via: int | None) -> None:
        self.received[to].append(raw)
        super().deliver(to, raw, via)


def test_a_game_through_the_session_keeps_closed_pecheur_cards_secret_and_audits_clean() -> None:
    players = 4
    signers = [Identity.from_seed(bytes([seat + 1]) * 32) for seat in range(players)]
    setup = GameSetup.create(
        RULES.id, {}, tuple(s.public_bytes for s in signers), tuple(f"p{s}" for s in range(players))
    )
    rng = random.Random(7)

    def chooser(view: Any, legal: list[Action]) -> Action:
        if isinstance(legal[0], Bet) and rng.random() < 0.6:
            return legal[0]  # often no bet, so that some Pêche cards stay closed
        return rng.choice(legal)

    table = RecordingTable(
        setup, signers, [PlaysBy(chooser)] * players, rules=RULES, rng=random.Random(3), duplicate=0.05
    )
    views: list[list[View]] = [[] for _ in range(players)]
    table.start()
    while table.step():
        for session in table.sessions:
            if not session.finished and RULES.outcome(session.state) is None:
                assert session.seat is not None
                views[session.seat].append(session.view())
    sessions: list[Session] = table.sessions
    assert all(s.finished and s.fault is None for s in sessions), [s.fault for s in sessions]
    outcomes = {str(s.outcome()) for s in sessions}
    assert len(outcomes) == 1
    result = audit(sessions[0].transcript(), sessions[0].rules)
    assert result.verified and str(result.outcome) in outcomes

    log = sessions[0].log
    committed = {(e.seat, e.action.purpose) for e in log if isinstance(e.action, Commit) and e.seat is not None}
    revealed = {(e.seat, e.action.purpose) for e in log if isinstance(e.action, Reveal) and e.seat is not None}
    closed = committed - revealed
    assert closed, "the game should leave some Pêche card closed"
    assert committed == set(sessions[0].opened)
    for owner, purpose in closed:
        value = sessions[0].opened[(owner, purpose)]
        assert value in (P, B)
        round_number, line = (int(n) for n in purpose.split("/")[1:])
        for seat in range(players):
            if seat == owner:
                continue
            assert purpose not in sessions[seat].known()
            for view in views[seat]:
                assert view.my_cast is None or view.fisherman == seat
                if view.fisherman != seat:
                    assert view.my_peche is None
                if view.round == round_number and len(view.lines) >= line:
                    assert view.lines[line - 1].peche is None
            for raw in table.received[seat]:
                body: dict[str, Json] = json.loads(raw)["body"]
                if purpose not in json.dumps(body) or body.get("type") == "end":
                    continue
                action = body.get("action")
                assert body.get("type") == "act" and "nonce" not in body, body
                assert isinstance(action, dict) and set(action) == {"t", "purpose", "digest"}, body
                assert action["t"] == "commit"


def test_through_the_session_a_closed_third_prise_is_blamed_at_the_end() -> None:
    """Seat 0 commits five Prise in round 1 behind lines nobody bets on (the 5th, all-in, shows one
    Prise: no fault yet). Once every commitment is open, every peer and an offline audit blame seat 0."""
    players = 3
    signers = [Identity.from_seed(bytes([seat + 11]) * 32) for seat in range(players)]
    roster = tuple(s.public_bytes for s in signers)
    setup = GameSetup.create(RULES.id, {"start": "0"}, roster, tuple(f"p{s}" for s in range(players)))
    rng = random.Random(2)

    def chooser(view: Any, legal: list[Action]) -> Action:
        if isinstance(legal[0], Bet) and view.round == 1:
            return legal[0]
        return rng.choice(legal)

    table = MemoryTable(
        setup, signers, [None, PlaysBy(chooser), PlaysBy(chooser)], rng=random.Random(8), rules=get_rules(setup.game)
    )
    cheater = table.sessions[0]
    table.start()
    for _ in range(100_000):
        decision = cheater.decision()
        if decision is not None:
            legal = decision[1]
            if isinstance(legal[0], Cast) and cheater.state.round == 1:
                cheater._act_now(Cast(legal[0].purpose, P))
                cheater._advance()
            else:
                cheater.act(rng.choice(legal))
            table.collect(cheater)
        elif not table.step():
            break
    assert [p for r, s, p in table.sessions[1].state.casts if r == 1] == [f"peche/1/{n}" for n in range(1, 6)]
    for session in table.sessions:
        assert not session.finished
        assert session.fault is not None
        assert (session.fault.seat, session.fault.kind) == (0, "illegal"), session.fault
        assert "third Prise in round 1" in session.fault.reason
    result = audit(table.sessions[1].transcript(), table.sessions[1].rules)
    assert not result.verified
    assert result.fault is not None and result.fault.seat == 0
