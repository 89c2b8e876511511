"""A bot peer's process loads only what it uses: its peak memory is mostly the libraries it loads (bench:
peer_rss_mb). Run in a fresh interpreter, as `python -m p2pfish join` starts one."""

import importlib.util
import json
import subprocess
import sys

import pytest

from p2pfish import launcher

NOT_FOR_A_BOT_PEER = (
    "ssl", "_hashlib", "cryptography", "ifaddr", "zeroconf", "prompt_toolkit", "p2pfish.bots.engine",
)  # fmt: skip
"""TLS (never used: the mesh is CURVE), OpenSSL's libcrypto through hashlib and `cryptography` (Ed25519 and scrypt
come from libsodium), the interface list and mDNS (a host's and a lobby browser's), the terminal UI (a person's), the
engine runner (an engine's)."""

PROBE = """
import json, sys
from p2pfish.launcher import without_libcrypto, without_tls
without_tls()
without_libcrypto()
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
    loaded = set(json.loads(done.stdout))
    assert "p2pfish.netplay" in loaded
    assert not loaded.intersection(NOT_FOR_A_BOT_PEER), sorted(loaded.intersection(NOT_FOR_A_BOT_PEER))


def test_a_python_without_all_of_its_own_hashes_keeps_libcrypto(monkeypatch: pytest.MonkeyPatch) -> None:
    assert all(importlib.util.find_spec(name) for name in launcher.builtin_hashes()), "this Python has them all"
    monkeypatch.delitem(sys.modules, "_hashlib")
    monkeypatch.setattr(importlib.util, "find_spec", lambda name: None if name == "_md5" else object())
    launcher.without_libcrypto()
    assert "_hashlib" not in sys.modules
    monkeypatch.setattr(importlib.util, "find_spec", lambda name: object())
    launcher.without_libcrypto()
    assert sys.modules["_hashlib"] is None
