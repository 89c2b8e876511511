"""Ed25519 (RFC 8032) signing and verification, from libraries every peer has already loaded.

Signing: libsodium (pyzmq's copy, which every peer loads for CURVE; sodium.py), else the OpenSSL that Python's hashlib
links (its `_hashlib` module) through its EVP interface, else `cryptography` (9 MB resident: its Rust module with a
second, static OpenSSL). Signatures are deterministic: the same bytes from each. A player's process keeps OpenSSL's
libcrypto out altogether (launcher.py): 3.3 MB resident that it no longer needs.

Verification: p2pfish's one rule (protocol/CRYPTO.md §2), the same on every peer whatever its libraries: the byte
checks of ed25519_rule.py, then the equation, from the fastest library that shows it applies the rule
(ed25519_agreement.py): libsodium (pyzmq's copy), else OpenSSL, else `cryptography`, else plain Python.
"""

import ctypes
import functools
import threading
from collections.abc import Callable, Iterator
from typing import Any

from p2pfish.crypto import ed25519_agreement, ed25519_python, sodium
from p2pfish.crypto.ed25519_rule import passes_byte_checks

SEED_BYTES = 32
PUBLIC_KEY_BYTES = 32
SIGNATURE_BYTES = 64
_ED25519 = 1087
"""OpenSSL's EVP_PKEY_ED25519 (= NID_ED25519)."""
_CACHED_KEYS = 256
"""Parsed public keys kept for the next check of the same signer (a table has at most a few dozen)."""


class _OpenSsl:
    """libcrypto's EVP calls, looked up through `_hashlib`'s shared object (dlsym searches its dependencies)."""

    def __init__(self) -> None:
        import _hashlib

        lib = ctypes.CDLL(_hashlib.__file__)
        p, size, size_p, buf = ctypes.c_void_p, ctypes.c_size_t, ctypes.POINTER(ctypes.c_size_t), ctypes.c_char_p
        self.new_public = _function(lib.EVP_PKEY_new_raw_public_key, p, [ctypes.c_int, p, buf, size])
        self.new_private = _function(lib.EVP_PKEY_new_raw_private_key, p, [ctypes.c_int, p, buf, size])
        self.raw_public = _function(lib.EVP_PKEY_get_raw_public_key, ctypes.c_int, [p, buf, size_p])
        self.free_key = _function(lib.EVP_PKEY_free, None, [p])
        self.new_context = _function(lib.EVP_MD_CTX_new, p, [])
        self.free_context = _function(lib.EVP_MD_CTX_free, None, [p])
        self.sign_init = _function(lib.EVP_DigestSignInit, ctypes.c_int, [p, p, p, p, p])
        self.sign = _function(lib.EVP_DigestSign, ctypes.c_int, [p, buf, size_p, buf, size])
        self.verify_init = _function(lib.EVP_DigestVerifyInit, ctypes.c_int, [p, p, p, p, p])
        self.verify = _function(lib.EVP_DigestVerify, ctypes.c_int, [p, buf, size, buf, size])
        self.clear_errors = _function(lib.ERR_clear_error, None, [])
        self._keys: dict[bytes, int] = {}
        self._lock = threading.Lock()
        """Held while a cached key is in use: keys are freed when the cache is emptied."""

    def public_key(self, public: bytes) -> int | None:
        """libcrypto's parsed key for `public` (cached), or None when it is no Ed25519 point."""
        key = self._keys.get(public)
        if key is None:
            key = self.new_public(_ED25519, None, public, len(public))
            if not key:
                self.clear_errors()
                return None
            if len(self._keys) >= _CACHED_KEYS:
                for old in self._keys.values():
                    self.free_key(old)
                self._keys.clear()
            self._keys[public] = key
        return int(key)

    def check(self, public: bytes, message: bytes, signature: bytes) -> bool:
        with self._lock:
            return self._check(public, message, signature)

    def _check(self, public: bytes, message: bytes, signature: bytes) -> bool:
        key = self.public_key(public)
        if key is None:
            return False
        context = self.new_context()
        try:
            valid: bool = (
                self.verify_init(context, None, None, None, key) == 1
                and self.verify(context, signature, len(signature), message, len(message)) == 1
            )
        finally:
            self.free_context(context)
        if not valid:
            self.clear_errors()
        return valid


SIGNERS = ("libsodium", "libcrypto", "cryptography")


