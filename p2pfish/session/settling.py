"""Ending a game early without a seat that is gone (PROTOCOL §10.8): each remaining seat signs a settle naming
the gone seat, a turn, the log hash after that turn and the scores so far there; once every seat but the gone
one has signed the same turn, the game ends there with those scores, which any replica (and `verify`) checks
against its own log.

A seat signs only after its own stop naming the gone seat for its silence. It may sign several settles, all
naming that seat, each at an earlier turn than the one before: a peer whose game stopped later than another's
follows it down, but never below the last turn every remaining seat had played before its stop. The game ends
at the highest turn every remaining seat signed, which is the same at every replica whatever order settles
arrive in (each seat's settles come in its chain at ever lower turns). At two seats an early end is one
seat's word, so it names no winner.
"""

from dataclasses import dataclass
from typing import Any

from p2pfish.core.errors import MalformedInput
from p2pfish.core.game import Outcome
from p2pfish.core.wire import field, int_field
from p2pfish.session import bodies
from p2pfish.session.core import MAX_WAITING, Fault, SessionCore, SettleEnded, Settlement
from p2pfish.session.envelope import Envelope, canonical


@dataclass(frozen=True)
class SettleClaim:
    seat: int
    gone: int
    turn: int
    log_hash: bytes
    outcome: bytes
    """The signed outcome, canonical JSON."""
    raw: bytes


def read_claim(envelope: Envelope, players: int) -> SettleClaim:
    body = envelope.body
    bodies.check_fields(body)
    gone, turn = int_field(body, "gone"), int_field(body, "turn")
    if not 0 <= gone < players or gone == envelope.seat:
        raise MalformedInput(f"a settle names seat {gone} as gone, not another seat of the table")
    if turn < 0:
        raise MalformedInput("a settle's turn is a turn number")
    outcome = canonical(field(body, "outcome"))
    return SettleClaim(envelope.seat, gone, turn, bodies.hex_field(body, "log", 32), outcome, envelope.raw)


