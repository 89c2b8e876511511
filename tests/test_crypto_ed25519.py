"""Ed25519 through hashlib's libcrypto gives `cryptography`'s keys, signatures, checks and key files, byte for byte;
and the `cryptography` fallback (no shared libcrypto) gives the same."""

import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from hypothesis import given, settings
from hypothesis import strategies as st

from p2pfish.crypto import ed25519
from p2pfish.crypto.identity import Identity, _pkcs8_seed, verify


def _reference(seed: bytes) -> tuple[Ed25519PrivateKey, bytes]:
    key = Ed25519PrivateKey.from_private_bytes(seed)
    return key, key.public_key().public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)


def test_this_python_signs_through_libcrypto() -> None:
    assert ed25519.backend() == "libcrypto"


@settings(max_examples=60, deadline=None)
@given(st.binary(min_size=32, max_size=32), st.binary(max_size=600))
def test_keys_signatures_and_key_files_match_cryptography(seed: bytes, message: bytes) -> None:
    reference, public = _reference(seed)
    mine = Identity.from_seed(seed)
    assert mine.public_bytes == public
    assert mine.sign(message) == reference.sign(message)
    assert verify(public, message, reference.sign(message))
    pem = reference.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    )
    assert mine.to_pem() == pem
    assert _pkcs8_seed(pem) == seed


@settings(max_examples=60, deadline=None)
@given(st.binary(min_size=32, max_size=32), st.binary(max_size=200), st.integers(0, 95), st.integers(1, 255))
def test_a_changed_byte_fails_both_checks_alike(seed: bytes, message: bytes, at: int, flip: int) -> None:
    reference, public = _reference(seed)
    signed = bytearray(public + reference.sign(message))
    signed[at] ^= flip
    key, signature = bytes(signed[:32]), bytes(signed[32:])
    assert verify(key, message, signature) == ed25519._fallback_verify(key, message, signature)
    assert not verify(key, message, signature)


def test_the_cryptography_fallback_signs_and_checks_the_same(monkeypatch: pytest.MonkeyPatch) -> None:
    seed, message = bytes(range(32)), b"seat 3 draws"
    through_libcrypto = Identity.from_seed(seed)
    monkeypatch.setattr(ed25519, "_OPENSSL", None)
    assert ed25519.backend() == "cryptography"
    through_cryptography = Identity.from_seed(seed)
    assert through_cryptography.public_bytes == through_libcrypto.public_bytes
    signature = through_cryptography.sign(message)
    assert signature == through_libcrypto.sign(message)
    assert verify(through_libcrypto.public_bytes, message, signature)
    assert not verify(through_libcrypto.public_bytes, message + b"!", signature)


def test_the_cache_of_parsed_keys_stays_bounded() -> None:
    signers = [Identity.from_seed(bytes([n % 256, n // 256]) * 16) for n in range(ed25519._CACHED_KEYS + 5)]
    for signer in signers:
        assert verify(signer.public_bytes, b"m", signer.sign(b"m"))
    assert ed25519._OPENSSL is not None
    assert len(ed25519._OPENSSL._keys) <= ed25519._CACHED_KEYS