class PrivateKey:
    """An Ed25519 private key made from its 32-byte seed; signs deterministically (RFC 8032), through `through` (one
    of SIGNERS; by default the first this process has)."""

    def __init__(self, seed: bytes, through: str | None = None) -> None:
        self._openssl: _OpenSsl | None = None
        self._key: Any = None
        if len(seed) != SEED_BYTES:
            raise ValueError(f"an Ed25519 seed is {SEED_BYTES} bytes, not {len(seed)}")
        self.seed = seed
        self.through = through or backend()
        if self.through not in SIGNERS:
            raise ValueError(f"no Ed25519 signer {self.through!r} (signers: {', '.join(SIGNERS)})")
        if self.through == "libsodium":
            sodium_signer = sodium.signer()
            if sodium_signer is None:
                raise ValueError("this process has no libsodium to sign with")
            self._sodium = sodium_signer
            self.public_bytes, self._key = sodium_signer.keys(seed)
            return
        if self.through == "libcrypto":
            openssl = _openssl()
            if openssl is None:
                raise ValueError("this process has no libcrypto to sign with")
            self._openssl = openssl
            self._key = openssl.new_private(_ED25519, None, seed, len(seed))
            if not self._key:
                raise ValueError("OpenSSL refused an Ed25519 seed")
            public = ctypes.create_string_buffer(PUBLIC_KEY_BYTES)
            length = ctypes.c_size_t(PUBLIC_KEY_BYTES)
            if openssl.raw_public(self._key, public, ctypes.byref(length)) != 1:
                raise ValueError("OpenSSL gave no Ed25519 public key")
            self.public_bytes = public.raw[: length.value]
            return
        self._key = _fallback_private(seed)
        self.public_bytes = _fallback_public_bytes(self._key)

    def sign(self, message: bytes) -> bytes:
        if self.through == "libsodium":
            return self._sodium.sign(self._key, message)
        openssl = self._openssl
        if openssl is None:
            signature: bytes = self._key.sign(message)
            return signature
        context = openssl.new_context()
        try:
            out = ctypes.create_string_buffer(SIGNATURE_BYTES)
            length = ctypes.c_size_t(SIGNATURE_BYTES)
            if openssl.sign_init(context, None, None, None, self._key) != 1 or (
                openssl.sign(context, out, ctypes.byref(length), message, len(message)) != 1
            ):
                openssl.clear_errors()
                raise ValueError("OpenSSL failed to sign")
            return out.raw[: length.value]
        finally:
            openssl.free_context(context)

    def __del__(self) -> None:
        if self._openssl is not None and self._key:
            self._openssl.free_key(self._key)
            self._key = None


def verify(public: bytes, message: bytes, signature: bytes) -> bool:
    """True when `signature` is a valid Ed25519 signature of `message` by `public` under p2pfish's rule (the
    same verdict on every peer); never raises."""
    return passes_byte_checks(public, signature) and _VERIFIER.check(public, message, signature)


def backend() -> str:
    """Which library signs by default: "libsodium", "libcrypto" (through hashlib's) or "cryptography"."""
    if sodium.signer() is not None:
        return "libsodium"
    return "libcrypto" if _openssl() is not None else "cryptography"


def verifier() -> str:
    """Which library checks signatures: "libsodium", "libcrypto", "cryptography" or "python"."""
    return _VERIFIER.choose()


def candidates() -> Iterator[tuple[str, ed25519_agreement.Check]]:
    """Every library that could check signatures, fastest first, before the agreement test."""
    for check in sodium.checks():
        yield "libsodium", check
    openssl = _openssl()
    if openssl is not None:
        yield "libcrypto", openssl.check
    yield "cryptography", _fallback_verify


class _Verifier:
    """The library that checks this process's signatures, chosen at its first check."""

    def __init__(self) -> None:
        self.name = ""
        self.check: ed25519_agreement.Check = self._choose_and_check

    def choose(self) -> str:
        if not self.name:
            self.name, self.check = ed25519_agreement.choose(candidates(), ("python", ed25519_python.verify))
        return self.name

    def _choose_and_check(self, public: bytes, message: bytes, signature: bytes) -> bool:
        self.choose()
        return self.check(public, message, signature)


def _function(function: Any, result: Any, arguments: list[Any]) -> Callable[..., Any]:
    function.restype = result
    function.argtypes = arguments
    return function  # type: ignore[no-any-return]


@functools.cache
def _openssl() -> _OpenSsl | None:
    """libcrypto's calls, loaded when first asked for (a player's process never asks: launcher.py)."""
    try:
        return _OpenSsl()
    except (ImportError, OSError, AttributeError):  # no shared libcrypto, or one without these calls
        return None


def _fallback_private(seed: bytes) -> Any:
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    return Ed25519PrivateKey.from_private_bytes(seed)


def _fallback_public_bytes(key: Any) -> bytes:
    from cryptography.hazmat.primitives import serialization

    public: bytes = key.public_key().public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
    return public


def _fallback_verify(public: bytes, message: bytes, signature: bytes) -> bool:
    from cryptography.exceptions import InvalidSignature
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

    try:
        Ed25519PublicKey.from_public_bytes(public).verify(signature, message)
    except (InvalidSignature, ValueError, TypeError):
        return False
    return True


_VERIFIER = _Verifier()
