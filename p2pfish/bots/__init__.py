"""Bot strategies. A bot is a front end: it sees one seat's view and its legal actions, nothing else."""

import random
from collections.abc import Callable

from p2pfish.bots.base import Bot
from p2pfish.bots.fishfish_greedy import GreedyFishFish
from p2pfish.bots.fishnstones_greedy import GreedyFishNStones
from p2pfish.bots.kingfish_greedy import GreedyKingFish
from p2pfish.bots.kunayala_greedy import GreedyKunaYala
from p2pfish.bots.random_bot import RandomBot
from p2pfish.core.errors import MalformedInput

BOT_KINDS = ("random", "greedy")

_GREEDY: dict[str, Callable[[random.Random], Bot]] = {
    "fishfish": GreedyFishFish,
    "fishnstones": GreedyFishNStones,
    "kingfish": GreedyKingFish,
    "kunayala": GreedyKunaYala,
}


def make_bot(kind: str, game_id: str, rng: random.Random) -> Bot:
    """A bot of `kind` for `game_id`, drawing its own random choices (if any) from `rng`."""
    if kind == "random":
        return RandomBot(rng)
    if kind == "greedy" and game_id in _GREEDY:
        return _GREEDY[game_id](rng)
    raise MalformedInput(f"no {kind!r} bot for {game_id} (bots: {', '.join(BOT_KINDS)})")


__all__ = ["BOT_KINDS", "Bot", "make_bot"]
