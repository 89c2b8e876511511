"""Chance turns: a public draw from joint randomness. Every seat commits to a random contribution;
once every commitment is in, each reveals; the seed of all reveals picks the draw.

Draws are pipelined (PROTOCOL §10.2): each reveal carries the seat's commitment to its contribution to
the next draw, so only the game's first draw has a commit phase; every later one starts with every
commitment already held and costs one round of reveals."""

from p2pfish.core.actions import Chance
from p2pfish.core.errors import ProtocolViolation
from p2pfish.core.wire import Scalar
from p2pfish.crypto.commitment import check_opening, commit, new_nonce
from p2pfish.crypto.randomness import (
    contribution_purpose,
    draw_indices,
    joint_seed,
    new_contribution,
    next_draw_purpose,
)
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
        seed_purpose = contribution_purpose(f"{self.turn}:{purpose}")
        carried_from = self._carried_from
        if carried_from is None:
            commit_purpose, secret = seed_purpose, f"rand/{self.turn}"
        else:
            commit_purpose, secret = next_draw_purpose(carried_from), next_draw_purpose(carried_from)
            if not self._rand_commits:
                self._rand_commits.update(self._carried)
        progress = False
        if carried_from is None and self.seat is not None and (self.turn, RAND_COMMIT) not in self._sent:
            contribution, nonce = self._contribution(secret)
            digest = commit(self.session_id, self.seat, commit_purpose, value=contribution, nonce=nonce)
            self._emit(bodies.rand_commit(self.turn, digest))
            progress = True
        for seat in range(players):
            if seat not in self._rand_commits and (envelope := self._take(seat, RAND_COMMIT)) is not None:
                self._rand_commits[seat] = hex_field(envelope.body, "digest", 32)
                progress = True
        if len(self._rand_commits) < players:
            return progress
        if self.seat is not None and (self.turn, RAND_REVEAL) not in self._sent:
            following, following_nonce = self._contribution(next_draw_purpose(self.turn))
            following_purpose = next_draw_purpose(self.turn)
            next_digest = commit(self.session_id, self.seat, following_purpose, value=following, nonce=following_nonce)
            self._emit(bodies.rand_reveal(self.turn, *self._contribution(secret), next_digest))
            progress = True
        for seat in range(players):
            if seat not in self._rand_reveals and (envelope := self._take(seat, RAND_REVEAL)) is not None:
                contribution = hex_field(envelope.body, "contribution", 32)
                nonce = hex_field(envelope.body, "nonce", 32)
                following_digest = hex_field(envelope.body, "next", 32)
                digest = self._rand_commits[seat]
                if not check_opening(digest, self.session_id, seat, commit_purpose, value=contribution, nonce=nonce):
                    raise ProtocolViolation("its random contribution does not open its commitment", seat)
                self._rand_reveals[seat] = contribution
                self._rand_next[seat] = following_digest
                progress = True
        if len(self._rand_reveals) < players:
            return progress
        seed = joint_seed(self.session_id, seed_purpose, [self._rand_reveals[s] for s in range(players)])
        self._carried, self._carried_from = dict(self._rand_next), self.turn
        self._rand_commits.clear()
        self._rand_reveals.clear()
        self._rand_next.clear()
        self._apply_chance(Chance(tuple(pool[i] for i in draw_indices(seed, len(pool), count))))
        return True

    def _contribution(self, name: str) -> tuple[bytes, bytes]:
        """This seat's contribution and nonce stored under `name`, made and stored before first use."""
        record = self._secrets.get(name)
        if not isinstance(record, dict):
            record = {"contribution": new_contribution().hex(), "nonce": new_nonce().hex()}
            self._save_secret(name, record)
        return bytes.fromhex(str(record["contribution"])), bytes.fromhex(str(record["nonce"]))
