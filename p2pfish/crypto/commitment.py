"""Hash commitments bound to a session, a seat and a purpose.

digest = SHA-256(lp(b"p2pfish/commit/v1", session_id, u64(seat), utf8(purpose), value, nonce)) with a
fresh 32-byte nonce. Binding the seat means a digest copied from another seat never opens for the copier;
binding the session and purpose stops replays across games and slots. `value` and `nonce` are
keyword-only because both are bytes and swapping them would go unnoticed.
"""

import hmac
import secrets

from p2pfish.core.errors import MalformedInput, ProtocolViolation
from p2pfish.core.text import shown_value
from p2pfish.crypto.encoding import encode_text, encode_u64, tagged_hash

TAG_COMMIT = b"p2pfish/commit/v1"
NONCE_BYTES = 32
DIGEST_BYTES = 32


def new_nonce() -> bytes:
    """32 bytes from the operating system's CSPRNG."""
    return secrets.token_bytes(NONCE_BYTES)


def commit(session_id: bytes, seat: int, purpose: str, *, value: bytes, nonce: bytes) -> bytes:
    """The 32-byte digest that commits `seat` to `value` for `purpose` in this session."""
    if len(nonce) != NONCE_BYTES:
        raise MalformedInput(f"a commitment nonce must be {NONCE_BYTES} bytes, not {len(nonce)}", seat)
    return tagged_hash(TAG_COMMIT, session_id, encode_u64(seat), encode_text(purpose), value, nonce)


def check_opening(digest: bytes, session_id: bytes, seat: int, purpose: str, *, value: bytes, nonce: bytes) -> bool:
    """True when (value, nonce) opens `digest` as `seat`'s commitment for `purpose`."""
    return hmac.compare_digest(digest, commit(session_id, seat, purpose, value=value, nonce=nonce))


def require_opening(digest: bytes, session_id: bytes, seat: int, purpose: str, *, value: bytes, nonce: bytes) -> None:
    """Like check_opening, but a bad opening is a ProtocolViolation blamed on `seat`."""
    if not check_opening(digest, session_id, seat, purpose, value=value, nonce=nonce):
        raise ProtocolViolation(f"the reveal for {shown_value(purpose)} does not open its commitment", seat)
