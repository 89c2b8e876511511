"""The crash soak (p2pfish/tools/soak.py): bot matches whose victim is killed with SIGKILL and resumed finish
agreed, verified and with nothing lost; and a match that is not so is reported as a failure.
`scripts/crash-soak` runs the long soak (50 matches); here a few matches keep it short."""

import dataclasses
from pathlib import Path

import pytest

from p2pfish.games.registry import game_of
from p2pfish.tools.soak import GAMES, CrashRun, Verdict, check_crash, crash_match, soak_plan, summary


@pytest.mark.parametrize(("game", "players", "seed"), [("fishnstones", 3, 11), ("fishfish", 3, 4)])
def test_a_peer_killed_at_a_random_point_resumes_and_the_match_ends_agreed_with_nothing_lost(
    game: str, players: int, seed: int, tmp_path: Path
) -> None:
    result = crash_match(game, players, seed, workdir=tmp_path)
    assert result.ok, result
    assert result.finished and result.agree and result.verified and result.intact and result.reason is None
    assert result.killed_at is not None and result.killed_at >= result.kill_at
    assert result.outcome is not None
    scores = result.outcome["scores"]
    assert isinstance(scores, list) and len(scores) == players
    assert (tmp_path / f"seat{result.victim}-resumed.log").exists()
    assert "ok, scores" in result.line()


def test_a_broken_match_is_reported_as_a_failure_naming_what_broke(tmp_path: Path) -> None:
    """One real crash match (its victim killed 47 messages in), then the check run on copies broken in
    four ways: a stored message missing from the resumed peer's log, a peer's log altered, the outcomes
    differing, a peer without a result. Each one fails, naming what broke."""
    broken: dict[str, Verdict] = {}

    def tamper(run: CrashRun, name: str, lines: list[bytes]) -> Path:
        path = run.workdir / f"{name}.jsonl"
        path.write_bytes(b"\n".join(lines) + b"\n")
        return path

    def breaking_check(run: CrashRun) -> Verdict:
        honest = check_crash(run)
        assert honest.ok, honest
        resumed = run.transcripts[run.victim].read_bytes().splitlines()
        other = next(seat for seat in range(run.players) if seat != run.victim)
        lost = [*run.transcripts]
        lost[run.victim] = tamper(run, "lost", [line for line in resumed if line != run.kept[0]])
        altered = [*run.transcripts]
        altered[other] = tamper(run, "altered", [*resumed[:-1], resumed[-1].replace(b'"', b"'", 1)])
        results = [dict(r) if r is not None else None for r in run.results]
        disagreeing = results[other]
        assert disagreeing is not None
        results[other] = {**disagreeing, "outcome": {"scores": [], "winners": []}}
        unfinished = [*run.results]
        unfinished[run.victim] = None
        broken["lost"] = check_crash(dataclasses.replace(run, transcripts=lost))
        broken["altered"] = check_crash(dataclasses.replace(run, transcripts=altered))
        broken["disagree"] = check_crash(dataclasses.replace(run, results=results))
        broken["unfinished"] = check_crash(dataclasses.replace(run, results=unfinished))
        return broken["lost"]

    result = crash_match("fishnstones", 2, 5, workdir=tmp_path, check=breaking_check)
    assert not result.ok and result.reason is not None and "lost 1 of the" in result.reason
    assert all(f"{step} " in result.reason for step in ("steps at started", "killed", "reaped", "cut", "resumed"))
    assert result.workdir == str(tmp_path) and "FAILED" in result.line()
    assert all(not verdict.ok for verdict in broken.values())
    assert not broken["lost"].intact and not broken["lost"].verified
    assert not broken["altered"].verified and "does not verify" in " ".join(broken["altered"].reasons)
    assert not broken["disagree"].agree and "outcomes differ" in " ".join(broken["disagree"].reasons)
    assert (
        not broken["unfinished"].finished and f"peer {result.victim} printed no result" in broken["unfinished"].reasons
    )
    failed = summary([result], 1.0)
    assert "failures 1" in failed and "failed: fishnstones 2p seed 5" in failed


def test_a_peer_that_cannot_resume_fails_the_match(tmp_path: Path) -> None:
    """The victim is resumed with another player's key, which `resume` refuses: the others drop it. The
    timeout is long enough that a busy machine's stalls do not end the game before the kill point."""
    result = crash_match(
        "fishnstones", 2, 6, workdir=tmp_path, peer_timeout_s=6.0, resume_extra=["--identity-dir", str(tmp_path / "x")]
    )
    assert not result.ok and not result.finished
    assert result.reason is not None and f"peer {result.victim} printed no result" in result.reason
    assert "another identity" in (tmp_path / f"seat{result.victim}-resumed.log").read_text()


def test_the_soak_plan_takes_every_game_through_every_table_size() -> None:
    plan = soak_plan(50, 3)
    assert len(plan) == 50 and len({seed for _, _, seed in plan}) == 50
    assert {game for game, _, _ in plan} == set(GAMES)
    for game in GAMES:
        assert {players for g, players, _ in plan if g == game} == set(game_of(game).shortest_game)
