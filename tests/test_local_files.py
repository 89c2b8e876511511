"""The files a peer writes for its player: transcripts and stores are 0600, never written through a
symbolic link, and any failure to make one is one line on stderr and exit code 2."""

import errno
import os
import sqlite3
from pathlib import Path

import pytest

from p2pfish.cli import main
from p2pfish.paths import LocalFileError, check_private_file, write_private_file
from p2pfish.session.store import SqliteStore
from p2pfish.tools.match import MatchTable

PRECIOUS = b"the user's own file\n"


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str]:
    try:
        code = main(list(argv))
    except SystemExit as exit_:
        code = int(exit_.code or 0)
    _, err = capsys.readouterr()
    return code, err


def one_line_refusal(code: int, err: str) -> bool:
    return code == 2 and err.count("\n") == 1 and "Traceback" not in err


def mode(path: Path) -> int:
    return os.stat(path).st_mode & 0o777


def precious_link(tmp_path: Path, name: str) -> tuple[Path, Path]:
    target = tmp_path / "precious.txt"
    target.write_bytes(PRECIOUS)
    target.chmod(0o644)
    link = tmp_path / name
    link.symlink_to(target)
    return link, target


def test_a_fresh_transcript_is_owner_only_and_an_old_one_is_replaced(tmp_path: Path) -> None:
    fresh = tmp_path / "fresh.jsonl"
    write_private_file(fresh, b"line\n", "transcript")
    assert fresh.read_bytes() == b"line\n" and mode(fresh) == 0o600
    old = tmp_path / "old.jsonl"
    old.write_bytes(b"a much longer earlier transcript\n")
    old.chmod(0o644)
    write_private_file(old, b"new\n", "transcript")
    assert old.read_bytes() == b"new\n" and mode(old) == 0o600


def test_a_transcript_path_that_is_a_symlink_is_refused_and_its_target_unchanged(tmp_path: Path) -> None:
    link, target = precious_link(tmp_path, "game.jsonl")
    with pytest.raises(LocalFileError, match="symbolic link"):
        write_private_file(link, b"overwritten\n", "transcript")
    dangling = tmp_path / "dangling.jsonl"
    dangling.symlink_to(tmp_path / "not-yet.txt")
    with pytest.raises(LocalFileError, match="symbolic link"):
        write_private_file(dangling, b"created\n", "transcript")
    assert target.read_bytes() == PRECIOUS and mode(target) == 0o644
    assert not (tmp_path / "not-yet.txt").exists()


