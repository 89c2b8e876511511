"""p2pfish's one Ed25519 rule: every library this machine has (libsodium, OpenSSL, `cryptography`) and the plain
Python statement of the rule give the same verdict on the "Taming the many EdDSAs" vectors, RFC 8032's and
p2pfish's own, and on tampered signatures; without the byte checks the libraries split; a library that does not
apply the rule is not used; weak keys are refused."""

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from p2pfish.crypto import ed25519, ed25519_agreement, ed25519_python
from p2pfish.crypto.ed25519_agreement import Check
from p2pfish.crypto.ed25519_rule import SMALL_ORDER_Y, P, key_weakness, passes_byte_checks
from p2pfish.crypto.identity import Identity, verify

VECTORS = json.loads(
    (Path(__file__).resolve().parent.parent / "protocol" / "vectors" / "ed25519_rule.json").read_text(encoding="utf-8")
)
GROUPS = ("speccheck", "rfc8032", "p2pfish")
CASES: list[dict[str, Any]] = [case for group in GROUPS for case in VECTORS[group]["cases"]]
LIBRARIES: dict[str, Check] = dict(ed25519.candidates())
BACKENDS: dict[str, Check] = LIBRARIES | {"python": ed25519_python.verify}


def _fields(case: dict[str, Any]) -> tuple[bytes, bytes, bytes]:
    return bytes.fromhex(case["public_key"]), bytes.fromhex(case["message"]), bytes.fromhex(case["signature"])


def _under_the_rule(check: Check) -> Check:
    def checked(public: bytes, message: bytes, signature: bytes) -> bool:
        return passes_byte_checks(public, signature) and check(public, message, signature)

    return checked


def test_this_peer_checks_with_pyzmqs_libsodium() -> None:
    assert ed25519.verifier() == "libsodium"
    assert set(BACKENDS) == {"libsodium", "libcrypto", "cryptography", "python"}


@pytest.mark.parametrize("name", sorted(BACKENDS))
def test_every_backend_gives_the_rules_verdict_on_every_vector(name: str) -> None:
    check = _under_the_rule(BACKENDS[name])
    assert [check(*_fields(case)) for case in CASES] == [case["valid"] for case in CASES]
    assert [verify(*_fields(case)) for case in CASES] == [case["valid"] for case in CASES]
    assert sum(case["valid"] for case in CASES) == 4


def test_without_the_byte_checks_openssl_and_libsodium_split() -> None:
    """The reason for the rule: a seat with the neutral point as its key, or a signature with a small-order R,
    would be accepted by a peer on OpenSSL and blamed by a peer on libsodium."""
    splits = [case for case in CASES if BACKENDS["libcrypto"](*_fields(case)) != BACKENDS["libsodium"](*_fields(case))]
    assert {case.get("case", case.get("name")) for case in splits} == {
        0,
        1,
        2,
        11,
        "key = the neutral point (y = 1): R = B, S = 1 holds for every message",
        "the same signature, another message",
    }
    assert all(BACKENDS["libcrypto"](*_fields(case)) and not case["valid"] for case in splits)


@settings(max_examples=25, deadline=None)
@given(st.binary(min_size=32, max_size=32), st.binary(max_size=300), st.integers(0, 95), st.integers(1, 255))
def test_a_changed_byte_gets_one_verdict_from_every_library(seed: bytes, message: bytes, at: int, flip: int) -> None:
    signer = Identity.from_seed(seed)
    signed = bytearray(signer.public_bytes + signer.sign(message))
    assert all(check(signer.public_bytes, message, bytes(signed[32:])) for check in LIBRARIES.values())
    signed[at] ^= flip
    key, signature = bytes(signed[:32]), bytes(signed[32:])
    verdicts = {name: _under_the_rule(check)(key, message, signature) for name, check in BACKENDS.items()}
    assert verdicts == dict.fromkeys(BACKENDS, False)
    assert not verify(key, message, signature)


def test_a_library_that_is_not_cofactorless_is_not_used() -> None:
    cofactored_case = next(case for case in CASES if case.get("case") == 4)

    def cofactored(public: bytes, message: bytes, signature: bytes) -> bool:
        return (public, message, signature) == _fields(cofactored_case) or BACKENDS["libsodium"](
            public, message, signature
        )

    def broken(public: bytes, message: bytes, signature: bytes) -> bool:
        raise OSError("no such symbol")

    last = ("python", ed25519_python.verify)
    assert ed25519_agreement.choose([("cofactored", cofactored), ("libsodium", BACKENDS["libsodium"])], last)[0] == (
        "libsodium"
    )
    assert ed25519_agreement.choose([("broken", broken), ("cofactored", cofactored)], last) == last
    assert all(ed25519_agreement.agrees(check) for check in BACKENDS.values())


def _encodings(y: int) -> list[bytes]:
    return [(y | sign << 255).to_bytes(32, "little") for sign in (0, 1)]


def test_weak_keys_are_named_and_honest_keys_pass() -> None:
    for y in SMALL_ORDER_Y:
        for key in _encodings(y):
            assert key_weakness(key) is not None
            assert not passes_byte_checks(key, bytes(64))
    assert "small order" in str(key_weakness(_encodings(1)[0]))
    assert "canonical" in str(key_weakness(_encodings(P + 3)[1]))
    assert "no point" in str(key_weakness(_encodings(2)[0]))
    assert key_weakness(bytes(31)) is not None
    for case in VECTORS["rfc8032"]["cases"]:
        assert key_weakness(bytes.fromhex(case["public_key"])) is None


@settings(max_examples=30, deadline=None)
@given(st.binary(min_size=32, max_size=32))
def test_every_key_made_from_a_seed_is_admitted(seed: bytes) -> None:
    assert key_weakness(Identity.from_seed(seed).public_bytes) is None
