"""The registry of games, written out by hand: adding a game is a folder and one line here."""

import random
from typing import TYPE_CHECKING, Final

from p2pfish.bots import BOT_KINDS
from p2pfish.bots.random_bot import RandomBot
from p2pfish.bots.search import DEFAULT_BUDGET, Budget, SearchBot
from p2pfish.core.errors import MalformedInput
from p2pfish.core.game import AnyRules
from p2pfish.core.player import Player
from p2pfish.core.text import shown_value
from p2pfish.games import fishfish, fishnstones, kingfish, kunayala
from p2pfish.games.game import Game

if TYPE_CHECKING:
    from p2pfish.ui.kit import GameUi

GAMES: Final[tuple[Game, ...]] = (
    fishnstones.GAME,
    kunayala.GAME,
    fishfish.GAME,
    kingfish.GAME,
)
BY_ID: Final[dict[str, Game]] = {game.id: game for game in GAMES}


def game_of(game_id: str) -> Game:
    try:
        return BY_ID[game_id]
    except KeyError:
        known = ", ".join(game.id for game in GAMES)
        raise MalformedInput(f"unknown game {shown_value(game_id)} (known: {known})") from None


def get_rules(game_id: str) -> AnyRules:
    return game_of(game_id).rules


def kit_for(game_id: str) -> "GameUi":
    return game_of(game_id).ui()


def make_bot(kind: str, game_id: str, rng: random.Random, *, budget: Budget = DEFAULT_BUDGET) -> Player:
    """A bot of `kind` for `game_id`, drawing its own random choices (if any) from `rng`; a search bot searches
    each move within `budget`."""
    game = game_of(game_id)
    if kind == "search":
        return SearchBot(game.rules, game.sampler(), game.greedy, rng, budget)
    if kind == "random":
        return RandomBot(rng)
    if kind == "greedy":
        return game.greedy(rng)
    raise MalformedInput(f"no {kind!r} bot for {game_id} (bots: {', '.join(BOT_KINDS)})")