def test_a_bad_transcript_is_refused_before_the_game_with_one_line(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    link, target = precious_link(tmp_path, "game.jsonl")
    peer = ["--bot", "random", "--identity-dir", str(tmp_path / "id")]
    for transcript, reason in [
        (link, "symbolic link"),
        (tmp_path / "missing" / "game.jsonl", "folder does not exist"),
        (tmp_path, "is a folder"),
    ]:
        code, err = run(capsys, "join", "127.0.0.1:9", "--code", "ABC234", "--transcript", str(transcript), *peer)
        assert one_line_refusal(code, err) and reason in err, err
    assert target.read_bytes() == PRECIOUS
    assert not (tmp_path / "id").exists()


def test_a_transcript_check_leaves_no_file_behind(tmp_path: Path) -> None:
    path = tmp_path / "later.jsonl"
    check_private_file(path, "transcript")
    assert not path.exists()


@pytest.mark.parametrize(
    ("number", "reason"), [(errno.EMFILE, "too many open files"), (errno.EACCES, "permission denied")]
)
def test_an_operating_system_refusal_is_named_in_words(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, number: int, reason: str
) -> None:
    def refuse(*_: object) -> int:
        raise OSError(number, os.strerror(number))

    monkeypatch.setattr(os, "open", refuse)  # the os.open that p2pfish.paths calls
    with pytest.raises(LocalFileError, match=reason):
        write_private_file(tmp_path / "game.jsonl", b"x\n", "transcript")


def test_a_fresh_store_and_its_write_ahead_log_are_owner_only(tmp_path: Path) -> None:
    path = tmp_path / "game.sqlite"
    store = SqliteStore(path, new=True)
    try:
        store.save_message(b"first")
        assert mode(path) == 0o600
        assert mode(path.with_name("game.sqlite-wal")) == 0o600
    finally:
        store.close()


def test_a_store_path_that_is_a_symlink_is_refused_with_one_line(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    link, target = precious_link(tmp_path, "game.sqlite")
    code, err = run(capsys, "resume", str(link), "--identity-dir", str(tmp_path / "id"))
    assert one_line_refusal(code, err) and "symbolic link" in err, err
    peer = ["--bot", "random", "--identity-dir", str(tmp_path / "id"), "--store", str(link)]
    code, err = run(capsys, "join", "127.0.0.1:9", "--code", "ABC234", *peer)
    assert one_line_refusal(code, err) and "symbolic link" in err, err
    assert target.read_bytes() == PRECIOUS and mode(target) == 0o644


@pytest.mark.parametrize("suffix", ["-wal", "-shm", "-journal"])
def test_a_store_whose_companion_is_a_symlink_is_refused(tmp_path: Path, suffix: str) -> None:
    path = tmp_path / "game.sqlite"
    SqliteStore(path, new=True).close()
    _, target = precious_link(tmp_path, "game.sqlite" + suffix)
    with pytest.raises(LocalFileError, match=f"game.sqlite{suffix} is a symbolic link"):
        SqliteStore(path)
    assert target.read_bytes() == PRECIOUS


def test_a_store_folder_that_is_a_symlink_or_open_to_all_is_refused(tmp_path: Path) -> None:
    real = tmp_path / "real"
    real.mkdir()
    (tmp_path / "linked").symlink_to(real)
    with pytest.raises(LocalFileError, match="symbolic link"):
        SqliteStore(tmp_path / "linked" / "game.sqlite", new=True)
    real.chmod(0o777)
    with pytest.raises(LocalFileError, match="any user may write"):
        SqliteStore(real / "game.sqlite", new=True)
    real.chmod(0o1777)
    SqliteStore(real / "game.sqlite", new=True).close()
    with pytest.raises(LocalFileError, match="does not exist"):
        SqliteStore(tmp_path / "missing" / "game.sqlite", new=True)
    assert not list(real.glob("*-wal")) and not (tmp_path / "missing").exists()


def test_a_store_sqlite_cannot_open_is_one_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(*_: object, **__: object) -> sqlite3.Connection:
        raise sqlite3.OperationalError("unable to open database file")

    monkeypatch.setattr(sqlite3, "connect", refuse)
    with pytest.raises(LocalFileError, match=r"cannot open the store .*unable to open"):
        SqliteStore(tmp_path / "game.sqlite", new=True)


def test_a_transcript_turned_into_a_symlink_during_the_game_is_refused_at_the_end(tmp_path: Path) -> None:
    table = MatchTable("fishnstones", 2, ["random"], 0, tmp_path)
    try:
        table.start_host()
        _, target = precious_link(tmp_path, table.transcripts[0].name)
        table.start_joiners()
        results = table.results(60)
    finally:
        table.stop_all()
    assert results[1] is not None and results[1]["finished"] is True
    assert table.peers[0].process.returncode == 2
    log = (tmp_path / "seat0.log").read_text()
    assert "Traceback" not in log and "symbolic link" in log.strip().splitlines()[-1]
    assert target.read_bytes() == PRECIOUS


def test_the_stores_wal_and_shm_are_made_owner_only_before_sqlite_opens_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """SQLite would make them itself, or use whatever file it finds under those names."""
    path = tmp_path / "game.sqlite"
    seen: list[tuple[str, int, int]] = []
    connect = sqlite3.connect

    def watching(database: str, isolation_level: None = None) -> sqlite3.Connection:
        for suffix in ("-wal", "-shm"):
            info = os.lstat(database + suffix)
            seen.append((suffix, info.st_mode & 0o777, info.st_uid))
        return connect(database, isolation_level=isolation_level)

    monkeypatch.setattr(sqlite3, "connect", watching)
    store = SqliteStore(path, new=True)
    store.save_secret("secret", {"value": 1})
    store.close()
    assert seen == [("-wal", 0o600, os.getuid()), ("-shm", 0o600, os.getuid())]
    store = SqliteStore(path)  # SQLite removed them on close: made again, and the store reads as before
    assert store.load_secrets() == {"secret": {"value": 1}}
    store.close()


def test_a_companion_with_another_name_or_of_another_kind_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "game.sqlite"
    SqliteStore(path, new=True).close()
    target = tmp_path / "precious.txt"
    target.write_bytes(PRECIOUS)
    os.link(target, tmp_path / "game.sqlite-wal")
    with pytest.raises(LocalFileError, match=r"game.sqlite-wal has another name \(a hard link\)$"):
        SqliteStore(path)
    assert target.read_bytes() == PRECIOUS
    (tmp_path / "game.sqlite-wal").unlink()
    os.mkfifo(tmp_path / "game.sqlite-shm")
    with pytest.raises(LocalFileError, match=r"game.sqlite-shm.*not a regular file"):
        SqliteStore(path)


@pytest.mark.skipif(os.geteuid() != 0, reason="making a file of another user needs root")
@pytest.mark.parametrize("suffix", ["-wal", "-shm", "-journal"])
def test_a_companion_another_user_made_is_refused(tmp_path: Path, suffix: str) -> None:
    """In a sticky folder such as /tmp anyone may make game.sqlite-wal first, 0666, and read the secrets."""
    path = tmp_path / "game.sqlite"
    SqliteStore(path, new=True).close()
    planted = tmp_path / ("game.sqlite" + suffix)
    planted.write_bytes(b"")
    planted.chmod(0o666)
    os.chown(planted, 65534, 65534)
    with pytest.raises(LocalFileError, match=rf"game.sqlite{suffix}.*belongs to another user"):
        SqliteStore(path)
    assert planted.read_bytes() == b"" and mode(planted) == 0o666
    fresh = tmp_path / "fresh.sqlite"
    (tmp_path / ("fresh.sqlite" + suffix)).symlink_to(planted)
    with pytest.raises(LocalFileError):
        SqliteStore(fresh, new=True)
    assert not fresh.exists(), "a new store refused leaves no empty store behind"
