"""Ed25519 through libsodium gives `cryptography`'s keys, signatures, checks and key files, byte for byte; and so do
the fallbacks, hashlib's libcrypto (no libsodium) and `cryptography` itself (no shared libcrypto either)."""

import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from hypothesis import given, settings
from hypothesis import strategies as st

from p2pfish.crypto import ed25519, sodium
from p2pfish.crypto.identity import Identity, _pkcs8_seed, verify


def _reference(seed: bytes) -> tuple[Ed25519PrivateKey, bytes]:
    key = Ed25519PrivateKey.from_private_bytes(seed)
    return key, key.public_key().public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)


def test_this_python_signs_through_libsodium() -> None:
    assert ed25519.backend() == "libsodium"


@settings(max_examples=60, deadline=None)
@given(st.binary(min_size=32, max_size=32), st.binary(max_size=600))
def test_keys_signatures_and_key_files_match_cryptography(seed: bytes, message: bytes) -> None:
    reference, public = _reference(seed)
    mine = Identity.from_seed(seed)
    assert mine.public_bytes == public
    assert mine.sign(message) == reference.sign(message)
    for through in ed25519.SIGNERS:
        key = ed25519.PrivateKey(seed, through)
        assert (key.through, key.public_bytes, key.sign(message)) == (through, public, reference.sign(message))
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


@pytest.mark.parametrize(("no_sodium", "no_libcrypto", "expected"), [
    (True, False, "libcrypto"), (True, True, "cryptography"),
])  # fmt: skip
def test_without_libsodium_a_fallback_signs_and_checks_the_same(
    monkeypatch: pytest.MonkeyPatch, no_sodium: bool, no_libcrypto: bool, expected: str
) -> None:
    seed, message = bytes(range(32)), b"seat 3 draws"
    through_libsodium = Identity.from_seed(seed)
    if no_sodium:
        monkeypatch.setattr(sodium, "signer", lambda: None)
    if no_libcrypto:
        monkeypatch.setattr(ed25519, "_openssl", lambda: None)
    assert ed25519.backend() == expected
    through_fallback = Identity.from_seed(seed)
    assert through_fallback.public_bytes == through_libsodium.public_bytes
    signature = through_fallback.sign(message)
    assert signature == through_libsodium.sign(message)
    assert verify(through_libsodium.public_bytes, message, signature)
    assert not verify(through_libsodium.public_bytes, message + b"!", signature)


def test_the_cache_of_libcryptos_parsed_keys_stays_bounded() -> None:
    openssl = ed25519._openssl()
    assert openssl is not None
    signers = [Identity.from_seed(bytes([n % 256, n // 256]) * 16) for n in range(ed25519._CACHED_KEYS + 5)]
    for signer in signers:
        assert openssl.check(signer.public_bytes, b"m", signer.sign(b"m"))
    assert len(openssl._keys) <= ed25519._CACHED_KEYS


def test_a_signer_asked_for_by_name_is_that_one_or_an_error(monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(ValueError, match="no Ed25519 signer 'bogus'"):
        ed25519.PrivateKey(bytes(32), "bogus")
    monkeypatch.setattr(sodium, "signer", lambda: None)
    with pytest.raises(ValueError, match="no libsodium"):
        ed25519.PrivateKey(bytes(32), "libsodium")
    monkeypatch.setattr(ed25519, "_openssl", lambda: None)
    with pytest.raises(ValueError, match="no libcrypto"):
        ed25519.PrivateKey(bytes(32), "libcrypto")
    assert ed25519.PrivateKey(bytes(32), "cryptography").through == "cryptography"
