"""The `p2pfish` program: a player's command, or a test tool's (`match`, `bench`, `ladder`), wrapping the player's."""

import contextlib
import importlib.util
import os
import sys
from collections.abc import Sequence
from typing import NoReturn

TOOL_COMMANDS = ("match", "bench", "ladder")


def main(argv: Sequence[str] | None = None) -> int:
    words = sys.argv[1:] if argv is None else list(argv)
    if words and words[0] in TOOL_COMMANDS:
        from p2pfish.tools.cli import main as tools_main

        return tools_main(words)
    without_tls()
    without_libcrypto()
    from p2pfish.cli import main as player_main

    return player_main(words)


def without_tls() -> None:
    """Keep `ssl` out of a player's process: asyncio imports it (1 MB resident: the module and libssl) only to
    offer TLS transports, and p2pfish never opens one (its links are ZeroMQ CURVE). asyncio, and every library
    a peer uses, does without it when its import fails; a process that imported it already keeps it."""
    if "ssl" not in sys.modules:
        sys.modules["ssl"] = None  # type: ignore[assignment]  # `import ssl` now raises ImportError


def without_libcrypto() -> None:
    """Keep OpenSSL's libcrypto out of a player's process (3.3 MB resident): hashlib and hmac load it through
    `_hashlib`, but Python's own SHA-256 and HMAC do what p2pfish hashes, and libsodium signs and stretches the join
    code (crypto/ed25519.py, crypto/kdf.py). hashlib and hmac fall back to Python's own when its import fails; a
    process that imported it already keeps it, and so does a Python built without all of its own (hashlib would
    complain of each one missing) or a process with no libsodium that signs and has scrypt (then libcrypto does,
    spared `cryptography`'s 9 MB)."""
    from p2pfish.crypto import sodium

    if "_hashlib" in sys.modules or not all(importlib.util.find_spec(name) for name in builtin_hashes()):
        return
    if sodium.library() is not None:
        sys.modules["_hashlib"] = None  # type: ignore[assignment]  # `import _hashlib` now raises ImportError


def builtin_hashes() -> tuple[str, ...]:
    """The modules of Python's own hashes that hashlib sets up at its import (SHA-2 in one module since 3.12)."""
    sha2 = ("_sha2",) if sys.version_info >= (3, 12) else ("_sha256", "_sha512")
    return ("_md5", "_sha1", *sha2, "_blake2", "_sha3")


def run() -> NoReturn:
    """The `p2pfish` program (`python -m p2pfish` and the installed command)."""
    exit_now(main())


def exit_now(code: int) -> NoReturn:
    """End a `p2pfish` process as soon as its command returned: flush what it printed, then exit without the
    interpreter's teardown, which frees every module and object one by one (0.1-0.3 s after each game here).
    A command has closed what it keeps (its store, its transcript) before it returns."""
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(OSError, ValueError):  # a reader that went away; a stream closed on a broken pipe
            stream.flush()
    os._exit(code)
