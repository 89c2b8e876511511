"""The registry loads a game's package only when that game is asked for: a process that plays one game (its rules,
its bots, its terminal kit, the production wiring of play, host, join, resume and watch) never imports another
game's code (issue 17: import only the chosen game)."""

import json
import random
import subprocess
import sys

import pytest

from p2pfish.bots.random_bot import RandomBot
from p2pfish.core.errors import MalformedInput
from p2pfish.crypto.identity import Identity
from p2pfish.games.registry import FOLDERS, GAME_IDS, game_of, games, get_rules, make_bot
from p2pfish.session.audit import audit
from p2pfish.session.memory_table import MemoryTable
from p2pfish.session.session import Session
from p2pfish.session.setup import GameSetup
from p2pfish.session.store import MemoryStore

WIRING = """
import contextlib, io, json, random, sys
import p2pfish.cli, p2pfish.netplay, p2pfish.uiplay, p2pfish.watch
from p2pfish.games.registry import game_of
game = game_of({game!r})
game.rules.new_game(game.rules.min_players, {{}})
game.greedy(random.Random(0))
game.ui()
if {play!r}:
    with contextlib.redirect_stdout(io.StringIO()):
        p2pfish.watch.watch_game({game!r}, 1, 7)
print(json.dumps(sorted({{name.split(".")[2] for name in sys.modules if name.startswith("p2pfish.games.")}})))
"""


def games_loaded(game_id: str, play: bool) -> list[str]:
    """The game packages (and the registry's own modules) a fresh process holds after wiring up `game_id`."""
    code = WIRING.format(game=game_id, play=play)
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True)
    loaded: list[str] = json.loads(done.stdout.splitlines()[-1])
    return loaded


@pytest.mark.parametrize("game_id", GAME_IDS)
def test_wiring_up_one_game_imports_no_other_game(game_id: str) -> None:
    assert set(games_loaded(game_id, play=False)) & set(GAME_IDS) == {game_id}


def test_a_whole_game_in_one_process_imports_no_other_game() -> None:
    """Sessions, bots, the kit's narration and board: a watched Fish'n'Stones game, start to end."""
    assert set(games_loaded("fishnstones", play=True)) & set(GAME_IDS) == {"fishnstones"}


def test_the_registry_lists_every_folder_once_under_its_own_id() -> None:
    assert [game.id for game in games()] == list(GAME_IDS) == list(FOLDERS)
    assert all(game_of(game.id) is game for game in games())


def test_an_unknown_game_is_refused_in_one_line() -> None:
    with pytest.raises(MalformedInput, match="unknown game 'chess' \\(known: fishnstones, kunayala"):
        game_of("chess")
    with pytest.raises(MalformedInput, match="no 'clever' bot"):
        make_bot("clever", "kingfish", random.Random(0))


def test_a_session_refuses_rules_of_another_game_than_its_setup() -> None:
    """Rules are handed to a session, never looked up by it: a setup of one game with another game's rules is
    refused in one clear line, for a seat, an observer, a table and an audit alike."""
    signers = [Identity.from_seed(bytes([seat + 1]) * 32) for seat in range(2)]
    setup = GameSetup.create("fishnstones", {}, tuple(s.public_bytes for s in signers), ("a", "b"))
    wrong = get_rules("kunayala")
    expected = "rules of kunayala handed to a session of fishnstones"
    with pytest.raises(MalformedInput, match=expected):
        Session(setup, 0, signers[0], MemoryStore(), rules=wrong)
    with pytest.raises(MalformedInput, match=expected):
        Session(setup, None, None, MemoryStore(), rules=wrong)
    with pytest.raises(MalformedInput, match=expected):
        MemoryTable(setup, signers, [None, None], rules=wrong)
    table = MemoryTable(
        setup, signers, [RandomBot(random.Random(seat)) for seat in range(2)], rules=get_rules("fishnstones")
    )
    table.run()
    transcript = table.sessions[0].transcript()
    assert audit(transcript, table.sessions[0].rules).verified
    with pytest.raises(MalformedInput, match=expected):
        audit(transcript, wrong)
