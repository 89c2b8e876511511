"""Chance turns: a public draw from joint randomness. Every seat commits to a random contribution;
once every commitment is in, each reveals; the seed of all reveals picks the draw."""

from p2pfish.core.actions import Chance
from p2pfish.core.errors import ProtocolViolation
from p2pfish.core.wire import Scalar
from p2pfish.crypto.commitment import check_opening, commit, new_nonce
from p2pfish.crypto.randomness import contribution_purpose, draw_indices, joint_seed, new_contribution
from p2pfish.session import bodies
from p2pfish.session.bodies import (
    RAND_COMMIT,
    RAND_REVEAL,
    hex_field,
)
from p2pfish.session.core import SessionCore


class RandomTurns(SessionCore):
    def _chance_turn(self, purpose: str, pool: tuple[Scalar, ...], count: int) -> bool:
        players = self.setup.players
        event = f"{self.turn}:{purpose}"
        rand_purpose = contribution_purpose(event)
        progress = False
        if self.seat is not None and (self.turn, RAND_COMMIT) not in self._sent:
            contribution, nonce = self._contribution()
            digest = commit(self.session_id, self.seat, rand_purpose, value=contribution, nonce=nonce)
            self._emit(bodies.rand_commit(self.turn, digest))
            progress = True
        for seat in range(players):
            if seat not in self._rand_commits and (envelope := self._take(seat, RAND_COMMIT)) is not None:
                self._rand_commits[seat] = hex_field(envelope.body, "digest", 32)
                progress = True
        if len(self._rand_commits) < players:
            return progress
        if self.seat is not None and (self.turn, RAND_REVEAL) not in self._sent:
            self._emit(bodies.rand_reveal(self.turn, *self._contribution()))
            progress = True
        for seat in range(players):
            if seat not in self._rand_reveals and (envelope := self._take(seat, RAND_REVEAL)) is not None:
                contribution = hex_field(envelope.body, "contribution", 32)
                nonce = hex_field(envelope.body, "nonce", 32)
                digest = self._rand_commits[seat]
                if not check_opening(digest, self.session_id, seat, rand_purpose, value=contribution, nonce=nonce):
                    raise ProtocolViolation("its random contribution does not open its commitment", seat)
                self._rand_reveals[seat] = contribution
                progress = True
        if len(self._rand_reveals) < players:
            return progress
        seed = joint_seed(self.session_id, rand_purpose, [self._rand_reveals[s] for s in range(players)])
        self._rand_commits.clear()
        self._rand_reveals.clear()
        self._apply_chance(Chance(tuple(pool[i] for i in draw_indices(seed, len(pool), count))))
        return True

    def _contribution(self) -> tuple[bytes, bytes]:
        """This seat's contribution and nonce for the current chance turn, stored before first use."""
        name = f"rand/{self.turn}"
        record = self._secrets.get(name)
        if not isinstance(record, dict):
            record = {"contribution": new_contribution().hex(), "nonce": new_nonce().hex()}
            self._save_secret(name, record)
        return bytes.fromhex(str(record["contribution"])), bytes.fromhex(str(record["nonce"]))
