"""The logs tell what a player at the table would see (cards turned up, fish eaten, cursed, caught, kept),
Fish'n'Stones is drawn and told from each seat's own shore, the end leaves its result in the terminal, and
waiting reads as thinking or as a lost link, never as "no answer for a while"."""

import random
import re
from pathlib import Path

import pytest
from ui_helpers import text

from p2pfish import __version__
from p2pfish.cli import EXIT_USAGE, main
from p2pfish.core.actions import Action
from p2pfish.crypto.identity import Identity
from p2pfish.games.fishnstones.kit import KIT as FISHNSTONES
from p2pfish.games.registry import get_rules, kit_for, make_bot
from p2pfish.net.node import NodeTimers, PeerSilent
from p2pfish.netplay import PeerOptions
from p2pfish.selfplay import Step, play_game
from p2pfish.session.core import DROP_AFTER_S
from p2pfish.session.memory_table import MemoryTable
from p2pfish.session.session import Slow
from p2pfish.session.setup import GameSetup
from p2pfish.ui.narrator import Narrator
from p2pfish.uiplay import UiFrontend

NAMES = ("Ann", "Bob", "Carla", "Dan")


def narrated(game: str, players: int, seed: int) -> list[str]:
    """A rules-only game of random bots, told as seat 0 reads it."""
    rules = get_rules(game)
    events: list[tuple[int | None, Action]] = []

    def hook(step: Step) -> None:
        events.append((step.seat, step.action))

    bots = [make_bot("random", game, random.Random(seed * 10 + seat)) for seat in range(players)]
    play_game(rules, players, {}, bots, random.Random(seed), on_step=hook)
    narrator = Narrator(rules, {}, kit_for(game), seat=0, names=NAMES[:players])
    return narrator.lines(events, {})


def test_kuna_yala_names_the_cards_and_tells_sharks_curses_and_octopuses() -> None:
    lines = [line for seed in range(6) for line in narrated("kunayala", 4, seed)]
    assert not any("face-up card" in line for line in lines)
    assert any(re.search(r"sets a shark on \w+'s .* fish.*: the shark eats it\.", line) for line in lines)
    assert any("The fishes' curse: " in line and "turn to bones at (" in line for line in lines)
    given = r"An octopus is turned up: it goes to \w+, who has the most corals"
    assert any(re.search(given, line) for line in lines)
    assert any("An octopus is turned up and discarded" in line for line in lines)


def test_king_fish_draws_cards_as_the_board_does_and_tells_what_the_rules_reel_in() -> None:
    lines = [line for seed in range(3) for line in narrated("kingfish", 4, seed)]
    assert not any(re.search(r"\b(10|[2-9AJQK])[SHDC]\b", line) for line in lines), "a card as a label"
    assert any(re.search(r"\b(10|[2-9AJQK])[♠♥♦♣]", line) for line in lines)
    assert any("the only fish to take" in line for line in lines)
    assert any("caught nothing" in line for line in lines)


def test_fish_fish_tells_the_points_a_revealed_card_settles() -> None:
    lines = narrated("fishfish", 4, 1)
    assert any("reveals the Peche card" in line and "Points: " in line for line in lines)


def test_fishnstones_names_another_seats_cat_by_its_spots_and_what_a_fisher_took() -> None:
    for seed in range(3):
        lines = narrated("fishnstones", 4, seed)
        reveals = [line for line in lines if "reveals the cat" in line]
        spots = r"the column [a-c][1-3] [a-c][1-3] [a-c][1-3]\.$"
        assert reveals and all(re.search(spots, line) for line in reveals)
        assert not any(re.search(r"column \d", line) for line in lines)
        assert any(re.search(r"fishes [a-c][1-3] and takes \d+ cards?", line) for line in lines)


@pytest.mark.parametrize(
    ("players", "seat", "far", "labels"),
    [(2, 0, "Bob", "a b c"), (2, 1, "Ann", "c b a"), (4, 1, "Dan", "3 2 1"), (4, 3, "Bob", "1 2 3")],
)
def test_fishnstones_is_drawn_from_each_seats_own_shore(players: int, seat: int, far: str, labels: str) -> None:
    rules = get_rules("fishnstones")
    view = rules.view(rules.new_game(players, {}), seat, {})
    rows = text(FISHNSTONES.board(view, NAMES[:players], None, True, 66)).split("\n")
    assert far in rows[0]
    assert rows[1].split() == labels.split()
    assert any(NAMES[seat] + " (you)" in row for row in rows[-3:])


def test_leaving_the_end_prints_the_scores_the_winner_and_the_transcript(tmp_path: Path) -> None:
    players = 3
    signers = [Identity.from_seed(bytes([seat + 1]) * 32) for seat in range(players)]
    setup = GameSetup.create("fishnstones", {}, tuple(s.public_bytes for s in signers), NAMES[:players])
    bots = [make_bot("greedy", "fishnstones", random.Random(seat)) for seat in range(players)]
    table = MemoryTable(setup, signers, bots, rules=get_rules(setup.game), rng=random.Random(2))
    table.start()
    while table.step():
        pass
    session = table.sessions[0]
    assert session.finished
    front = UiFrontend(PeerOptions("Ann", "", 0, None, None, None, False, NodeTimers()), ascii_only=True)
    front.names, front.kit, front.store = NAMES[:players], FISHNSTONES, tmp_path / "game-seat0.sqlite"
    summary = front.summary(session)
    outcome = session.outcome()
    assert outcome is not None
    for seat in range(players):
        assert re.search(rf"{NAMES[seat]} +{outcome.scores[seat]} points", summary), summary
    assert "Winner: " + NAMES[outcome.winners[0]] in summary
    transcript = tmp_path / "game-seat0.transcript.jsonl"
    assert f"Transcript: {transcript}" in summary and transcript.read_bytes().count(b"\n") > 10


def test_a_slow_player_is_not_told_as_lost_and_a_silent_link_is() -> None:
    front = UiFrontend(PeerOptions("Ann", "", 0, None, None, None, False, NodeTimers()), ascii_only=True)
    front.names = NAMES
    front.event(Slow(1))
    assert not any("no answer" in line for _, line in front.app.model.log)
    front.event(PeerSilent(2, 2.4))
    assert ("announce", "Lost contact with Carla: nothing heard for 2 s.") in front.app.model.log


def test_the_session_tells_the_time_left_before_its_timeout() -> None:
    signers = [Identity.from_seed(bytes([seat + 1]) * 32) for seat in range(2)]
    setup = GameSetup.create("fishnstones", {}, tuple(s.public_bytes for s in signers), NAMES[:2])
    table = MemoryTable(
        setup,
        signers,
        [make_bot("random", "fishnstones", random.Random(s)) for s in range(2)],
        rules=get_rules(setup.game),
    )
    session = table.sessions[0]
    session.tick(100.0)
    assert 1 in session.waiting_for() and not session.deciding(1)
    assert session.time_left(1, 110.0) == pytest.approx(DROP_AFTER_S - 10.0)


def test_version_and_the_pace_of_watch(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as leaving:
        main(["--version"])
    assert leaving.value.code == 0 and capsys.readouterr().out.strip() == f"p2pfish {__version__}"
    assert main(["watch", "fishnstones", "--pace", "-1"]) == EXIT_USAGE
    assert "--pace must be 0 to 60 seconds" in capsys.readouterr().err
    assert main(["watch", "fishnstones", "--bots", "1", "--seed", "4", "--pace", "0.001"]) == 0
    assert "reveals the cat: the column" in capsys.readouterr().out
