"""The registry of games, written out by hand: adding a game is a folder and one line here.

Each line names a game's id and its folder's package; the package (its rules, and its entry `GAME`) is imported
only when that game is first asked for, so a peer playing one game never loads the other games' code.
`games()` loads them all, for what goes over every game (the tools, the tests, a listing)."""

import importlib
import random
from typing import TYPE_CHECKING, Final

from p2pfish.bots import BOT_KINDS
from p2pfish.bots.disguise import Disguised
from p2pfish.bots.random_bot import RandomBot
from p2pfish.bots.search import DEFAULT_BUDGET, Budget, SearchBot
from p2pfish.core.errors import MalformedInput
from p2pfish.core.game import AnyRules
from p2pfish.core.player import Player
from p2pfish.core.text import shown_value
from p2pfish.games.game import Game

if TYPE_CHECKING:
    from p2pfish.ui.kit import GameUi

FOLDERS: Final[dict[str, str]] = {
    "fishnstones": "p2pfish.games.fishnstones",
    "kunayala": "p2pfish.games.kunayala",
    "fishfish": "p2pfish.games.fishfish",
    "kingfish": "p2pfish.games.kingfish",
}
"""Each game's id and the package of its folder, whose GAME is its entry (p2pfish/games/game.py)."""
GAME_IDS: Final = tuple(FOLDERS)


def game_of(game_id: str) -> Game:
    """The entry of `game_id`, its package imported on first use; MalformedInput for an unknown id."""
    folder = FOLDERS.get(game_id)
    if folder is None:
        raise MalformedInput(f"unknown game {shown_value(game_id)} (known: {', '.join(GAME_IDS)})")
    game: Game = importlib.import_module(folder).GAME
    return game


def games() -> tuple[Game, ...]:
    """Every game's entry, in registry order (each package imported)."""
    return tuple(game_of(game_id) for game_id in GAME_IDS)


def get_rules(game_id: str) -> AnyRules:
    return game_of(game_id).rules


def kit_for(game_id: str) -> "GameUi":
    return game_of(game_id).ui()


def make_bot(kind: str, game_id: str, rng: random.Random, *, budget: Budget = DEFAULT_BUDGET) -> Player:
    """A bot of `kind` for `game_id`, drawing its own random choices (if any) from `rng`; a search bot searches
    each move within `budget`. Where the game has a dealt secret that moves give away, the greedy and search bots
    are disguised (p2pfish/bots/disguise.py), the search bot but for a turn that surely ends the game, which it plays
    exactly for its true secret (its sampler's `last_turn`); a random bot's moves show nothing of it."""
    game = game_of(game_id)
    bot: Player
    last_turn = None
    if kind == "random":
        sampler = game.sampler()
        return RandomBot(rng, sampler.secret, sampler.hidden)
    if kind == "search":
        sampler = game.sampler()
        bot = SearchBot(game.rules, sampler, game.greedy, rng, budget)
        last_turn = sampler.last_turn
    elif kind == "greedy":
        bot = game.greedy(rng)
    else:
        raise MalformedInput(f"no {kind!r} bot for {game_id} (bots: {', '.join(BOT_KINDS)})")
    disguise = game.disguise()
    return bot if disguise is None else Disguised(bot, disguise, rng, last_turn)
