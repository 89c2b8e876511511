"""The interface every player front end implements, human or bot."""

from collections.abc import Sequence
from typing import Any, Protocol

from p2pfish.core.actions import Action


class Bot(Protocol):
    def choose(self, view: Any, legal: Sequence[Action]) -> Action:
        """One of `legal`, chosen from what `view` shows."""
        ...
