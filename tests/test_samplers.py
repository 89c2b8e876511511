"""Each game's determinizer (games/<game>/sampler.py): a sampled world shows the seat exactly the view it was
sampled from and offers it the same legal actions, and never copies another seat's secret."""

import random

import pytest

from p2pfish.games.registry import GAME_IDS, game_of, make_bot
from p2pfish.selfplay import Step, play_game


@pytest.mark.parametrize("players", [2, 3])
@pytest.mark.parametrize("game_id", list(GAME_IDS))
def test_a_sampled_world_shows_the_seat_its_own_view(game_id: str, players: int) -> None:
    game = game_of(game_id)
    rules, sampler = game.rules, game.sampler()
    rng = random.Random(f"{game_id}/{players}")
    checked = 0

    def check(step: Step) -> None:
        nonlocal checked
        state = step.after
        if rules.outcome(state) is not None or rules.chance(state) is not None:
            return
        for seat in rules.to_act(state):
            known = step.known[seat]
            legal = list(rules.legal_actions(state, seat, known))
            if not legal:
                continue
            view = rules.view(state, seat, known)
            for _ in range(3):
                world = sampler.sample(view, rng)
                assert rules.view(world.state, seat, world.known[seat]) == view
                if len(legal) > 1:  # a forced move is never searched (a King Fish bait keeps no real position)
                    assert list(rules.legal_actions(world.state, seat, world.known[seat])) == legal
                checked += 1

    bots = [make_bot("greedy", game_id, random.Random(seat)) for seat in range(players)]
    play_game(rules, players, {}, bots, rng, on_step=check)
    assert checked > 20
