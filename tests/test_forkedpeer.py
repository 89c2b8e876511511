"""A bot peer started as a copy of this process (forkedpeer.py): it runs its command with its own environment,
session and log, holds none of its parent's descriptors, and ends when told, as a started program would."""

import os
import select
import socket
import subprocess
from pathlib import Path

import pytest
from conformance_helpers import wait_for

from p2pfish.forkedpeer import ForkedPeer, can_fork

WAIT_S = 20.0

pytestmark = pytest.mark.skipif(not can_fork(), reason="this process cannot copy itself (not Linux, or threads)")


def test_a_copy_runs_its_command_with_the_environment_and_log_it_was_given(tmp_path: Path) -> None:
    env = {**os.environ, "XDG_CONFIG_HOME": str(tmp_path / "config")}
    copy = ForkedPeer(["identity"], env, tmp_path / "copy.log")
    assert copy.wait(WAIT_S) == 0
    printed = (tmp_path / "copy.log").read_text()
    assert f"key file    {tmp_path / 'config' / 'p2pfish' / 'identity_ed25519.pem'}" in printed, printed
    assert (tmp_path / "config" / "p2pfish" / "identity_ed25519.pem").is_file()
    assert "XDG_CONFIG_HOME" not in os.environ or os.environ["XDG_CONFIG_HOME"] != env["XDG_CONFIG_HOME"]


def test_a_usage_error_in_the_copy_is_its_exit_code_and_its_log(tmp_path: Path) -> None:
    copy = ForkedPeer(["join", "127.0.0.1:9"], dict(os.environ), tmp_path / "copy.log")
    assert copy.wait(WAIT_S) == 2
    assert "the following arguments are required: --code" in (tmp_path / "copy.log").read_text()


def test_a_copy_holds_no_descriptor_of_its_parent_and_ends_when_terminated(tmp_path: Path) -> None:
    reserved = socket.socket()
    reserved.bind(("127.0.0.1", 0))  # bound, never listening: the copy's join keeps trying it
    port = reserved.getsockname()[1]
    readable, writable = os.pipe()
    try:
        argv = ["join", f"127.0.0.1:{port}", "--code", "ABCDEF", "--bot", "greedy", "--wait", "60",
                "--identity-dir", str(tmp_path / "id")]  # fmt: skip
        copy = ForkedPeer(argv, dict(os.environ), tmp_path / "copy.log")
        os.close(writable)
        writable = -1
        ready, _, _ = select.select([readable], [], [], WAIT_S)
        assert ready and os.read(readable, 1) == b"", "the copy holds the write end of its parent's pipe"
        assert copy.poll() is None, (tmp_path / "copy.log").read_text()
        assert os.getsid(copy.pid) == copy.pid
        comm = Path(f"/proc/{copy.pid}/comm")
        wait_for(lambda: comm.read_text().strip() == "p2pfish-bot", WAIT_S, "the copy to take its name")
        copy.terminate()
        assert copy.wait(WAIT_S) != 0
    finally:
        os.close(readable)
        if writable >= 0:
            os.close(writable)
        reserved.close()


def test_waiting_on_a_copy_that_does_not_end_times_out_and_kill_ends_it(tmp_path: Path) -> None:
    argv = ["join", "127.0.0.1:9", "--code", "ABCDEF", "--bot", "greedy", "--wait", "60",
            "--identity-dir", str(tmp_path / "id")]  # fmt: skip
    copy = ForkedPeer(argv, dict(os.environ), tmp_path / "copy.log")
    with pytest.raises(subprocess.TimeoutExpired):
        copy.wait(0.05)
    copy.kill()
    assert copy.wait(WAIT_S) == -9
