"""Text another peer supplied, made safe to show: every name, chat line and reason from the wire goes
through `printable` before a screen, a log line or `p2pfish verify` shows it.

A peer can put any Unicode in its name or its chat. Shown raw, an escape sequence erases lines, prints
a fake result or sets the terminal title, and a bidi override turns the text around it. `printable`
keeps letters, digits, punctuation, symbols (emoji included) and spaces, turns the line breaks and tabs
into spaces, and drops every other control and format character: C0 and C1 controls (ESC, BEL, DEL …),
bidi embeddings, overrides and isolates, zero-width characters, line and paragraph separators,
surrogates and unassigned code points. What is signed is never changed: only what is shown.
"""

import unicodedata

SPACED = frozenset("\t\n\r\v\f")
"""Controls that separate words: shown as one space rather than gluing the words together."""
DROPPED_CATEGORIES = frozenset({"Cc", "Cf", "Cs", "Cn", "Zl", "Zp"})
"""Control, format (bidi, zero-width), surrogate, unassigned, line and paragraph separator."""
CUT = "…"


def printable(text: str, limit: int | None = None) -> str:
    """`text` with nothing a terminal would obey, at most `limit` characters (a cut text ends in "…")."""
    shown = "".join(_shown(char) for char in text)
    if limit is not None and len(shown) > limit:
        return shown[: max(limit - 1, 0)] + CUT if limit > 0 else ""
    return shown


REPR_LIMIT = 200
"""The most characters of a peer's value an error reason quotes (`shown_value`)."""


def shown_value(value: object, limit: int = REPR_LIMIT) -> str:
    """repr(value) for an error reason, at most `limit` characters (a cut one ends in "…"): a reason that quoted a
    peer's value whole would be as long as its message (64 KiB), on every stop line and in every report."""
    try:
        text = repr(value)
    except RecursionError:
        text = f"<a {type(value).__name__} nested too deep to show>"
    return text if len(text) <= limit else text[: max(limit - 1, 0)] + CUT


def printable_lines(text: str, limit: int | None = None) -> str:
    """Several lines of text, each made printable (the line breaks between them are kept)."""
    return "\n".join(printable(line, limit) for line in text.split("\n"))


def _shown(char: str) -> str:
    if char in SPACED:
        return " "
    if unicodedata.category(char) in DROPPED_CATEGORIES:
        return ""
    return char
