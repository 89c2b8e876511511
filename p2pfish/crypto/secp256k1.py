"""The group under the mental-poker deck: secp256k1 through libsecp256k1 (coincurve).

Points travel as 33-byte SEC1 compressed encodings, scalars as 32 bytes big-endian. Every multiplication
runs in libsecp256k1's constant-time code. The point at infinity has no encoding: an operation whose result
would be it raises ValueError, which a verifier treats as a failed proof.
"""

import functools
import secrets

from coincurve import PublicKey

from p2pfish.core.errors import MalformedInput
from p2pfish.crypto.encoding import encode_u32, length_prefixed, tagged_hash

GROUP_ORDER = 0xFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFEBAAEDCE6AF48A03BBFD25E8CD0364141
POINT_BYTES = 33
SCALAR_BYTES = 32
EVEN_Y = b"\x02"
DECOMPRESSED_CACHE = 1024
"""Points kept decompressed: a pass's cards, commitments and chain, and the next pass's (a deck is at most 160)."""

Point = PublicKey


def random_scalar() -> int:
    """A uniform scalar in [1, n-1] from the operating system's CSPRNG."""
    return 1 + secrets.randbelow(GROUP_ORDER - 1)


def is_scalar(k: int) -> bool:
    return 1 <= k < GROUP_ORDER


def inverse(k: int) -> int:
    return pow(k, -1, GROUP_ORDER)


def scalar_to_bytes(k: int) -> bytes:
    return k.to_bytes(SCALAR_BYTES, "big")


def scalar_from_bytes(data: bytes, seat: int | None = None) -> int:
    """A scalar from the wire: 32 bytes big-endian in [1, n-1]."""
    if len(data) != SCALAR_BYTES:
        raise MalformedInput(f"a scalar must be {SCALAR_BYTES} bytes, not {len(data)}", seat)
    k = int.from_bytes(data, "big")
    if not is_scalar(k):
        raise MalformedInput("a scalar must lie in [1, n-1]", seat)
    return k


def point_from_bytes(data: bytes, seat: int | None = None) -> Point:
    """A point from the wire: 33 bytes, 02 or 03 then an x-coordinate of a curve point."""
    if len(data) != POINT_BYTES or data[0] not in (2, 3):
        raise MalformedInput(f"a curve point must be {POINT_BYTES} bytes starting 02 or 03", seat)
    try:
        return _decompressed(data)
    except ValueError:
        raise MalformedInput(f"{data.hex()} is not a secp256k1 point", seat) from None


@functools.lru_cache(maxsize=DECOMPRESSED_CACHE)
def _decompressed(data: bytes) -> Point:
    """A deck's points are read as a pass's output, then as the next pass's input: each is decompressed (a
    square root) once. Safe to share: no operation here changes a point in place."""
    return PublicKey(data)


def point_bytes(point: Point) -> bytes:
    return point.format(compressed=True)


def mul(k: int, point: Point) -> Point:
    """k·P, for k in [1, n-1]."""
    return point.multiply(scalar_to_bytes(k % GROUP_ORDER))


def mul_gen(k: int) -> Point:
    """k·G, for k in [1, n-1] (libsecp256k1's precomputed generator table)."""
    return PublicKey.from_secret(scalar_to_bytes(k % GROUP_ORDER))


def add(*points: Point) -> Point:
    return PublicKey.combine_keys(list(points))


def hash_to_point(tag: bytes, *fields: bytes) -> Point:
    """The even-y point whose x is H(tag, fields, u32(counter)) for the first counter that gives one.
    Nobody knows its discrete logarithm to G or to any other such point."""
    prefix = length_prefixed(tag, *fields)
    counter = 0
    while True:
        x = tagged_hash(b"p2pfish/hash-to-point/v1", prefix, encode_u32(counter))
        try:
            return PublicKey(EVEN_Y + x)
        except ValueError:
            counter += 1
