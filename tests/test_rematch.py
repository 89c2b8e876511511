"""A rematch in one key press: after the end, `r` starts a new game with the same table — a new session id
(every seat's fresh contribution, through the normal lobby), the same players in the same seats — which
plays to its end. `p2pfish play` starts its same bots again; at a networked table the host opens its lobby
again and each joiner who pressed `r` joins it."""

import asyncio
from pathlib import Path

import pytest
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output import DummyOutput
from rematch_helpers import play_games, record_fronts

from p2pfish.botpeers import BotPeers
from p2pfish.games.registry import get_rules
from p2pfish.net.joincode import new_join_code
from p2pfish.playstart import LOOPBACK, reserve_port
from p2pfish.session.audit import audit, transcript_setup
from p2pfish.session.setup import GameSetup
from p2pfish.uiplay import play_local


def finished_games(state: Path) -> list[GameSetup]:
    """The setups of the games whose transcripts are in `state`, each checked: verified and finished."""
    setups = []
    for path in sorted(state.glob("*.transcript.jsonl"), key=lambda path: path.stat().st_mtime):
        lines = path.read_bytes().splitlines()
        setup = transcript_setup(lines)
        result = audit(lines, get_rules(setup.game))
        assert result.verified and result.outcome is not None, path
        setups.append(setup)
    return setups


@pytest.fixture
def homes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    return tmp_path / "state" / "p2pfish"


def test_play_rematch_starts_a_new_game_with_the_same_bots_in_the_same_seats(
    homes: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fronts = record_fronts(monkeypatch.setattr)
    with reserve_port() as reservation:
        port, code = reservation.getsockname()[1], new_join_code()
        bots = BotPeers(3)
        bots.open(f"{LOOPBACK}:{port}", code)
        bots.add("greedy")
        try:
            with create_pipe_input() as pipe:

                async def scenario() -> int:
                    playing = asyncio.ensure_future(play_local(
                        "fishfish", bots, port, code, ascii_only=True, name="ann", input=pipe, output=DummyOutput()
                    ))  # fmt: skip
                    await play_games(fronts, pipe, "rq")
                    return await asyncio.wait_for(playing, 30)

                assert asyncio.run(scenario()) == 0
        finally:
            bots.stop()
    assert "r rematch with the same bots" in fronts[0].app._hints()[0][1]
    first, second = finished_games(homes)
    assert first.session_id != second.session_id
    assert (first.roster, first.names) == (second.roster, second.names)
    assert first.names == ("ann", "greedy bot 1")
    assert set(first.contributions).isdisjoint(second.contributions)
    assert not bots.workdir.exists() and bots.running() == 0
