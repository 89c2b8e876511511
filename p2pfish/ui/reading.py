"""Small pieces shared by the games' typed commands: the words of a command and the numbers in it."""

import re

NOTE = re.compile(r"\([^)]*\)")
"""A note in parentheses in a line of the move list, like "(face down)"."""
NUMBER = re.compile(r"[+-]?\d{1,9}")
"""A number a player may type (a longer run of digits is no move, and int() would refuse it)."""
NO_COMMAND = "type a command, or pick a move with the arrow keys and Enter"
"""The answer to an empty command."""
PUNCTUATION_TO_SPACES = str.maketrans(dict.fromkeys("(),:;.!?", " "))


def command_words(text: str) -> list[str]:
    """The words of a command, without its notes in parentheses (a line of the move list typed back
    reads as its move) and punctuation."""
    return NOTE.sub(" ", text).translate(PUNCTUATION_TO_SPACES).split()
