"""A bot peer's process loads only what it uses: its peak memory is mostly the libraries it loads (bench:
peer_rss_mb). Run in a fresh interpreter, as `python -m p2pfish join` starts one."""

import importlib.util
import json
import subprocess
import sys

import pytest

from p2pfish import launcher
from p2pfish.crypto import sodium

NOT_FOR_A_BOT_PEER = (
    "ssl", "_hashlib", "cryptography", "ifaddr", "zeroconf", "prompt_toolkit", "p2pfish.bots.engine",
)  # fmt: skip
"""TLS (never used: the mesh is CURVE), OpenSSL's libcrypto through hashlib and `cryptography` (Ed25519 and scrypt
come from libsodium), the interface list and mDNS (a host's and a lobby browser's), the terminal UI (a person's), the
engine runner (an engine's)."""

OWN_HASHES = all(importlib.util.find_spec(name) for name in launcher.builtin_hashes())
"""Whether this Python has all its own hash modules (a FIPS build may not: then a peer keeps libcrypto)."""

PROBE = """
import json, sys
from p2pfish import launcher
try:
    launcher.main(["--version"])  # what a player's process blocks before it loads its command
except SystemExit:
    pass
import p2pfish.cli, p2pfish.netplay
from p2pfish.games.registry import get_rules, make_bot
from p2pfish.crypto.identity import Identity, verify
import random
get_rules("kingfish"); make_bot("greedy", "kingfish", random.Random(1))
signer = Identity.from_seed(bytes(32))
assert verify(signer.public_bytes, b"m", signer.sign(b"m"))
from p2pfish.net.lobby import code_key, hmac
import hashlib
assert len(code_key("ABC-DEF")) == 32 and hmac.new(b"k", b"m", hashlib.sha256).digest()
print(json.dumps(sorted(name for name in sys.modules if sys.modules[name] is not None)))
"""


def test_a_bot_peer_loads_neither_tls_nor_libcrypto_nor_cryptography_nor_the_lobby_browser() -> None:
    done = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True, timeout=60, check=True)
    loaded = set(json.loads(done.stdout.splitlines()[-1]))
    assert "p2pfish.netplay" in loaded
    unwanted = set(NOT_FOR_A_BOT_PEER) - (set() if OWN_HASHES else {"_hashlib"})
    assert not loaded.intersection(unwanted), sorted(loaded.intersection(unwanted))


@pytest.mark.skipif(not OWN_HASHES, reason="this Python lacks some of its own hash modules (a FIPS build?)")
def test_a_python_without_all_of_its_own_hashes_keeps_libcrypto(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delitem(sys.modules, "_hashlib")
    assert sodium.library() is not None
    find_spec = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name: None if name == "_md5" else find_spec(name))
    launcher.without_libcrypto()
    assert "_hashlib" not in sys.modules
    monkeypatch.setattr(importlib.util, "find_spec", find_spec)
    launcher.without_libcrypto()
    assert sys.modules["_hashlib"] is None


def test_a_process_without_a_libsodium_that_signs_keeps_libcrypto(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delitem(sys.modules, "_hashlib")
    monkeypatch.setattr(sodium, "library", lambda: None)
    launcher.without_libcrypto()
    assert "_hashlib" not in sys.modules