class Settling(SessionCore):
    """The settles of a session: taking them, checking them against the log, signing this seat's own."""

    def _init_settling(self) -> None:
        self.settlement: Settlement | None = None
        self._claims: dict[int, list[SettleClaim]] = {}
        self._taken_at_stop: list[int] | None = None
        self._checked: dict[bytes, bool] = {}
        """By message: whether a claim's log hash and outcome match this replica's (once it reached the turn)."""

    def settle_offer(self) -> int | None:
        """The seat this seat may end the game without now: the one its own timers named gone, when the game
        counts scores so far (None otherwise, or when it has ended)."""
        fault = self.fault
        if self.seat is None or self.finished or self.settlement is not None or fault is None:
            return None
        if fault.kind != "timeout" or fault.seat is None or fault.seat == self.seat:
            return None
        if self.rules.outcome_so_far(self.state, fault.seat) is None:
            return None
        return fault.seat

    def settled_by(self, seat: int) -> int | None:
        """The gone seat `seat` has signed a settle naming, if any."""
        claims = self._claims.get(seat)
        return claims[0].gone if claims else None

    def settle(self) -> None:
        """Agree to end the game now without the gone seat (`settle_offer`), with the scores so far."""
        gone = self.settle_offer()
        if gone is None:
            raise MalformedInput("there is no gone seat to end the game without")
        lowest = [c.turn for s, cs in self._claims.items() if s != self.seat for c in cs if self._followable(c, gone)]
        self._sign(gone, min([self.turn, *lowest]))
        self._settle_check()

    def _settling(self) -> bool:
        """Whether a stopped session still takes messages: a settle may yet end its game."""
        return not (self.settlement is not None or self.finished or self.fault is None or self.fault.kind != "timeout")

    def _may_take_after_stop(self, seat: int) -> bool:
        """At most MAX_WAITING more messages of each author once stopped: its settles and what precedes them in
        its chain, not a flood — and each author's own allowance, so that one seat's flood cannot keep another
        seat's settle out of some replicas only (they would end at different places)."""
        if self._taken_at_stop is None:
            self._taken_at_stop = self.have()
        return self.chains[seat].next_seq - self._taken_at_stop[seat] < MAX_WAITING

    def _sign(self, gone: int, turn: int) -> None:
        assert self.seat is not None
        mine = self._claims.get(self.seat, [])
        if mine and mine[-1].turn <= turn:
            return
        outcome = self._outcome_at(turn, gone)
        self._emit(bodies.settle(gone, turn, self._turn_hashes[turn], outcome.to_wire()))

    def _claim(self, envelope: Envelope) -> None:
        """A settle of `envelope.seat` (this seat's own included). One that names another gone seat than its
        signer's earlier settles, or no earlier turn, or that no stop of its signer naming that seat for its
        silence precedes, is a violation of its signer. A game that finished here
        ignores them: a seat may have stopped waiting for an `end` that reached this replica only."""
        if self.finished:
            return
        try:
            claim = read_claim(envelope, self.setup.players)
        except MalformedInput as error:
            self._stop(Fault(envelope.seat, "malformed", error.reason, (envelope.raw,)))
            return
        earlier = self._claims.setdefault(claim.seat, [])
        if earlier and (claim.gone != earlier[0].gone or claim.turn >= earlier[-1].turn):
            reason = "signed settles naming different gone seats, or not each at an earlier turn"
            self._stop(Fault(claim.seat, "violation", reason, (earlier[-1].raw, claim.raw)))
            return
        stop = self._own_stop if claim.seat == self.seat else self._stopped.get(claim.seat)
        if stop is None or stop.body.get("kind") != "timeout" or stop.body.get("seat") != claim.gone:
            reason = f"signed a settle without first stopping the game for seat {claim.gone}'s silence"
            self._stop(Fault(claim.seat, "violation", reason, (claim.raw,)))
            return
        earlier.append(claim)

    def _matches(self, claim: SettleClaim, gone: int) -> bool:
        return claim.gone == gone and self._checked.get(claim.raw, False)

    def _followable(self, claim: SettleClaim, gone: int) -> bool:
        """Whether this seat may sign a checked claim's turn: not below the last turn any remaining seat showed,
        by a turn message it signed before its stop, that it had reached. No honest seat stops, so none signs,
        below that turn; a seat that names one lower picks a past turn that suits it (when it led, say)."""
        return self._matches(claim, gone) and claim.turn >= self._floor(gone)

    def _floor(self, gone: int) -> int:
        return min(self._last_turn_played(seat) for seat in range(self.setup.players) if seat != gone)

    def _last_turn_played(self, seat: int) -> int:
        """The highest turn of `seat`'s turn messages before its stop report, as this replica holds them."""
        stop = self._own_stop if seat == self.seat else self._stopped.get(seat)
        chain = self.chains[seat].accepted
        turns = [
            turn
            for envelope in (chain if stop is None else chain[: stop.seq])
            if envelope.kind in bodies.TURN_KINDS and type(turn := envelope.body.get("turn")) is int
        ]
        return max(turns, default=0)

    def _settle_check(self) -> None:
        """Check every claim this replica has reached the turn of; follow a lower turn this seat agreed to; end
        the game once every seat but the gone one signed one turn."""
        if self.settlement is not None or self.finished:
            return
        for claims in self._claims.values():
            for claim in claims:
                if claim.raw not in self._checked and claim.turn < len(self._turn_hashes):
                    self._check_claim(claim)
        mine = self._claims.get(self.seat) if self.seat is not None else None
        if mine and self.settle_offer() == mine[0].gone:
            lowest = [c.turn for cs in self._claims.values() for c in cs if self._followable(c, mine[0].gone)]
            self._sign(mine[0].gone, min([mine[-1].turn, *lowest]))
        for gone in sorted({c.gone for cs in self._claims.values() for c in cs}):
            turn = self._highest_signed_by_all(gone)
            if turn is not None and self._complete(gone, turn):
                signers = tuple(s for s in range(self.setup.players) if s != gone)
                self.settlement = Settlement(gone, turn, self._outcome_at(turn, gone), signers)
                self._events.append(SettleEnded(self.settlement))
                return

    def _highest_signed_by_all(self, gone: int) -> int | None:
        """The highest turn every seat but `gone` has signed a settle at, checked or not. Each seat's settles come
        in its chain at ever lower turns, so a replica holding any turn signed by all holds this one: ending only
        here (once checked) ends every replica at one turn, also one that has not played that turn yet."""
        turns = [
            {c.turn for c in self._claims.get(seat, []) if c.gone == gone}
            for seat in range(self.setup.players)
            if seat != gone
        ]
        common = set.intersection(*turns) if turns else set()
        return max(common, default=None)

    def _check_claim(self, claim: SettleClaim) -> None:
        try:
            expected = canonical(self._outcome_at(claim.turn, claim.gone).to_wire())
        except MalformedInput as error:
            self._checked[claim.raw] = False
            self._stop(Fault(claim.seat, "malformed", f"signed a settle, but {error.reason}", (claim.raw,)))
            return
        good = claim.log_hash == self._turn_hashes[claim.turn] and claim.outcome == expected
        self._checked[claim.raw] = good
        if not good:
            reason = f"signed a settle at turn {claim.turn} with another log or other scores than the rules give"
            self._stop(Fault(claim.seat, "violation", reason, (claim.raw,)))

    def _complete(self, gone: int, turn: int) -> bool:
        return all(
            any(c.turn == turn and self._matches(c, gone) for c in self._claims.get(seat, []))
            for seat in range(self.setup.players)
            if seat != gone
        )

    def _outcome_at(self, turn: int, gone: int) -> Outcome:
        """The scores so far after `turn` turns of this replica's log, without `gone` among the winners."""
        state = self._state_at(turn)
        outcome = self.rules.outcome_so_far(state, gone)
        if outcome is None:
            raise MalformedInput(f"{self.rules.title} has no scores so far to end the game with")
        if self.setup.players == 2:
            return Outcome(outcome.scores, ())
        return outcome

    def _state_at(self, turn: int) -> Any:
        state = self.rules.new_game(self.setup.players, self.setup.option_map)
        for entry in self.log:
            if entry.turn >= turn:
                break
            state = self.rules.apply(state, entry.seat, entry.action)
        return state
