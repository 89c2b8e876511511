"""The rules of each game, one module per game, and the registry of game ids."""

from p2pfish.core.errors import MalformedInput
from p2pfish.core.game import AnyRules
from p2pfish.core.text import shown_value
from p2pfish.games.fishfish import RULES as FISHFISH
from p2pfish.games.fishnstones import RULES as FISHNSTONES
from p2pfish.games.kingfish import RULES as KINGFISH
from p2pfish.games.kunayala import RULES as KUNAYALA

REGISTRY: dict[str, AnyRules] = {
    FISHNSTONES.id: FISHNSTONES,
    KUNAYALA.id: KUNAYALA,
    FISHFISH.id: FISHFISH,
    KINGFISH.id: KINGFISH,
}


def get_rules(game_id: str) -> AnyRules:
    try:
        return REGISTRY[game_id]
    except KeyError:
        known = ", ".join(sorted(REGISTRY))
        raise MalformedInput(f"unknown game {shown_value(game_id)} (known: {known})") from None
