"""The pool the test matches' peers are copied from (p2pfish/tools/peerpool.py): a copy is what a program
would be (streams, environment, folder, descriptors, exit status, signals), each program hashes strings its
own way, and a peer it cannot serve starts as a program."""

import json
import os
import signal
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from p2pfish.forkedpeer import can_fork
from p2pfish.tools.peerpool import POOL_ENV, Pool, PooledProcess, start_peer

pytestmark = pytest.mark.skipif(not can_fork(allow_threads=True), reason="the pool needs Linux with pidfds")
READY_S = 30.0
PROBE = [sys.executable, "-m", "p2pfish.tools.peerpool", "probe"]


@pytest.fixture(scope="module")
def pool(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Pool]:
    started = Pool(tmp_path_factory.mktemp("pool"), programs=2)
    assert started.wait_ready(READY_S)
    yield started
    assert started.close()


def probe(folder: Path | None, tmp_path: Path, *args: str, index: int = 0, **env: str) -> tuple[
    subprocess.Popen[str] | PooledProcess, Path
]:  # fmt: skip
    """The probe as seat `index`'s peer of the pool in `folder` (None: no pool named)."""
    log = tmp_path / f"probe-{index}.log"
    environment = {**os.environ, **env}
    environment.pop(POOL_ENV, None)
    if folder is not None:
        environment[POOL_ENV] = str(folder)
    with log.open("a") as stderr:
        return start_peer([*PROBE, *args], index=index, env=environment, stdout_pipe=True, stderr=stderr), log


def report(process: subprocess.Popen[str] | PooledProcess) -> dict[str, object]:
    assert process.stdout is not None
    line = process.stdout.readline()
    process.stdout.close()
    found = json.loads(line)
    assert isinstance(found, dict)
    return found


def test_a_copy_has_the_streams_environment_folder_and_exit_status_a_program_would(pool: Pool, tmp_path: Path) -> None:
    process, log = probe(pool.folder, tmp_path, "3", PROBE_MARK="copied")
    assert isinstance(process, PooledProcess)
    copied = report(process)
    assert process.wait(READY_S) == 3
    program, program_log = probe(None, tmp_path, "3", index=1, PROBE_MARK="copied")
    assert isinstance(program, subprocess.Popen)
    started = report(program)
    assert program.wait(READY_S) == 3
    assert log.read_text() == program_log.read_text() == "to stderr\n"
    assert copied["cwd"] == started["cwd"] == os.getcwd()
    env = copied["env"]
    assert isinstance(env, dict) and env["PROBE_MARK"] == "copied" and POOL_ENV in env
    assert copied["fds"] == started["fds"] == [0, 1, 2, 3]  # 3: the listing's own
    assert copied["pid"] == process.pid != os.getpid()


def test_each_program_hashes_strings_its_own_way_and_its_copies_as_it_does(pool: Pool, tmp_path: Path) -> None:
    hashes = []
    for index in (0, 0, 1):
        process, _ = probe(pool.folder, tmp_path, "0", index=index)
        assert isinstance(process, PooledProcess)
        hashes.append(report(process)["hash"])
        process.wait(READY_S)
    assert hashes[0] == hashes[1] != hashes[2]


@pytest.mark.parametrize(("stop", "code"), [("terminate", -signal.SIGTERM), ("kill", -signal.SIGKILL)])
def test_a_copy_is_waited_for_and_stopped_as_a_popen_is(pool: Pool, tmp_path: Path, stop: str, code: int) -> None:
    process, _ = probe(pool.folder, tmp_path, "0", "wait")
    assert isinstance(process, PooledProcess)
    report(process)
    assert process.poll() is None
    with pytest.raises(subprocess.TimeoutExpired):
        process.wait(0.05)
    getattr(process, stop)()
    assert process.wait(READY_S) == code == process.poll()
    process.kill()  # ended: nothing happens, as with a Popen


def test_what_the_pool_cannot_serve_starts_as_a_program(pool: Pool, tmp_path: Path) -> None:
    seeded, _ = probe(pool.folder, tmp_path, "0", PYTHONHASHSEED="7")
    beyond, _ = probe(pool.folder, tmp_path, "0", index=5)  # no program 5 in this pool
    gone, _ = probe(tmp_path / "no-pool", tmp_path, "0")
    for process in (seeded, beyond, gone):
        assert isinstance(process, subprocess.Popen)
        report(process)
        assert process.wait(READY_S) == 0
    other = start_peer([sys.executable, "-c", "print(1)"], index=0, env={**os.environ, POOL_ENV: str(pool.folder)},
                       stdout_pipe=True, stderr=sys.stderr)  # fmt: skip
    assert isinstance(other, subprocess.Popen)
    assert other.communicate(timeout=READY_S)[0] == "1\n"


def test_a_copy_outlives_its_pool_program_and_is_still_followed(tmp_path: Path) -> None:
    (tmp_path / "pool").mkdir()
    alone = Pool(tmp_path / "pool", programs=1)
    assert alone.wait_ready(READY_S)
    process, _ = probe(alone.folder, tmp_path, "0", "wait")
    assert isinstance(process, PooledProcess)
    report(process)
    assert alone.close()
    assert process.poll() is None
    with pytest.raises(subprocess.TimeoutExpired):
        process.wait(0.05)
    process.kill()
    assert process.wait(READY_S) == 1  # its status went to the pool program, which is gone


def test_the_runs_temporary_files_go_to_its_own_scratch_folder_and_tmp_path_stays_out_of_it(tmp_path: Path) -> None:
    """conftest.py: every temporary file of the run, in this process and in the programs it starts, goes to one
    folder, removed at the end (a run once left 33 transcripts and logs behind)."""
    scratch = Path(tempfile.gettempdir())
    assert scratch.name.startswith("p2pfish-tests-")
    started = subprocess.run(
        [sys.executable, "-c", "import tempfile; print(tempfile.gettempdir())"],
        capture_output=True, text=True, timeout=READY_S, check=True,
    )  # fmt: skip
    assert Path(started.stdout.strip()) == scratch
    assert scratch not in tmp_path.parents
