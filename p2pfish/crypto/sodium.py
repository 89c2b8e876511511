"""libsodium through ctypes, from the copy pyzmq's wheel ships and every peer has already loaded for CURVE (else a
system libsodium): its Ed25519 check (crypto_sign_ed25519_verify_detached; about 0.1 ms a check against 0.18 for
OpenSSL's here), its Ed25519 signing from a seed, and scrypt. The library file is found beside the zmq package
without importing it (this layer does not use ZeroMQ). Whether p2pfish may check signatures with what it finds is
ed25519_agreement.py's decision; signing and scrypt are deterministic, the same bytes from any library.
"""

import ctypes
import functools
import importlib.util
from collections.abc import Iterator
from pathlib import Path

from p2pfish.crypto.ed25519_agreement import Check

_SYSTEM_NAMES = ("libsodium.so.26", "libsodium.so.23", "libsodium.dylib", "libsodium.dll")


def checks() -> Iterator[Check]:
    """A check for every libsodium found, pyzmq's first."""
    for path in (*_wheel_copies(), *_SYSTEM_NAMES):
        try:
            yield _check_of(ctypes.CDLL(str(path)))
        except (OSError, AttributeError):  # not there, or a build without Ed25519
            continue


def _wheel_copies() -> list[Path]:
    spec = importlib.util.find_spec("zmq")
    if spec is None or spec.origin is None:
        return []
    package = Path(spec.origin).parent
    found: list[Path] = []
    for folder, pattern in ((package.parent / "pyzmq.libs", "libsodium*"), (package / ".dylibs", "libsodium*")):
        if folder.is_dir():
            found += sorted(folder.glob(pattern))
    return found


def _check_of(lib: ctypes.CDLL) -> Check:
    if lib.sodium_init() < 0:
        raise OSError("sodium_init failed")
    function = lib.crypto_sign_ed25519_verify_detached
    function.restype = ctypes.c_int
    function.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_ulonglong, ctypes.c_char_p]

    def check(public: bytes, message: bytes, signature: bytes) -> bool:
        status: int = function(signature, message, len(message), public)
        return status == 0

    return check


_SIGNING_AND_SCRYPT = ("crypto_sign_ed25519_seed_keypair", "crypto_sign_ed25519_detached",
                       "crypto_pwhash_scryptsalsa208sha256_ll")  # fmt: skip


@functools.cache
def library() -> ctypes.CDLL | None:
    """The first libsodium found (pyzmq's copy first) that starts and has Ed25519 signing and scrypt (a minimal
    build has no scrypt), or None."""
    for path in (*_wheel_copies(), *_SYSTEM_NAMES):
        try:
            lib = ctypes.CDLL(str(path))
            if all(hasattr(lib, name) for name in _SIGNING_AND_SCRYPT) and lib.sodium_init() >= 0:
                return lib
        except (OSError, AttributeError):
            continue
    return None


class Signer:
    """libsodium's Ed25519 keys from a 32-byte seed, and its detached signatures (RFC 8032, deterministic)."""

    PUBLIC_BYTES, SECRET_BYTES, SIGNATURE_BYTES = 32, 64, 64

    def __init__(self, lib: ctypes.CDLL) -> None:
        buf = ctypes.c_char_p
        self._keypair = lib.crypto_sign_ed25519_seed_keypair
        self._keypair.restype, self._keypair.argtypes = ctypes.c_int, [buf, buf, buf]
        self._sign = lib.crypto_sign_ed25519_detached
        self._sign.restype = ctypes.c_int
        self._sign.argtypes = [buf, ctypes.c_void_p, buf, ctypes.c_ulonglong, buf]

    def keys(self, seed: bytes) -> tuple[bytes, bytes]:
        """The public key and libsodium's 64-byte secret key (the seed, then the public key) of `seed`."""
        public = ctypes.create_string_buffer(self.PUBLIC_BYTES)
        secret = ctypes.create_string_buffer(self.SECRET_BYTES)
        if self._keypair(public, secret, seed) != 0:
            raise ValueError("libsodium refused an Ed25519 seed")
        return public.raw, secret.raw

    def sign(self, secret: bytes, message: bytes) -> bytes:
        signature = ctypes.create_string_buffer(self.SIGNATURE_BYTES)
        if self._sign(signature, None, message, len(message), secret) != 0:
            raise ValueError("libsodium failed to sign")
        return signature.raw


@functools.cache
def signer() -> Signer | None:
    lib = library()
    return None if lib is None else Signer(lib)


def scrypt(password: bytes, salt: bytes, *, n: int, r: int, p: int, length: int) -> bytes | None:
    """scrypt (RFC 7914) through libsodium, or None where it has none."""
    lib = library()
    if lib is None:
        return None
    derive = lib.crypto_pwhash_scryptsalsa208sha256_ll
    derive.restype = ctypes.c_int
    derive.argtypes = [
        ctypes.c_char_p, ctypes.c_size_t, ctypes.c_char_p, ctypes.c_size_t,
        ctypes.c_uint64, ctypes.c_uint32, ctypes.c_uint32, ctypes.c_char_p, ctypes.c_size_t,
    ]  # fmt: skip
    out = ctypes.create_string_buffer(length)
    if derive(password, len(password), salt, len(salt), n, r, p, out, length) != 0:
        raise ValueError("libsodium's scrypt failed (out of memory?)")
    return out.raw
