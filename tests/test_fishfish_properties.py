"""Property tests for the Fish Fish rules: random legal games of 2-8 players with random choices.

Games are driven only through the engine contract: the first Fisherman drawn from the requested pool,
secret Pêche cards kept in the Fisherman's own knowledge and logged as commitments, every other move
picked from `legal_actions`. The checks keep their own account of the tiles and points from the public
moves alone (a model independent of the engine), and probe every state with moves outside the legal set.
"""

import hashlib
import json
from collections import Counter
from dataclasses import dataclass, field

from campaign import examples
from conformance_helpers import snapshot
from hypothesis import event, given
from hypothesis import strategies as st

from p2pfish.core.actions import Action, Chance, Commit, Reveal, SecretChoice
from p2pfish.core.errors import IllegalAction
from p2pfish.core.game import ChanceRequest
from p2pfish.core.wire import Scalar
from p2pfish.games.fishfish.rules import BET, OVER, REVEAL, RULES, Bait, Bet, State

SETTINGS = examples(30)
P, B = "prise", "bredouille"
KINDS = (P, B)
DECK = {P: 2, B: 3}
BAIT_CARDS = (2, 3, 3, 4, 5)


def digest(purpose: str) -> bytes:
    return hashlib.sha256(purpose.encode()).digest()


@dataclass
class Model:
    """An independent account of one round, kept from the public moves."""

    players: int
    fisherman: int
    round: int
    hands: list[int] = field(default_factory=list)
    points: list[int] = field(default_factory=list)
    baits: list[int] = field(default_factory=lambda: list(BAIT_CARDS))
    bets: dict[int, int] = field(default_factory=dict)
    bait: int = 0
    prise_up: int = 0
    lines: int = 0
    bettors: list[int] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.hands = [0 if s == self.fisherman else 4 for s in range(self.players)]
        self.points = [0] * self.players

    def expected_order(self) -> list[int]:
        step = 1 if self.round % 2 else -1
        return [(self.fisherman + step * k) % self.players for k in range(1, self.players)]


def probes(state: State) -> list[Action]:
    """Moves to try in any state, legal or not."""
    purpose = state.purpose if state.lines else "peche/1/1"
    return [
        *(Bait(v) for v in (2, 3, 4, 5)),
        *(Bet(k) for k in range(5)),
        Commit(purpose, digest(purpose)),
        Commit("peche/9/9", digest("x")),
        *(Reveal(purpose, kind) for kind in (*KINDS, "carp", 7)),
        Reveal("peche/9/9", P),
        Chance((0,)),
    ]


def rules_cannot_refuse(state: State, seat: int, action: Action) -> bool:
    """A reveal of some Pêche kind by the Fisherman for the current line: only the commitment's opening
    (the session's job) can tell it from the secret; the rules refuse only what the counts rule out."""
    if not (isinstance(action, Reveal) and state.phase == REVEAL and seat == state.fisherman):
        return False
    if action.purpose != state.purpose or action.value not in KINDS:
        return False
    up = Counter(line.peche for line in state.lines)
    return up[action.value] < DECK[str(action.value)]


@st.composite
def games(draw: st.DrawFn) -> tuple[int, dict[str, str], list[int]]:
    players = draw(st.integers(2, 8))
    start = draw(st.sampled_from(["random", *map(str, range(players))]))
    return players, {"start": start}, draw(st.lists(st.integers(0, 1 << 16), min_size=400, max_size=400))


