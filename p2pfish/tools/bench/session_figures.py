"""Session figures: the cost of verifying and applying one signed message."""

import random
import time

from p2pfish.bots.random_bot import RandomBot
from p2pfish.crypto.identity import Identity, verify
from p2pfish.games.fishnstones.rules import RULES
from p2pfish.session.memory_table import MemoryTable
from p2pfish.session.session import Session
from p2pfish.session.setup import GameSetup
from p2pfish.session.store import MemoryStore

REPEATS = 5


def _game_messages(players: int = 4) -> tuple[GameSetup, list[bytes]]:
    signers = [Identity.from_seed(bytes([seat + 1]) * 32) for seat in range(players)]
    setup = GameSetup.create("fishnstones", {}, tuple(s.public_bytes for s in signers), ("a", "b", "c", "d"))
    rng = random.Random(3)
    table = MemoryTable(setup, signers, [RandomBot(rng)] * players, rules=RULES)
    table.run()
    return setup, table.sessions[0].accepted


def apply_signed_ms() -> float:
    """Mean ms for a peer to decode, verify, chain, and apply one message of a whole 4-player game
    (best of 5 replays of the full game by an observer session)."""
    setup, messages = _game_messages()
    best = float("inf")
    for _ in range(REPEATS):
        observer = Session(setup, None, None, MemoryStore(), rules=RULES)
        started = time.perf_counter()
        for raw in messages:
            observer.receive(raw)
        best = min(best, time.perf_counter() - started)
        assert observer.finished and observer.fault is None
    return round(best / len(messages) * 1000, 4)


def ed25519_verify_ms() -> float:
    """Baseline for apply_signed_ms: one bare Ed25519 verification of a message of the same size."""
    signer = Identity.from_seed(bytes(32))
    message = bytes(300)
    signature = signer.sign(message)
    rounds = 2000
    started = time.perf_counter()
    for _ in range(rounds):
        verify(signer.public_bytes, message, signature)
    return round((time.perf_counter() - started) / rounds * 1000, 4)
