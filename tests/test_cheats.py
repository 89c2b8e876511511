"""Every kind of hostile peer of `p2pfish match --cheat`, in every game where it applies, played through
real sessions in memory: every honest peer stops the game naming the cheat, with the evidence (a
withheld reveal: once its timeout has passed), and what each honest peer logged still verifies up to the
cheat. The same cheats over the network: tests/test_net_cheats.py and scripts/cheat-matrix."""

import pytest
from conformance_helpers import random_table

from p2pfish.core.actions import Dealt
from p2pfish.core.errors import UsageError
from p2pfish.crypto.identity import Identity
from p2pfish.games.registry import GAME_IDS, get_rules
from p2pfish.session.audit import audit
from p2pfish.session.envelope import MAX_MESSAGE_BYTES, open_envelope
from p2pfish.session.memory_table import MemoryTable
from p2pfish.session.session import DROP_AFTER_S, Session
from p2pfish.tools.cheats import (
    DECK_GAMES,
    DECK_KINDS,
    HOST_KINDS,
    KINDS,
    PROCESS_KINDS,
    Cheat,
    CheatingSession,
    make_session,
)

CHEAT = 1
GAMES = GAME_IDS
SESSION_KINDS = [kind for kind in KINDS if kind not in HOST_KINDS + PROCESS_KINDS]
"""The host's lobby attacks are tested in tests/test_session_identity.py and over the network; the attacks on
a peer's process in tests/test_net_cheats.py."""
PASS_KINDS = ("substitute-card", "marked-deck", "rigged-rekey")
CASES = [(game, kind) for game in GAMES for kind in SESSION_KINDS if kind not in DECK_KINDS or game in DECK_GAMES]


def cheat_table(game: str, kind: str, players: int = 3, seed: int = 1) -> MemoryTable:
    signers = [Identity.from_seed(bytes([seat + 1]) * 32) for seat in range(players)]
    table = random_table(game, players, seed)
    cheat = Cheat(CHEAT, kind)
    table.sessions = [
        make_session(cheat, table.setup, seat, signer, table.stores[seat], rules=get_rules(table.setup.game))
        for seat, signer in enumerate(signers)
    ]
    return table


@pytest.mark.parametrize(("game", "kind"), CASES)
def test_every_cheat_is_caught_by_every_honest_peer(game: str, kind: str) -> None:
    table = cheat_table(game, kind)
    table.run()
    cheater = table.sessions[CHEAT]
    assert isinstance(cheater, CheatingSession) and cheater.cheated, "the cheat was tried"
    honest: list[Session] = [s for s in table.sessions if s.seat != CHEAT]
    if kind == "withhold-reveal":
        for session in honest:
            session.tick(0.0)
            session.tick(DROP_AFTER_S)
    for session in honest:
        fault = session.fault
        assert fault is not None, f"seat {session.seat} did not stop"
        assert fault.seat == CHEAT, fault
        assert fault.evidence or fault.kind == "timeout", fault
        assert session.outcome() is None
        own = [raw for raw in session.transcript()[1:] if open_envelope(raw).seat == session.seat]
        assert all(len(raw) <= MAX_MESSAGE_BYTES for raw in own), "its stop report fits, whatever it quotes"
        replayed = audit(session.transcript(), session.rules)
        assert replayed.fault is None or replayed.fault.seat in (None, CHEAT), "its log blames no honest seat"
        if kind in PASS_KINDS:
            assert not any(isinstance(entry.action, Dealt) for entry in session.log), "caught before any deal"


def test_the_cases_are_every_kind_in_every_game_that_the_cheat_accepts() -> None:
    def accepted(game: str, kind: str) -> bool:
        try:
            Cheat(CHEAT, kind).check(game, 3)
        except UsageError:
            return False
        return True

    assert set(CASES) == {(game, kind) for game in GAMES for kind in SESSION_KINDS if accepted(game, kind)}
    assert {kind for _, kind in CASES} == set(SESSION_KINDS)
    assert len(CASES) == len(GAMES) * len(SESSION_KINDS) - 2 * len(DECK_KINDS)


def test_a_cheat_is_parsed_and_checked_strictly() -> None:
    assert Cheat.parse("2:equivocate") == Cheat(2, "equivocate")
    for bad in ("equivocate", "x:replay", "1:", "1:lie", "-1:replay", ":replay"):
        with pytest.raises(UsageError):
            Cheat.parse(bad)
    with pytest.raises(UsageError, match=r"seats are 0\.\.2"):
        Cheat(3, "replay").check("fishnstones", 3)
    with pytest.raises(UsageError, match="deals no cards"):
        Cheat(1, "wrong-card-key").check("fishfish", 3)
    Cheat(1, "wrong-card-key").check("kingfish", 3)
    with pytest.raises(UsageError, match="host's attack"):
        Cheat(1, "reused-game").check("kingfish", 3)


def test_an_honest_seat_stays_honest_at_a_table_with_a_cheat() -> None:
    table = cheat_table("fishnstones", "equivocate")
    assert [type(s) for s in table.sessions] == [Session, CheatingSession, Session]
