"""The join code's alphabet and how a fresh code is drawn: light enough (the standard library alone) for
`p2pfish play` to draw its code before it loads the lobby, so that its bots can start at once (playstart.py).
The lobby (lobby.py) reads, normalises and keys codes."""

import secrets

CODE_ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"
CODE_LENGTH = 6


def new_join_code() -> str:
    return "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))
