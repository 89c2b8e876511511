"""The canonical encoding that every p2pfish hash covers.

A message is a sequence of fields; each field is its bytes prefixed by their length as a 4-byte
big-endian unsigned integer, so fields that concatenate to the same bytes still encode differently.
The first field of every hashed message is a domain tag such as b"p2pfish/commit/v1", so a digest made
for one purpose can never be replayed as another.
"""

import hashlib

from p2pfish.core.errors import MalformedInput
from p2pfish.core.text import shown_value
from p2pfish.core.wire import Scalar

MAX_FIELD_BYTES = 2**32 - 1
INT_SCALAR_TYPE = b"i"
STR_SCALAR_TYPE = b"s"


def length_prefixed(*fields: bytes) -> bytes:
    """Concatenate `fields`, each preceded by its length as a u32 (big-endian)."""
    parts: list[bytes] = []
    for value in fields:
        if len(value) > MAX_FIELD_BYTES:
            raise MalformedInput(f"a field of {len(value)} bytes is too long to encode")
        parts.append(len(value).to_bytes(4, "big"))
        parts.append(value)
    return b"".join(parts)


def tagged_hash(tag: bytes, *fields: bytes) -> bytes:
    """SHA-256 of length_prefixed(tag, *fields): the only way p2pfish hashes structured data."""
    return hashlib.sha256(length_prefixed(tag, *fields)).digest()


def encode_u32(value: int) -> bytes:
    """An unsigned integer below 2**32 as 4 big-endian bytes."""
    return _unsigned(value, 4)


def encode_u64(value: int) -> bytes:
    """An unsigned integer below 2**64 as 8 big-endian bytes."""
    return _unsigned(value, 8)


def encode_text(value: str) -> bytes:
    """A string as UTF-8 (strings holding lone surrogates have no UTF-8 form and are refused)."""
    try:
        return value.encode("utf-8")
    except UnicodeEncodeError:
        raise MalformedInput(f"{shown_value(value)} is not valid Unicode text") from None


def encode_scalar(value: Scalar) -> bytes:
    """A game value: b"i" + 8-byte big-endian two's complement for an int, b"s" + UTF-8 for a str."""
    if isinstance(value, bool):
        raise MalformedInput(f"a game value must be an int or a str, not the bool {shown_value(value)}")
    if isinstance(value, int):
        try:
            return INT_SCALAR_TYPE + value.to_bytes(8, "big", signed=True)
        except OverflowError:
            raise MalformedInput(f"the integer {value} does not fit in 64 signed bits") from None
    return STR_SCALAR_TYPE + encode_text(value)


def _unsigned(value: int, size: int) -> bytes:
    if isinstance(value, bool) or not 0 <= value < 2 ** (8 * size):
        raise MalformedInput(f"{shown_value(value)} is not an unsigned {8 * size}-bit integer")
    return value.to_bytes(size, "big")
