"""The JSON-compatible values that actions and views are encoded as, and strict readers for them."""

from collections.abc import Mapping
from dataclasses import Field, fields
from typing import Any, ClassVar, Protocol, TypeAlias

from p2pfish.core.errors import MalformedInput
from p2pfish.core.text import shown_value

Scalar: TypeAlias = int | str
Json: TypeAlias = bool | int | float | str | list["Json"] | dict[str, "Json"] | None


def field(wire: Mapping[str, Json], name: str) -> Json:
    try:
        return wire[name]
    except KeyError:
        raise MalformedInput(f"missing field {name!r} in {shown_value(dict(wire))}") from None


def int_field(wire: Mapping[str, Json], name: str) -> int:
    value = field(wire, name)
    if not isinstance(value, int) or isinstance(value, bool):
        raise MalformedInput(f"field {name!r} must be an integer, not {shown_value(value)}")
    return value


def str_field(wire: Mapping[str, Json], name: str) -> str:
    value = field(wire, name)
    if not isinstance(value, str):
        raise MalformedInput(f"field {name!r} must be a string, not {shown_value(value)}")
    return value


def scalar(value: Json, what: str) -> Scalar:
    if isinstance(value, str) or (isinstance(value, int) and not isinstance(value, bool)):
        return value
    raise MalformedInput(f"{what} must be an integer or a string, not {shown_value(value)}")


def as_object(wire: Json, what: str = "action") -> Mapping[str, Json]:
    if not isinstance(wire, dict):
        raise MalformedInput(f"{what} must be a JSON object, not {shown_value(wire)}")
    return wire


def hex_bytes(text: str, what: str, size: int | None = None) -> bytes:
    """Lower-case hex with no spaces (one spelling per value), of exactly `size` bytes when given."""
    try:
        value = bytes.fromhex(text)
    except ValueError:
        value = None
    if value is None or value.hex() != text:  # fromhex also takes upper case and spaces: one spelling only
        raise MalformedInput(f"{what} must be lower-case hex")
    if size is not None and len(value) != size:
        raise MalformedInput(f"{what} must be {size} bytes, not {len(value)}")
    return value


def as_list(value: Json, what: str) -> list[Json]:
    if not isinstance(value, list):
        raise MalformedInput(f"{what} must be a JSON list, not {shown_value(value)}")
    return value


class Dataclass(Protocol):
    __dataclass_fields__: ClassVar[dict[str, Field[Any]]]


def fields_to_wire(value: Dataclass) -> dict[str, Json]:
    """Every field of a dataclass whose values are JSON already, by its name (a tuple as a list)."""
    wire: dict[str, Json] = {}
    for item in fields(value):
        field_value = getattr(value, item.name)
        wire[item.name] = list(field_value) if isinstance(field_value, tuple) else field_value
    return wire
