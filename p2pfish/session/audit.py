"""Offline audit of a transcript: replay every line through an observer session.

An observer checks everything a player's session checks — signatures, hash chains, commitment
openings, the joint-randomness draws, every rule, the end-of-game openings and the signed log
hashes — without holding any secret.
"""

import json
from collections.abc import Sequence
from dataclasses import dataclass

from p2pfish.core.errors import MalformedInput
from p2pfish.core.game import AnyRules, Outcome
from p2pfish.core.wire import as_object, field, str_field
from p2pfish.session.envelope import open_envelope
from p2pfish.session.session import Fault, Session, Settlement
from p2pfish.session.setup import GameSetup
from p2pfish.session.store import MemoryStore

TRANSCRIPT_TYPE = "p2pfish-transcript"


@dataclass(frozen=True)
class AuditResult:
    setup: GameSetup
    messages: int
    outcome: Outcome | None
    fault: Fault | None
    waiting_for: tuple[int, ...]
    """When the transcript stops before the end: the seats the game was waiting for."""
    settlement: Settlement | None = None
    """When every seat but a gone one signed an early end (PROTOCOL §10.8): where, and the scores so far."""

    @property
    def verified(self) -> bool:
        return self.outcome is not None and self.fault is None


def transcript_setup(lines: Sequence[bytes]) -> GameSetup:
    """The setup a transcript's header line holds: its game's id says whose rules `audit` wants."""
    if not lines:
        raise MalformedInput("the transcript is empty")
    return read_setup(lines[0])


def read_setup(header: bytes) -> GameSetup:
    try:
        obj = as_object(json.loads(header), "the transcript header")
    except ValueError:
        raise MalformedInput("the first line is not a JSON transcript header") from None
    except RecursionError:
        raise MalformedInput("the first line is not a transcript header: its JSON is nested too deep") from None
    if str_field(obj, "type") != TRANSCRIPT_TYPE:
        raise MalformedInput(f"the first line is not a {TRANSCRIPT_TYPE} header")
    return GameSetup.from_wire(field(obj, "setup"))


def audit(lines: Sequence[bytes], rules: AnyRules) -> AuditResult:
    """Verify a transcript (header line first) of the game `rules` are of (the header's, `transcript_setup`).
    Raises MalformedInput if the header is unreadable or names another game."""
    auditor = Auditor(transcript_setup(lines), rules)
    for raw in lines[1:]:
        auditor.feed(raw)
    return auditor.result()


class Auditor:
    """The audit fed a transcript's messages one at a time, in its order: after the same lines it gives what
    `audit` gives (so a game can be audited while it is played, `p2pfish match`)."""

    def __init__(self, setup: GameSetup, rules: AnyRules) -> None:
        self.setup = setup
        self.messages = 0
        self._session_id = setup.session_id
        self._observer = Session(setup, None, None, MemoryStore(), rules=rules)
        self._altered = False

    def feed(self, raw: bytes) -> None:
        """The transcript's next line (a blank one is skipped); after a fault the rest are only counted."""
        if not raw.strip():
            return
        self.messages += 1
        if self._altered or self._observer.fault is not None:
            return
        if _belongs_elsewhere(raw, self._session_id):
            self._altered = True
            return
        self._observer.receive(raw)

    def result(self) -> AuditResult:
        if self._altered:
            fault = Fault(None, "violation", "the header does not match the messages: the transcript was altered")
            return AuditResult(self.setup, self.messages, None, fault, ())
        observer = self._observer
        return AuditResult(
            self.setup, self.messages, observer.outcome(), observer.fault, observer.waiting_for(), observer.settlement
        )


def _belongs_elsewhere(raw: bytes, session_id: bytes) -> bool:
    try:
        return open_envelope(raw).session != session_id
    except MalformedInput:
        return False
