"""How much a seat may chat: a length limit per chat and a budget counted over the seat's own chain.

The budget is a token bucket that every honest peer fills and spends identically, because it reads
nothing but the author's signed chain in `seq` order (no clock, no arrival order, no other seat's
messages): it starts at CHAT_BURST chats; each of the author's turn messages (an `act`, `rand-*`,
`deck-*`, `card-keys` or `end`) adds CHAT_REFILL, up to CHAT_BURST; each chat spends one. A chat sent
with the bucket empty, or longer than MAX_CHAT_CHARS, is malformed, blamed on its author.

So a seat can send at most CHAT_BURST chats between two of its own turn messages, and at most
CHAT_BURST + CHAT_REFILL x (its turn messages) in a game: a person typing never meets the limit, and a
flood is caught by its chat number CHAT_BURST + 1 at the latest, on every peer alike.
"""

from p2pfish.core.errors import MalformedInput
from p2pfish.core.wire import Json
from p2pfish.session.bodies import CHAT, MAX_CHAT_CHARS, TURN_KINDS

CHAT_BURST = 40
CHAT_REFILL = 20


class ChatBudget:
    """One author's chat budget, fed every message of its chain in `seq` order."""

    def __init__(self) -> None:
        self.tokens = CHAT_BURST

    def count(self, kind: str) -> bool:
        """Count one message of the author's chain; False when it is a chat over the budget."""
        if kind in TURN_KINDS:
            self.tokens = min(CHAT_BURST, self.tokens + CHAT_REFILL)
        elif kind == CHAT:
            if self.tokens < 1:
                return False
            self.tokens -= 1
        return True

    def can_chat(self) -> bool:
        return self.tokens >= 1


def read_chat(body: dict[str, Json]) -> str:
    """The text of a chat body. Raises MalformedInput if it is missing, not a string or too long."""
    text = body.get("text")
    if not isinstance(text, str):
        raise MalformedInput("a chat without text")
    if len(text) > MAX_CHAT_CHARS:
        raise MalformedInput(f"a chat of {len(text)} characters is over the {MAX_CHAT_CHARS}-character limit")
    return text


def over_budget_reason() -> str:
    return f"sent more than {CHAT_BURST} chats between two of its own turn messages (chat flood)"
