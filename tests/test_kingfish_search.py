"""The King Fish search bot's parts: the fast playout plays a round exactly as the rules engine does, and a bait's
search covers every suit the seat could hide."""

import random
from typing import Any

from p2pfish.bots.search import World, play, play_out, round_horizon
from p2pfish.core.player import decision_for
from p2pfish.games.kingfish.greedy import GreedyKingFish
from p2pfish.games.kingfish.playout import fast_play_out
from p2pfish.games.kingfish.rules import RULES, PlayBait, State, suit
from p2pfish.games.kingfish.sampler import CANDIDATES, SAMPLER, sample
from p2pfish.selfplay import Step, play_game

Decision = tuple[State, int, dict[str, Any]]


def decisions(players: int, seed: int) -> list[Decision]:
    """Every decision with a choice in one game of greedy bots: the state, the seat and what it knows."""
    found: list[Decision] = []

    def grab(step: Step) -> None:
        seat = step.seat
        if seat is not None and len(RULES.legal_actions(step.before, seat, step.known[seat])) > 1:
            found.append((step.before, seat, dict(step.known[seat])))

    bots = [GreedyKingFish(random.Random(seed * 10 + s)) for s in range(players)]
    play_game(RULES, players, {}, bots, random.Random(seed), on_step=grab)
    return found


def copy_world(world: World) -> World:
    return World(world.state, [dict(k) for k in world.known], {d: list(c) for d, c in world.decks.items()})


def test_the_fast_playout_plays_the_round_exactly_as_the_rules_engine_does() -> None:
    """From the same sampled world, after the same first action, with the same seeds: the same end of round."""
    checked = 0
    for players, seed in ((2, 1), (4, 3)):
        for index, (state, seat, known) in enumerate(decisions(players, seed)[::2]):
            view, legal = decision_for(RULES, state, seat, known)
            rng = random.Random(index)
            world = sample(view, rng)
            action = legal[rng.randrange(len(legal))]
            results = []
            for run in (play_out, fast_play_out):
                playout_world = copy_world(world)
                play(RULES, playout_world, seat, action)
                seeds = random.Random(index)
                bots = [GreedyKingFish(random.Random(seeds.getrandbits(64))) for _ in range(players)]
                results.append(run(RULES, playout_world, bots, seeds, horizon=round_horizon, root=state))
            assert results[0] == results[1], (players, seed, index, state.phase)
            checked += 1
    assert checked > 30


def test_a_baits_search_covers_every_suit_the_seat_could_hide() -> None:
    """The prior puts the greedy's best card of each suit first, and CANDIDATES of them cover every suit held."""
    assert SAMPLER.prior is not None and SAMPLER.candidates == CANDIDATES >= 4
    seen = 0
    for state, seat, known in decisions(2, 4) + decisions(3, 5):
        view, legal = decision_for(RULES, state, seat, known)
        if not isinstance(legal[0], PlayBait):
            continue
        prior = SAMPLER.prior(view, legal)
        hand = dict(view.hand)
        suits = [suit(hand[action.position]) for action in legal if isinstance(action, PlayBait)]
        searched = sorted(range(len(legal)), key=lambda i: prior[i], reverse=True)[:CANDIDATES]
        assert {suits[i] for i in searched} == set(suits)
        seen += 1
    assert seen > 5
