"""Scalar multiplication on P-256 x-coordinates, the commutative cipher under the mental-poker deck.

E_k(x) is the x-coordinate of k·P where P is either curve point with x-coordinate x (both give the same
result, since k·(-P) = -(k·P)). It is computed as the ECDH shared secret of the private key k and the public
point P, so every multiplication runs in OpenSSL's constant-time code. x-coordinates and scalars travel as
32-byte big-endian strings.
"""

import secrets
from collections.abc import Iterable

from cryptography.hazmat.primitives.asymmetric import ec

from p2pfish.core.errors import MalformedInput

FIELD_PRIME = 0xFFFFFFFF00000001000000000000000000000000FFFFFFFFFFFFFFFFFFFFFFFF
GROUP_ORDER = 0xFFFFFFFF00000000FFFFFFFFFFFFFFFFBCE6FAADA7179E84F3B9CAC2FC632551
COORDINATE_BYTES = 32
SCALAR_BYTES = 32
CURVE = ec.SECP256R1()
ECDH = ec.ECDH()
COMPRESSED_EVEN_Y = b"\x02"


def is_x_coordinate(x: int) -> bool:
    """True when 0 <= x < p and x^3 - 3x + b is a square mod p: OpenSSL decompresses the point (5x
    faster than Euler's criterion in Python, which matters for every card of every deck pass)."""
    if not 0 <= x < FIELD_PRIME:
        return False
    try:
        ec.EllipticCurvePublicKey.from_encoded_point(CURVE, COMPRESSED_EVEN_Y + x.to_bytes(COORDINATE_BYTES, "big"))
    except ValueError:
        return False
    return True


def random_scalar() -> int:
    """A uniform key in [1, n-1] from the operating system's CSPRNG."""
    return 1 + secrets.randbelow(GROUP_ORDER - 1)


def is_scalar(k: int) -> bool:
    return 1 <= k < GROUP_ORDER


def inverse(k: int) -> int:
    """k^-1 mod n: the key that undoes k."""
    return pow(k, -1, GROUP_ORDER)


def scalar_to_bytes(k: int) -> bytes:
    return k.to_bytes(SCALAR_BYTES, "big")


def scalar_from_bytes(data: bytes, seat: int | None = None) -> int:
    """Parse a key from the wire: 32 bytes, big-endian, in [1, n-1]."""
    if len(data) != SCALAR_BYTES:
        raise MalformedInput(f"a deck key must be {SCALAR_BYTES} bytes, not {len(data)}", seat)
    k = int.from_bytes(data, "big")
    if not is_scalar(k):
        raise MalformedInput("a deck key must lie in [1, n-1]", seat)
    return k


def check_coordinate(x: bytes, seat: int | None = None) -> None:
    """Raise MalformedInput unless `x` is a 32-byte big-endian x-coordinate of a P-256 point."""
    if len(x) != COORDINATE_BYTES or not is_x_coordinate(int.from_bytes(x, "big")):
        raise MalformedInput(f"{x.hex()} is not the x-coordinate of a P-256 point", seat)


def multiply(k: int, x: bytes) -> bytes:
    """E_k(x): the x-coordinate of k·P(x)."""
    return multiply_all(k, (x,))[0]


def multiply_all(k: int, xs: Iterable[bytes]) -> list[bytes]:
    """E_k of every x in `xs`, deriving the private-key object for k only once."""
    private_key = _private_key(k)
    return [private_key.exchange(ECDH, _point(x)) for x in xs]


def multiply_each(ks: Iterable[int], xs: Iterable[bytes]) -> list[bytes]:
    """[E_k(x) for k, x in zip(ks, xs)]: one key per coordinate."""
    return [_private_key(k).exchange(ECDH, _point(x)) for k, x in zip(ks, xs, strict=True)]


def _private_key(k: int) -> ec.EllipticCurvePrivateKey:
    if not is_scalar(k):
        raise ValueError("a deck key must lie in [1, n-1]")
    return ec.derive_private_key(k, CURVE)


def _point(x: bytes) -> ec.EllipticCurvePublicKey:
    if len(x) != COORDINATE_BYTES:
        raise MalformedInput(f"an x-coordinate must be {COORDINATE_BYTES} bytes, not {len(x)}")
    try:
        return ec.EllipticCurvePublicKey.from_encoded_point(CURVE, COMPRESSED_EVEN_Y + x)
    except ValueError:
        raise MalformedInput(f"{x.hex()} is not the x-coordinate of a P-256 point") from None
