"""Where p2pfish keeps a user's game stores on this machine, and how it makes its local files.

Every file p2pfish writes for a player (a game store, a transcript) is made by `create_private_file`:
readable by its owner only (0600), never through a symbolic link, and any failure is a LocalFileError
whose reason is one line (the command line prints it and exits non-zero)."""

import errno
import os
import stat
from collections.abc import Callable
from pathlib import Path

from p2pfish.core.errors import MalformedInput

OWNER_ONLY = 0o600
_REASONS = {
    errno.ELOOP: "it is a symbolic link (p2pfish never writes through one)",
    errno.EEXIST: "it exists already",
    errno.ENOENT: "its folder does not exist",
    errno.ENOTDIR: "a part of its path is not a folder",
    errno.EISDIR: "it is a folder",
    errno.EACCES: "permission denied",
    errno.EPERM: "permission denied",
    errno.EMFILE: "too many open files",
    errno.ENFILE: "too many open files",
    errno.ENXIO: "it is not a regular file",
}


class LocalFileError(MalformedInput):
    """A file of this player's that p2pfish cannot create, open or write safely."""


def state_dir() -> Path:
    base = os.environ.get("XDG_STATE_HOME", "")
    return (Path(base) if base and os.path.isabs(base) else Path.home() / ".local" / "state") / "p2pfish"


def local_file_error(what: str, path: Path, error: OSError) -> LocalFileError:
    """One line saying why `path` cannot be used; a symbolic link is named as such whatever the errno."""
    reason = _REASONS.get(error.errno or 0, error.strerror or str(error))
    if os.path.islink(path):
        reason = _REASONS[errno.ELOOP]
    return LocalFileError(f"cannot use {path} as the {what}: {reason}")


def create_private_file(
    path: Path, what: str, *, new: bool = False, check: Callable[[os.stat_result], None] | None = None
) -> int:
    """A read-write descriptor of the regular file `path`, created 0600 if missing (`new`: it must be).

    Never through a symbolic link (O_NOFOLLOW on the last component); an existing file must be a regular
    file of this user's and is made 0600; `check` may refuse the opened file too (raising LocalFileError).
    The caller closes the descriptor."""
    flags = os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC | (os.O_EXCL if new else 0)
    try:
        fd = os.open(path, flags, OWNER_ONLY)
    except OSError as error:
        raise local_file_error(what, path, error) from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise LocalFileError(f"cannot use {path} as the {what}: it is not a regular file")
        if info.st_uid != os.getuid():
            raise LocalFileError(f"cannot use {path} as the {what}: it belongs to another user")
        if check is not None:
            check(info)
        os.fchmod(fd, OWNER_ONLY)
    except OSError as error:
        os.close(fd)
        raise local_file_error(what, path, error) from None
    except LocalFileError:
        os.close(fd)
        raise
    return fd


def write_private_file(path: Path, data: bytes, what: str) -> None:
    """Replace the contents of `path` (made by create_private_file) with `data`."""
    fd = create_private_file(path, what)
    try:
        os.ftruncate(fd, 0)
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view) :]
    except OSError as error:
        raise local_file_error(what, path, error) from None
    finally:
        os.close(fd)


def check_private_file(path: Path, what: str, *, new: bool = False) -> None:
    """Fail now, not at the end of a game, if `path` could not be made by create_private_file.

    A missing file is created and removed again; an existing one is opened (and made 0600), not changed."""
    existed = os.path.lexists(path)
    os.close(create_private_file(path, what, new=new))
    if not existed:
        path.unlink(missing_ok=True)


def check_private_folder(folder: Path, what: str) -> None:
    """A folder that holds a file only its owner may read: a real folder (not a symbolic link) that
    other users cannot write to, unless it is sticky like /tmp (they cannot replace a file of ours there)."""
    try:
        info = os.lstat(folder)
    except OSError as error:
        reason = "it does not exist" if error.errno == errno.ENOENT else (error.strerror or str(error))
        raise LocalFileError(f"cannot keep the {what} in {folder}: {reason}") from None
    if stat.S_ISLNK(info.st_mode):
        raise LocalFileError(f"cannot keep the {what} in {folder}: it is a symbolic link (give the real folder)")
    if not stat.S_ISDIR(info.st_mode):
        raise LocalFileError(f"cannot keep the {what} in {folder}: it is not a folder")
    if info.st_mode & stat.S_IWOTH and not info.st_mode & stat.S_ISVTX:
        raise LocalFileError(f"cannot keep the {what} in {folder}: any user may write to it (it is not sticky)")
