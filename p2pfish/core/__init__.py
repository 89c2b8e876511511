"""Types shared by every layer: errors, action values, the rules-engine contract."""

from p2pfish.core.actions import Action, Chance, Commit, Reveal, SecretChoice
from p2pfish.core.errors import IllegalAction, MalformedInput, P2pfishError, ProtocolViolation, UsageError
from p2pfish.core.game import AnyRules, ChanceRequest, GameRules, Known, Outcome, check_chance
from p2pfish.core.wire import Json, Scalar

__all__ = [
    "Action",
    "AnyRules",
    "Chance",
    "ChanceRequest",
    "Commit",
    "GameRules",
    "IllegalAction",
    "Json",
    "Known",
    "MalformedInput",
    "Outcome",
    "P2pfishError",
    "ProtocolViolation",
    "Reveal",
    "Scalar",
    "SecretChoice",
    "UsageError",
    "check_chance",
]
