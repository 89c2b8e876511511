"""Several sessions in one process, joined by an in-memory network that may reorder and repeat.

Used by tests, benchmarks and vector generation: everything a real game does except sockets.
"""

import functools
import random
from collections.abc import Sequence

from p2pfish.core.game import AnyRules
from p2pfish.core.player import Player
from p2pfish.session import runner
from p2pfish.session.envelope import Signer
from p2pfish.session.session import Session
from p2pfish.session.setup import GameSetup
from p2pfish.session.store import MemoryStore, Store


class MemoryTable:
    def __init__(
        self,
        setup: GameSetup,
        signers: Sequence[Signer],
        players: Sequence[Player | None],
        *,
        rules: AnyRules,
        rng: random.Random | None = None,
        duplicate: float = 0.0,
        stores: Sequence[Store] | None = None,
    ) -> None:
        self.setup = setup
        self.players = list(players)
        """Who plays each seat; None: the seat is played from outside (a test's cheater, the UI's person), which
        then calls `collect`."""
        self.stores: list[Store] = list(stores) if stores is not None else [MemoryStore() for _ in signers]
        self.sessions = [
            Session(setup, seat, signer, self.stores[seat], rules=rules) for seat, signer in enumerate(signers)
        ]
        self.rng = rng
        self.duplicate = duplicate
        self.in_flight: list[tuple[int, int, bytes]] = []
        """(to seat, from seat, message)."""
        self.delivered = 0

    def start(self) -> None:
        for session in self.sessions:
            session.start()
            self._collect(session)

    def run(self, max_deliveries: int = 1_000_000) -> None:
        """Start, then deliver and decide until nothing is left to do (the game ended, stopped or stalled)."""
        self.start()
        self.settle(max_deliveries)

    def settle(self, max_deliveries: int | None = None) -> None:
        """Deliver and decide until nothing is left to do (or `max_deliveries` were delivered in all)."""
        while (max_deliveries is None or self.delivered < max_deliveries) and self.step():
            pass

    def step(self) -> bool:
        """Let every seat due to decide do so, then deliver one message; False when all is quiet."""
        decided = self.decide()
        return self.deliver_next() or decided

    def deliver_next(self) -> bool:
        """Deliver one message in flight (a random one when there is an rng); False if none is."""
        if not self.in_flight:
            return False
        index = self.rng.randrange(len(self.in_flight)) if self.rng else 0
        to, via, raw = self.in_flight.pop(index)
        if self.rng and self.rng.random() < self.duplicate:
            self.in_flight.append((to, via, raw))
        self.deliver(to, raw, via)
        return True

    def deliver(self, to: int, raw: bytes, via: int | None) -> None:
        session = self.sessions[to]
        session.receive(raw, via)
        self.delivered += 1
        self._collect(session)

    def decide(self) -> bool:
        """Let every seat with a player make its due move, once (a seat without one is played from outside):
        one decision per seat between deliveries, so that the delivery order, not the seat order, decides
        who runs ahead."""
        decided = False
        for seat, session in enumerate(self.sessions):
            if runner.decide(session, self.players[seat]):
                self._collect(session)
                decided = True
        return decided

    def collect(self, session: Session) -> None:
        """Put what `session` has to send in flight (after it was driven from outside)."""
        self._collect(session)

    def _collect(self, session: Session) -> None:
        assert session.seat is not None
        runner.flush(session, functools.partial(self._put, session.seat))

    def _put(self, seat: int, raw: bytes) -> None:
        """A message `seat`'s session produced, in flight to every other seat."""
        self.in_flight.extend((to, seat, raw) for to in range(len(self.sessions)) if to != seat)
