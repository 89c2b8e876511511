"""p2pfish's Ed25519 verification rule in plain Python: the last resort, where no library on this machine shows
it applies the rule (about 5 ms a check against 0.1 ms), and an independent statement of the rule for the tests.

RFC 8032 §5.1.7 with its cofactorless equation: decode A (refusing a non-canonical encoding), compute
k = SHA-512(R || A || M) mod L, and accept when the canonical encoding of [S]B - [k]A is R, byte for byte.
The byte checks of ed25519_rule.py come first, as before every backend.
"""

import hashlib

from p2pfish.crypto.ed25519_rule import Y_MASK, D, L, P, passes_byte_checks

_SQRT_M1 = pow(2, (P - 1) // 4, P)
_Point = tuple[int, int, int, int]
"""Extended coordinates (X, Y, Z, T) with x = X/Z, y = Y/Z, x y = T/Z."""
_IDENTITY: _Point = (0, 1, 1, 0)


def verify(public: bytes, message: bytes, signature: bytes) -> bool:
    """True when `signature` is valid for `message` and `public` under the rule; never raises."""
    if not passes_byte_checks(public, signature):
        return False
    a = decode(public)
    if a is None:
        return False
    k = int.from_bytes(hashlib.sha512(signature[:32] + public + message).digest(), "little") % L
    s = int.from_bytes(signature[32:], "little")
    return encode(_add(_multiply(s, BASE), _negate(_multiply(k, a)))) == signature[:32]


def decode(encoded: bytes) -> _Point | None:
    """The point `encoded` names (RFC 8032 §5.1.3), or None when it names none or is not canonical."""
    y = int.from_bytes(encoded, "little") & Y_MASK
    sign = encoded[31] >> 7
    if y >= P:
        return None
    x2 = (y * y - 1) * pow(D * y * y + 1, P - 2, P) % P
    x = pow(x2, (P + 3) // 8, P)
    if (x * x - x2) % P:
        x = x * _SQRT_M1 % P
    if (x * x - x2) % P or (x == 0 and sign):
        return None
    if x & 1 != sign:
        x = P - x
    return (x, y, 1, x * y % P)


def encode(point: _Point) -> bytes:
    x_, y_, z, _ = point
    inverse = pow(z, P - 2, P)
    x, y = x_ * inverse % P, y_ * inverse % P
    return (y | (x & 1) << 255).to_bytes(32, "little")


def _add(p: _Point, q: _Point) -> _Point:
    a = (p[1] - p[0]) * (q[1] - q[0]) % P
    b = (p[1] + p[0]) * (q[1] + q[0]) % P
    c = 2 * p[3] * q[3] * D % P
    d = 2 * p[2] * q[2] % P
    e, f, g, h = b - a, d - c, d + c, b + a
    return (e * f % P, g * h % P, f * g % P, e * h % P)


def _negate(p: _Point) -> _Point:
    return (-p[0] % P, p[1], p[2], -p[3] % P)


def _multiply(scalar: int, point: _Point) -> _Point:
    result = _IDENTITY
    while scalar:
        if scalar & 1:
            result = _add(result, point)
        point = _add(point, point)
        scalar >>= 1
    return result


def _base() -> _Point:
    base = decode((4 * pow(5, P - 2, P) % P).to_bytes(32, "little"))  # y = 4/5
    if base is None:
        raise AssertionError("the base point does not decode")
    return base


BASE = _base()
