"""Each game's determinizer (games/<game>/sampler.py): a sampled world shows the seat exactly the view it was
sampled from (a Kuna Yala seat's own colour aside) and offers it the same legal actions, never copies another
seat's secret, and deals the table's own mix of cards."""

import random
from collections import Counter
from collections.abc import Callable
from typing import Any

import pytest

from p2pfish.games.fishfish.rules import BREDOUILLE, PRISE, View, peche_purpose
from p2pfish.games.fishfish.sampler import sample
from p2pfish.games.fishnstones.rules import ITEMS as FNS_ITEMS
from p2pfish.games.kunayala.rules import deck_labels
from p2pfish.games.registry import GAME_IDS, game_of, make_bot
from p2pfish.selfplay import Step, play_game

Check = Callable[[Any, int, Any, list[Any], Callable[[Any, random.Random], Any]], None]
"""Told the state, a seat to act, its view, its legal actions and its determinizer there."""


def at_each_decision(game_id: str, players: int, options: dict[str, str], rng: random.Random, check: Check) -> int:
    """Plays a game of greedy bots, calling `check` at each decision of each seat before the end; how many."""
    game = game_of(game_id)
    rules, sampler = game.rules, game.sampler()
    checked = 0

    def step_check(step: Step) -> None:
        nonlocal checked
        state = step.after
        if rules.outcome(state) is not None or rules.chance(state) is not None:
            return
        for seat in rules.to_act(state):
            known = step.known[seat]
            legal = list(rules.legal_actions(state, seat, known))
            if legal:
                view = rules.view(state, seat, known)
                draw = sampler.sample if sampler.prepare is None else sampler.prepare(view, bots[seat])
                check(state, seat, view, legal, draw)
                checked += 1

    bots = [make_bot("greedy", game_id, random.Random(seat)) for seat in range(players)]
    play_game(rules, players, options, bots, rng, on_step=step_check)
    return checked


@pytest.mark.parametrize("players", [2, 3])
@pytest.mark.parametrize("game_id", list(GAME_IDS))
def test_a_sampled_world_shows_the_seat_its_own_view(game_id: str, players: int) -> None:
    rules = game_of(game_id).rules
    rng = random.Random(f"{game_id}/{players}")

    def check(state: Any, seat: int, view: Any, legal: list[Any], draw: Any) -> None:
        for _ in range(3):
            world = draw(view, rng)
            shown = rules.view(world.state, seat, world.known[seat])
            assert shown == same_but_the_own_colour(view, shown)
            if len(legal) > 1:  # a forced move is never searched (a King Fish bait keeps no real position)
                assert list(rules.legal_actions(world.state, seat, world.known[seat])) == legal

    assert at_each_decision(game_id, players, {}, rng, check) > 7


def same_but_the_own_colour(view: Any, shown: Any) -> Any:
    """`view`, with the own colour the world gave the seat: a Kuna Yala turn is played as a colour that is the
    seat's own only at the disguise's chance, so its worlds give the seat each colour as likely its own."""
    if not hasattr(view, "my_colour"):
        return view
    assert shown.my_colour not in [c for s, c in enumerate(view.colours) if s != view.seat]
    return view._replace(my_colour=shown.my_colour)


def test_a_fish_draws_the_card_under_the_line_by_its_reading_of_the_fisherman() -> None:
    """The prepared Fish Fish sampler of a Fish: a Prise under the current line as often as the chance given."""
    game = game_of("fishfish")
    found: list[tuple[View, str]] = []

    def keep(step: Step) -> None:
        state = step.after
        if found or rules.outcome(state) is not None or rules.chance(state) is not None:
            return
        seat = rules.to_act(state)[0]
        view = rules.view(state, seat, step.known[seat])
        line = view.lines[-1] if view.lines else None
        if seat != view.fisherman and line is not None and line.committed and line.peche is None:
            found.append((view, peche_purpose(view.round, len(view.lines))))

    rules = game.rules
    bots = [make_bot("greedy", "fishfish", random.Random(seat)) for seat in range(3)]
    play_game(rules, 3, {}, bots, random.Random(4), on_step=keep)
    view, purpose = found[0]
    rng = random.Random(1)
    for chance, kind in ((1.0, PRISE), (0.0, BREDOUILLE)):
        drawn = [sample(view, rng, prise_chance=chance).known[view.fisherman][purpose] for _ in range(20)]
        assert drawn == [kind] * 20
    even = [sample(view, rng, prise_chance=0.5).known[view.fisherman][purpose] for _ in range(400)]
    assert 150 < even.count(PRISE) < 250


def fishnstones_cards(state: Any) -> Counter[str]:
    counts: Counter[str] = Counter(card for stack in state.pond for card in stack)
    for bucket in (*state.buckets, state.pile):
        counts.update({item: n for item, n in zip(FNS_ITEMS, bucket, strict=True)})
    return +counts


def kunayala_cards(state: Any) -> Counter[str]:
    counts = Counter(card for school in state.schools for cell in school for card in cell.pile)
    counts.update(label for label in (*state.unseen, *state.face_up, *state.discards, state.octopus) if label)
    return counts


TABLE_MIXES: dict[str, tuple[dict[str, str], Callable[[Any], Counter[str]], Callable[[Any], Counter[str]]]] = {
    "fishnstones": (
        {"pond": "fish:10,stone:17,water:9"},
        lambda options: Counter(dict(zip(FNS_ITEMS, options.mix, strict=True))),
        fishnstones_cards,
    ),
    "kunayala": (
        {"octopuses": "3", "sharks": "12", "singles": "2", "coral": "26"},
        lambda options: Counter(deck_labels(options)),
        kunayala_cards,
    ),
}


@pytest.mark.parametrize("game_id", list(TABLE_MIXES))
def test_a_sampled_world_holds_the_tables_own_mix_not_the_default(game_id: str) -> None:
    """A table that changed the mix (`--option`): every sampled world deals exactly that mix's cards."""
    raw, mix_of, cards_of = TABLE_MIXES[game_id]
    rng = random.Random(game_id)

    def check(state: Any, seat: int, view: Any, legal: list[Any], draw: Any) -> None:
        assert view.options == state.options != type(state.options)()
        world = draw(view, rng)
        assert world.state.options == state.options
        assert cards_of(world.state) == cards_of(state) == mix_of(state.options)

    assert at_each_decision(game_id, 3, raw, rng, check) > 20
