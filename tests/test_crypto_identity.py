"""Identities: created owner-only in the config directory, reloaded unchanged, refused when exposed."""

import os
import stat
from pathlib import Path

import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec
from hypothesis import given
from hypothesis import strategies as st

from p2pfish.crypto import identity
from p2pfish.crypto.identity import KEY_FILE_NAME, Identity, IdentityFileError, fingerprint, load_or_create, verify

MESSAGE = b"seat 2 plays the 7 of hearts"
SIGNER = Identity.from_seed(bytes(range(32)))
SIGNATURE = SIGNER.sign(MESSAGE)


@pytest.fixture
def config_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    return tmp_path / "p2pfish"


def test_created_owner_only_under_xdg_config_home(config_home: Path) -> None:
    created = load_or_create()
    path = config_home / KEY_FILE_NAME
    mode = stat.S_IMODE(path.stat().st_mode)
    assert mode & 0o077 == 0
    assert mode & 0o600 == 0o600
    assert load_or_create().public_bytes == created.public_bytes
    assert [p.name for p in config_home.iterdir()] == [KEY_FILE_NAME]  # no temporary file left behind


def test_config_dir_falls_back_to_dot_config(tmp_path: Path) -> None:
    assert identity.config_dir({"XDG_CONFIG_HOME": "/x"}) == Path("/x/p2pfish")
    assert identity.config_dir({"XDG_CONFIG_HOME": "relative"}) == Path.home() / ".config" / "p2pfish"
    assert identity.config_dir({}) == Path.home() / ".config" / "p2pfish"


def test_each_directory_holds_its_own_identity(tmp_path: Path) -> None:
    first, second = load_or_create(tmp_path / "a"), load_or_create(tmp_path / "b")
    assert first.public_bytes != second.public_bytes
    assert load_or_create(tmp_path / "a").public_bytes == first.public_bytes


@pytest.mark.parametrize("mode", [0o644, 0o640, 0o604, 0o660])
def test_a_key_others_can_read_is_refused(config_home: Path, mode: int) -> None:
    load_or_create()
    os.chmod(config_home / KEY_FILE_NAME, mode)
    with pytest.raises(IdentityFileError, match="other users"):
        load_or_create()


def test_a_garbled_or_foreign_key_is_refused(tmp_path: Path) -> None:
    path = tmp_path / KEY_FILE_NAME
    path.write_bytes(b"not a key")
    path.chmod(0o600)
    with pytest.raises(IdentityFileError, match="PEM"):
        load_or_create(tmp_path)
    other = ec.generate_private_key(ec.SECP256R1()).private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    )
    path.write_bytes(other)
    with pytest.raises(IdentityFileError, match="not an Ed25519"):
        load_or_create(tmp_path)


def test_a_key_created_meanwhile_is_kept(tmp_path: Path) -> None:
    path = tmp_path / KEY_FILE_NAME
    winner = load_or_create(tmp_path)
    identity._create_key_file(path, Identity.generate())  # the loser of a creation race
    assert identity.load(path).public_bytes == winner.public_bytes
    assert [p.name for p in tmp_path.iterdir()] == [KEY_FILE_NAME]


def test_signatures_verify() -> None:
    assert len(SIGNATURE) == 64
    assert len(SIGNER.public_bytes) == 32
    assert verify(SIGNER.public_bytes, MESSAGE, SIGNATURE)


def test_tampering_fails_verification() -> None:
    assert not verify(SIGNER.public_bytes, MESSAGE + b"!", SIGNATURE)
    assert not verify(SIGNER.public_bytes, MESSAGE, bytes([SIGNATURE[0] ^ 1]) + SIGNATURE[1:])
    assert not verify(Identity.generate().public_bytes, MESSAGE, SIGNATURE)


@given(st.binary(max_size=40), st.binary(max_size=70))
def test_verify_never_raises(public: bytes, signature: bytes) -> None:
    assert verify(public, MESSAGE, signature) in (True, False)
    assert not verify(public, MESSAGE, signature) or (public, signature) == (SIGNER.public_bytes, SIGNATURE)


def test_fingerprint_is_short_and_stable() -> None:
    assert SIGNER.fingerprint == fingerprint(SIGNER.public_bytes)
    assert len(SIGNER.fingerprint) == 16
    assert SIGNER.fingerprint in repr(SIGNER)
