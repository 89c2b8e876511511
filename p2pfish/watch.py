"""Watch one game played by bots, narrated in words, with the pond drawn after each fill.

This is `p2pfish play` until the terminal UI and networked play exist.
"""

import random

from p2pfish.bots import make_bot
from p2pfish.core.actions import Chance, Reveal, SecretChoice
from p2pfish.core.errors import MalformedInput
from p2pfish.games import get_rules
from p2pfish.games.fishnstones import RULES
from p2pfish.selfplay import Step, play_game
from p2pfish.ui.fishnstones_text import render_pond, render_scores


def watch_game(game_id: str, bots: int, seed: int | None) -> int:
    rules = get_rules(game_id)
    if rules is not RULES:
        raise MalformedInput(f"{rules.title} cannot be played yet (try fishnstones)")
    players = bots + 1
    if not rules.min_players <= players <= rules.max_players:
        raise MalformedInput(f"{rules.title} needs {rules.min_players - 1}-{rules.max_players - 1} bots, not {bots}")
    seed = random.SystemRandom().randrange(2**32) if seed is None else seed
    rng = random.Random(seed)
    kinds = ["greedy"] + ["greedy" if seat % 2 else "random" for seat in range(1, players)]
    names = tuple(f"{kind} bot {seat}" for seat, kind in enumerate(kinds))
    seats = [make_bot(kind, rules.id, random.Random(rng.getrandbits(64))) for kind in kinds]
    print(f"{rules.title}, {players} players, seed {seed}")

    def narrate(step: Step) -> None:
        before, after = step.before, step.after
        if step.seat is None:
            assert isinstance(step.action, Chance)
            if before.phase == "start":
                print(f"{names[int(step.action.values[0])]} starts.")
            else:
                print(f"\n— Round {after.round}: the pond is filled —")
                print(render_pond(rules.view(after, 0, {}), names))
            return
        who = f"{names[step.seat]} ({before.shores[step.seat]})"
        if isinstance(step.choice, SecretChoice):
            print(f"  {who} casts the cat face down.")
        elif isinstance(step.action, Reveal):
            print(f"  {who} reveals the cat in column {step.action.value}.")
        else:
            print(f"  {who}: {step.action}")

    outcome, final = play_game(rules, players, {}, seats, rng, on_step=narrate)
    print("\n— Final scores —")
    print(render_scores(rules.view(final, 0, {}), names))
    print("Winner: " + " and ".join(names[s] for s in outcome.winners))
    return 0