@SETTINGS
@given(games(), st.integers(0, 4))
def test_random_games_keep_every_invariant(game: tuple[int, dict[str, str], list[int]], probe_every: int) -> None:
    players, options, choices = game
    state = RULES.new_game(players, options)
    known: list[dict[str, Scalar]] = [{} for _ in range(players)]
    history: list[tuple[int, ...]] = []
    model: Model | None = None
    fishermen: list[int] = []
    revealed: set[str] = set()
    step = 0
    tiles = 4 * (players - 1)
    while RULES.outcome(state) is None:
        step += 1
        pick = choices[step % len(choices)] + step
        request = RULES.chance(state)
        if request is not None:
            assert request == ChanceRequest("start", tuple(range(players)), 1)
            state = RULES.apply(state, None, Chance((pick % players,)))
            continue
        if model is None or state.round != model.round:
            model = Model(players, state.fisherman, state.round)
            fishermen.append(state.fisherman)
        (seat,) = RULES.to_act(state)
        legal = list(RULES.legal_actions(state, seat, known[seat]))
        assert legal
        for other in range(players):
            if other != seat:
                assert RULES.legal_actions(state, other, known[other]) == ()
            # a view never shows the Fisherman's secrets to anyone else, whoever's knowledge it is handed
            if other != state.fisherman:
                view = RULES.view(state, other, known[state.fisherman])
                assert view.my_peche is None and view.my_cast is None
                assert view == RULES.view(state, other, {})
        logged = [Commit(a.purpose, digest(a.purpose)) if isinstance(a, SecretChoice) else a for a in legal]
        if step % 5 == probe_every:
            for action in probes(state):
                before = snapshot(state)
                try:
                    RULES.apply(state, seat, action)
                except IllegalAction as error:
                    assert error.seat == seat
                    assert action not in logged
                else:
                    assert action in logged or rules_cannot_refuse(state, seat, action), action
                assert state == before
            for other in range(players):
                if other != seat:
                    for action in logged:
                        refused = state
                        try:
                            RULES.apply(state, other, action)
                        except IllegalAction as error:
                            assert error.seat == other
                        else:
                            raise AssertionError(f"seat {other} played {action} out of turn")
                        assert refused == state
        choice = legal[pick % len(legal)]
        if state.phase == BET and pick % 3 == 0:
            choice = legal[0]  # bet nothing often, so that some Pêche cards stay closed
        action = choice
        if isinstance(choice, SecretChoice):
            assert choice.value in KINDS
            used = Counter(known[seat].get(f"peche/{state.round}/{n}") for n in range(1, state.line + 1))
            assert used[choice.value] < DECK[str(choice.value)], "the honest choice never exceeds the deck"
            known[seat][choice.purpose] = choice.value
            action = Commit(choice.purpose, digest(choice.purpose))
        else:
            assert RULES.decode_action(json.loads(json.dumps(action.to_wire()))) == action
        frozen = snapshot(state)
        phase, line_before = state.phase, state.line
        after = RULES.apply(state, seat, action)
        assert state == frozen, "apply must not change the state it is given"

        # --- the independent model ---
        if isinstance(action, Bait):
            model.baits.remove(action.value)
            model.bait, model.bets, model.bettors = action.value, {}, []
            model.lines += 1
            assert model.lines <= 5
        elif isinstance(action, Commit) and line_before == 5:
            model.bets = {s: h for s, h in enumerate(model.hands) if h}
            model.hands = [0] * players
        elif isinstance(action, Bet):
            assert phase == BET and line_before < 5
            assert model.hands[seat] > 0, "a Fish with no tile left is skipped"
            assert action.tiles <= model.hands[seat]
            model.bettors.append(seat)
            model.bets[seat] = action.tiles
            model.hands[seat] -= action.tiles
        elif isinstance(action, Reveal):
            assert sum(model.bets.values()) > 0, "a reveal only when tiles were bet"
            assert action.value == known[seat][action.purpose]
            revealed.add(action.purpose)
            if action.value == P:
                model.prise_up += 1
                model.points[model.fisherman] += 4 * sum(model.bets.values())
            else:
                for bettor, n in model.bets.items():
                    model.points[bettor] += n * model.bait
            if model.prise_up == 2:
                top = max(model.baits, default=0)
                for s in range(players):
                    model.points[s] += model.hands[s] * top
                model.hands = [0] * players
        if isinstance(action, Bet) and after.phase != BET:
            # the betting of a line: the expected order, less the Fish with nothing left in hand
            expected = model.expected_order()
            assert model.bettors == [s for s in expected if s in model.bettors]
            assert all(model.hands[s] == 0 for s in expected if s not in model.bettors)
        if after.phase == REVEAL:
            assert RULES.reveal_due(after, after.fisherman)
            assert sum(after.lines[-1].bets) > 0
        else:
            assert not any(RULES.reveal_due(after, s) for s in range(players))

        # --- tile conservation and round ends ---
        if len(after.history) == len(history):
            open_bets = sum(sum(line.bets) for line in after.lines if not line.checked)
            in_play = sum(after.hands) + sum(map(sum, after.butins)) + after.captured + open_bets
            assert in_play == tiles
            assert after.hands == tuple(model.hands)
        else:
            assert len(after.history) == len(history) + 1
            assert sum(model.hands) == 0 or model.prise_up == 2
            assert after.history[-1] == tuple(model.points)
            history.append(after.history[-1])
            model = None
        state = after

    rounds = 2 * players if players <= 3 else players
    assert len(history) == rounds
    assert fishermen == [(fishermen[0] + r) % players for r in range(rounds)]
    outcome = RULES.outcome(state)
    assert outcome is not None
    totals = tuple(sum(h[s] for h in history) for s in range(players))
    assert outcome.scores == totals
    assert outcome.winners == tuple(s for s in range(players) if totals[s] == max(totals))
    assert state.phase == OVER

    # --- the audit: honest openings pass; one changed value fails iff a round then holds too many ---
    opened = {(seat, purpose): known[seat][purpose] for _, seat, purpose in state.casts}
    RULES.audit(state, opened)
    index = choices[0] % len(state.casts)
    round_number, cheat, purpose = state.casts[index]
    new_value = KINDS[choices[1] % 2]
    forged = {**opened, (cheat, purpose): new_value}
    counts = Counter((r, forged[(s, p)]) for r, s, p in state.casts)
    over = sorted(r for (r, kind), n in counts.items() if n > DECK[str(kind)])
    event(f"{players} players")
    event("some Pêche card stayed closed" if len(state.casts) > len(revealed) else "every Pêche card revealed")
    event("forged audit fails" if over else "forged audit passes")
    if not over:
        RULES.audit(state, forged)
    else:
        try:
            RULES.audit(state, forged)
        except IllegalAction as error:
            assert error.seat == cheat == fishermen[round_number - 1]
            assert over == [round_number]
        else:
            raise AssertionError("the audit missed a round with too many cards of a kind")
