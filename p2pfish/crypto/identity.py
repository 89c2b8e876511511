"""A player's long-term Ed25519 identity: kept in the user's config directory, readable by the owner only.

The key file is PKCS#8 PEM, created with mode 0600 under $XDG_CONFIG_HOME/p2pfish/ (else
~/.config/p2pfish/). It is written in full to a private temporary file first and then linked into place,
so no other process ever sees a half-written key and an existing key is never overwritten. The signing and
checking are ed25519.py's; the key file is RFC 8410's PKCS#8 form of the seed, read and written here (a file in
another PKCS#8 form is read through `cryptography`, imported only then).
"""

import base64
import binascii
import contextlib
import hashlib
import os
import secrets
import stat
import sys
from collections.abc import Mapping
from pathlib import Path

from p2pfish.core.errors import P2pfishError
from p2pfish.crypto import ed25519

KEY_FILE_NAME = "identity_ed25519.pem"
PUBLIC_KEY_BYTES = 32
SIGNATURE_BYTES = 64
SEED_BYTES = 32
FINGERPRINT_BYTES = 8
OWNER_ONLY = 0o600
FOREIGN_ACCESS_BITS = 0o077
PKCS8_SEED_PREFIX = bytes.fromhex("302e020100300506032b657004220420")
"""RFC 8410: the DER of an Ed25519 private key (version 0, no public key, no attributes) up to its 32-byte seed."""
PEM_BEGIN, PEM_END = "-----BEGIN PRIVATE KEY-----", "-----END PRIVATE KEY-----"
PEM_LINE = 64


class IdentityFileError(P2pfishError):
    """The key file is unsafe (others may read it) or unusable (not an Ed25519 key)."""


class Identity:
    """One player's signing key. The private key never leaves this object except into its key file."""

    def __init__(self, private_key: ed25519.PrivateKey) -> None:
        self._private_key = private_key
        self.public_bytes: bytes = private_key.public_bytes

    @classmethod
    def generate(cls) -> "Identity":
        return cls.from_seed(secrets.token_bytes(SEED_BYTES))

    @classmethod
    def from_seed(cls, seed: bytes) -> "Identity":
        """The identity whose RFC 8032 private key is `seed` (32 bytes); for test vectors."""
        if len(seed) != SEED_BYTES:
            raise ValueError(f"an Ed25519 seed is {SEED_BYTES} bytes, not {len(seed)}")
        return cls(ed25519.PrivateKey(seed))

    @property
    def fingerprint(self) -> str:
        return fingerprint(self.public_bytes)

    def sign(self, message: bytes) -> bytes:
        """The 64-byte Ed25519 signature of `message` (deterministic)."""
        return self._private_key.sign(message)

    def to_pem(self) -> bytes:
        """The key file's text: the seed as an unencrypted PKCS#8 PEM (RFC 8410)."""
        body = base64.b64encode(PKCS8_SEED_PREFIX + self._private_key.seed).decode("ascii")
        lines = [PEM_BEGIN, *(body[i : i + PEM_LINE] for i in range(0, len(body), PEM_LINE)), PEM_END, ""]
        return "\n".join(lines).encode("ascii")

    def __repr__(self) -> str:
        return f"Identity({self.fingerprint})"


def verify(public_bytes: bytes, message: bytes, signature: bytes) -> bool:
    """True when `signature` is a valid Ed25519 signature of `message` by `public_bytes`; never raises."""
    return ed25519.verify(public_bytes, message, signature)


def fingerprint(public_bytes: bytes) -> str:
    """A short name for humans: the first 8 bytes of SHA-256(public key), in hex."""
    return hashlib.sha256(public_bytes).digest()[:FINGERPRINT_BYTES].hex()


def config_dir(environ: Mapping[str, str] | None = None) -> Path:
    """$XDG_CONFIG_HOME/p2pfish when that is an absolute path, else ~/.config/p2pfish."""
    env = os.environ if environ is None else environ
    xdg = env.get("XDG_CONFIG_HOME", "")
    base = Path(xdg) if xdg and os.path.isabs(xdg) else Path.home() / ".config"
    return base / "p2pfish"


def load_or_create(directory: str | os.PathLike[str] | None = None) -> Identity:
    """The identity kept in `directory` (default: config_dir()), created there on first use."""
    folder = config_dir() if directory is None else Path(directory)
    path = folder / KEY_FILE_NAME
    if not path.exists():
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        _create_key_file(path, Identity.generate())
    return load(path)


def load(path: str | os.PathLike[str]) -> Identity:
    """Load a key file, refusing one that anybody but its owner may read or write."""
    key_path = Path(path)
    try:
        info = key_path.stat()
        _check_private(key_path, info)
        data = key_path.read_bytes()
    except OSError as error:
        raise IdentityFileError(f"cannot read the identity key {key_path}: {error.strerror}") from None
    seed = _pkcs8_seed(data)
    return Identity.from_seed(seed) if seed is not None else _load_other_pkcs8(key_path, data)


def _pkcs8_seed(data: bytes) -> bytes | None:
    """The seed of a key file in the RFC 8410 form this module writes, else None."""
    lines = data.decode("ascii", errors="replace").strip().splitlines()
    if len(lines) < 3 or lines[0].strip() != PEM_BEGIN or lines[-1].strip() != PEM_END:
        return None
    try:
        der = base64.b64decode("".join(line.strip() for line in lines[1:-1]), validate=True)
    except (binascii.Error, ValueError):
        return None
    if len(der) != len(PKCS8_SEED_PREFIX) + SEED_BYTES or not der.startswith(PKCS8_SEED_PREFIX):
        return None
    return der[len(PKCS8_SEED_PREFIX) :]


def _load_other_pkcs8(key_path: Path, data: bytes) -> Identity:
    """A key file in another form (or none): read through `cryptography`, which says what it holds."""
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    try:
        private_key = serialization.load_pem_private_key(data, password=None)
    except (ValueError, TypeError):
        raise IdentityFileError(f"{key_path} is not an unencrypted PEM private key") from None
    if not isinstance(private_key, Ed25519PrivateKey):
        raise IdentityFileError(f"{key_path} holds a {type(private_key).__name__}, not an Ed25519 key")
    seed = private_key.private_bytes(
        serialization.Encoding.Raw, serialization.PrivateFormat.Raw, serialization.NoEncryption()
    )
    return Identity.from_seed(seed)


def _check_private(path: Path, info: os.stat_result) -> None:
    if not stat.S_ISREG(info.st_mode):
        raise IdentityFileError(f"{path} is not a regular file")
    if sys.platform == "win32":
        return  # permission bits mean nothing there; the profile directory's ACL protects the key
    if info.st_mode & FOREIGN_ACCESS_BITS:
        raise IdentityFileError(
            f"{path} is accessible by other users (mode {stat.S_IMODE(info.st_mode):04o}); "
            f"run `chmod 600 {path}` if nobody else could have read it, else delete it to make a new identity"
        )
    if info.st_uid != os.getuid():
        raise IdentityFileError(f"{path} belongs to another user")


def _create_key_file(path: Path, identity: Identity) -> None:
    temporary = path.with_name(f".{path.name}.{secrets.token_hex(8)}.tmp")
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0)
    fd = os.open(temporary, flags, OWNER_ONLY)
    try:
        with os.fdopen(fd, "wb") as file:
            file.write(identity.to_pem())
            file.flush()
            os.fsync(file.fileno())
        with contextlib.suppress(FileExistsError):  # another process created it first: use theirs
            os.link(temporary, path)
    finally:
        temporary.unlink(missing_ok=True)
