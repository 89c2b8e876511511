"""Commitments open only for the committing seat, session, purpose and value; fields never run together."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from p2pfish.core.errors import MalformedInput, ProtocolViolation
from p2pfish.crypto.commitment import NONCE_BYTES, check_opening, commit, new_nonce, require_opening
from p2pfish.crypto.encoding import encode_scalar, encode_u64, length_prefixed

SESSION = b"session-1"
VALUE = encode_scalar("prise")
NONCE = bytes(range(32))
DIGEST = commit(SESSION, 2, "line1/peche", value=VALUE, nonce=NONCE)


def test_the_committed_value_opens() -> None:
    assert check_opening(DIGEST, SESSION, 2, "line1/peche", value=VALUE, nonce=NONCE)
    require_opening(DIGEST, SESSION, 2, "line1/peche", value=VALUE, nonce=NONCE)


@pytest.mark.parametrize(
    ("session", "seat", "purpose", "value", "nonce"),
    [
        (SESSION, 2, "line1/peche", VALUE, bytes(32)),
        (SESSION, 2, "line1/peche", encode_scalar("bredouille"), NONCE),
        (SESSION, 2, "line2/peche", VALUE, NONCE),
        (SESSION, 3, "line1/peche", VALUE, NONCE),
        (b"session-2", 2, "line1/peche", VALUE, NONCE),
    ],
    ids=["wrong nonce", "other value", "other purpose", "other seat", "other session"],
)
def test_any_other_opening_fails(session: bytes, seat: int, purpose: str, value: bytes, nonce: bytes) -> None:
    assert not check_opening(DIGEST, session, seat, purpose, value=value, nonce=nonce)
    with pytest.raises(ProtocolViolation) as caught:
        require_opening(DIGEST, session, seat, purpose, value=value, nonce=nonce)
    assert caught.value.seat == seat


def test_a_copied_commitment_does_not_open_for_the_copier() -> None:
    # Seat 3 copies seat 2's digest and later learns seat 2's opening: it still cannot open it as its own.
    copied = DIGEST
    assert not check_opening(copied, SESSION, 3, "line1/peche", value=VALUE, nonce=NONCE)


def test_fields_that_concatenate_alike_commit_differently() -> None:
    a = commit(SESSION, 0, "ab", value=b"c", nonce=NONCE)
    b = commit(SESSION, 0, "a", value=b"bc", nonce=NONCE)
    c = commit(SESSION + b"a", 0, "b", value=b"c", nonce=NONCE)
    assert len({a, b, c}) == 3
    assert length_prefixed(b"ab", b"c") != length_prefixed(b"a", b"bc")


@given(st.lists(st.binary(max_size=8), max_size=4), st.lists(st.binary(max_size=8), max_size=4))
def test_length_prefixing_is_injective(left: list[bytes], right: list[bytes]) -> None:
    assert (length_prefixed(*left) == length_prefixed(*right)) == (left == right)


def test_int_and_str_scalars_never_collide() -> None:
    assert encode_scalar(1) != encode_scalar("1")
    assert encode_scalar(0x73) != encode_scalar("s")
    assert encode_scalar(-1) != encode_scalar(2**64 - 1 - 2**63)


def test_unencodable_values_are_refused() -> None:
    with pytest.raises(MalformedInput):
        encode_scalar(True)
    with pytest.raises(MalformedInput):
        encode_scalar(2**63)
    with pytest.raises(MalformedInput):
        encode_scalar("\ud800")
    with pytest.raises(MalformedInput):
        encode_u64(-1)


@pytest.mark.parametrize("size", [0, 16, 31, 33])
def test_a_nonce_must_be_32_bytes(size: int) -> None:
    with pytest.raises(MalformedInput) as caught:
        commit(SESSION, 1, "x", value=VALUE, nonce=bytes(size))
    assert caught.value.seat == 1
    with pytest.raises(MalformedInput):
        check_opening(DIGEST, SESSION, 1, "x", value=VALUE, nonce=bytes(size))


def test_nonces_are_fresh() -> None:
    nonces = {new_nonce() for _ in range(8)}
    assert len(nonces) == 8
    assert all(len(nonce) == NONCE_BYTES for nonce in nonces)
