"""Action values: immutable, with a wire form (a JSON object with a "t" tag) and a human form (str).

The core actions here are shared by every game: the answer to a chance request, a commitment to a
secret, and the reveal that opens it. Each game adds its own action classes beside these.

An action is a frozen dataclass with a `tag`: its wire form is the tag and its fields, written once here
(`Action.to_wire`); a class whose wire form differs (a spot's name, a digest in hex) writes its own.
"""

from collections.abc import Mapping
from dataclasses import Field, dataclass, fields
from enum import StrEnum
from typing import Any, ClassVar

from p2pfish.core.errors import MalformedInput
from p2pfish.core.text import shown_value
from p2pfish.core.wire import Json, Scalar, field, fields_to_wire, hex_bytes, int_field, scalar, str_field

DIGEST_BYTES = 32


class ActionKind(StrEnum):
    """The tags ("t") of the actions every game shares."""

    CHANCE = "chance"
    COMMIT = "commit"
    REVEAL = "reveal"
    SHUFFLED = "shuffled"
    DEALT = "dealt"
    REVEAL_CARD = "reveal-card"


class Action:
    """One move in the log. Subclasses are frozen dataclasses, so equal actions compare equal. A subclass names
    its wire tag (a member of its game's kind enum) and its words for people in its header:
    `class Catch(Action, tag=Kind.CATCH, said="caught {fish}")` (`said` is formatted with the fields; a class
    whose words need more writes its own __str__)."""

    tag: ClassVar[str]
    """The wire form's "t"."""
    said: ClassVar[str] = ""
    __dataclass_fields__: ClassVar[dict[str, Field[Any]]]

    def __init_subclass__(cls, *, tag: str | None = None, said: str | None = None, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if tag is not None:
            cls.tag = tag
        if said is not None:
            cls.said = said

    def __str__(self) -> str:
        return self.said.format_map({item.name: getattr(self, item.name) for item in fields(self)})

    def to_wire(self) -> dict[str, Json]:
        """{"t": tag} and every field by its name, a tuple as a list."""
        return {"t": self.tag, **fields_to_wire(self)}


@dataclass(frozen=True, slots=True)
class Chance(Action, tag=ActionKind.CHANCE):
    """The answer to a ChanceRequest: the values drawn, in draw order."""

    values: tuple[Scalar, ...]

    def __str__(self) -> str:
        return "drew " + ", ".join(str(v) for v in self.values)


@dataclass(frozen=True, slots=True)
class Commit(Action, tag=ActionKind.COMMIT, said="committed to {purpose}"):
    """A commitment to a secret: only its digest enters the shared state."""

    purpose: str
    digest: bytes

    def to_wire(self) -> dict[str, Json]:
        return {"t": self.tag, "purpose": self.purpose, "digest": self.digest.hex()}


@dataclass(frozen=True, slots=True)
class Reveal(Action, tag=ActionKind.REVEAL, said="revealed {purpose} = {value}"):
    """Opens the seat's commitment for `purpose`; the rules check the value here."""

    purpose: str
    value: Scalar


@dataclass(frozen=True, slots=True)
class SecretChoice(Action, said="secretly chose {purpose} = {value}"):
    """A choice a seat makes privately. It never goes on the wire: the driver keeps the value in
    the seat's own knowledge and logs a Commit for `purpose` instead."""

    purpose: str
    value: Scalar

    def to_wire(self) -> dict[str, Json]:
        raise TypeError("a secret choice is never sent; send its Commit")


def card_name(deck: str, position: int) -> str:
    """The name under which a seat knows the label of a card it was dealt."""
    return f"{deck}#{position}"


@dataclass(frozen=True, slots=True)
class Shuffled(Action, tag=ActionKind.SHUFFLED, said="shuffled {deck} ({size} cards)"):
    """The answer to a ShuffleRequest: a face-down deck of `size` cards now exists."""

    deck: str
    size: int


@dataclass(frozen=True, slots=True)
class Dealt(Action, tag=ActionKind.DEALT):
    """The answer to a DealRequest. `labels` is None for a private deal: only seat `to` learns them."""

    deck: str
    positions: tuple[int, ...]
    to: int | None
    labels: tuple[str, ...] | None

    def __str__(self) -> str:
        if self.labels is None:
            return f"dealt {len(self.positions)} card(s) of {self.deck} to seat {self.to}"
        return "turned up " + ", ".join(self.labels)


class RevealsCards(Action):
    """An action that turns up cards the acting seat holds face down; the message carries its keys."""

    def revealed_cards(self) -> tuple[tuple[str, int, str], ...]:
        """(deck, position, label) of every card this action turns up."""
        raise NotImplementedError


@dataclass(frozen=True, slots=True)
class TurnsUpCard(RevealsCards):
    """An action that turns up one card the seat holds face down, named by its deck, position and label."""

    deck: str
    position: int
    label: str

    def revealed_cards(self) -> tuple[tuple[str, int, str], ...]:
        return ((self.deck, self.position, self.label),)


@dataclass(frozen=True, slots=True)
class RevealCard(TurnsUpCard, tag=ActionKind.REVEAL_CARD, said="turned up {label}"):
    """Turn up one card the seat holds face down (a bait played earlier, say)."""


def checked_tag(wire: Mapping[str, Json], game: str, fields: Mapping[str, set[str]]) -> str:
    """The tag of a game's action, once its wire form holds exactly that action's fields."""
    tag = field(wire, "t")
    expected = fields.get(tag) if isinstance(tag, str) else None
    if expected is None or not isinstance(tag, str):
        raise MalformedInput(f"unknown {game} action {shown_value(tag)}")
    if set(wire) != expected:
        raise MalformedInput(f"a {tag} action has exactly the fields {sorted(expected)}, not {sorted(wire)}")
    return tag


def decode_core_action(wire: Mapping[str, Json]) -> Action | None:
    """Decode one of the shared actions, or None if the tag belongs to a game."""
    tag = field(wire, "t")
    if tag == ActionKind.CHANCE:
        values = field(wire, "values")
        if not isinstance(values, list):
            raise MalformedInput(f"chance values must be a list, not {shown_value(values)}")
        return Chance(tuple(scalar(v, "a chance value") for v in values))
    if tag == ActionKind.COMMIT:
        digest = hex_bytes(str_field(wire, "digest"), "a commit digest", DIGEST_BYTES)
        return Commit(str_field(wire, "purpose"), digest)
    if tag == ActionKind.REVEAL:
        return Reveal(str_field(wire, "purpose"), scalar(field(wire, "value"), "a revealed value"))
    if tag == ActionKind.REVEAL_CARD:
        return RevealCard(str_field(wire, "deck"), int_field(wire, "position"), str_field(wire, "label"))
    return None
