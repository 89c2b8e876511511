"""libsodium's Ed25519 check (crypto_sign_ed25519_verify_detached) through ctypes, from the copy pyzmq's wheel
ships and every peer has already loaded for CURVE (else a system libsodium). About 0.1 ms a check against 0.18
for OpenSSL's here. The library file is found beside the zmq package without importing it (this layer does not
use ZeroMQ). Whether p2pfish may use what it finds is ed25519_agreement.py's decision.
"""

import ctypes
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
