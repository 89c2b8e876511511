"""The join code's key: the derivation PROTOCOL §17.4 specifies, pinned by the example it gives, and a
derivation cheap in memory (a peer's peak memory is not set by it)."""

import hashlib
import re
from pathlib import Path

import pytest
from cryptography.hazmat.primitives.kdf import scrypt as scrypt_module
from cryptography.hazmat.primitives.kdf.scrypt import Scrypt

from p2pfish.crypto import kdf, sodium
from p2pfish.net.lobby import CODE_KDF_N, CODE_KDF_P, CODE_KDF_R, TAG_CODE, code_key

PROTOCOL = Path(__file__).resolve().parent.parent / "protocol" / "PROTOCOL.md"
EXAMPLE = re.compile(r"For the code `([A-Z0-9]+)`, `K` is `([0-9a-f]{64})`")


def test_the_key_of_the_specification_s_example_code_is_the_one_it_gives() -> None:
    found = EXAMPLE.search(PROTOCOL.read_text())
    assert found is not None, "PROTOCOL.md gives no example key"
    code, key = found.groups()
    assert code_key(code).hex() == key
    assert code_key(code.lower()[:3] + "-" + code[3:]) == code_key(code)


def test_the_specification_names_the_parameters_the_code_uses() -> None:
    text = PROTOCOL.read_text()
    exponent = CODE_KDF_N.bit_length() - 1
    assert f"N = 2^{exponent}, r = {CODE_KDF_R}, p = {CODE_KDF_P}, dkLen = 32" in text
    assert 128 * CODE_KDF_R * CODE_KDF_N <= 1024 * 1024, "the key's buffer sets every peer's peak memory"


RFC_7914_VECTOR = (
    b"password", b"NaCl", 1024, 8, 16, 64,
    "fdbabe1c9d3472007856e7190d01e9fe7c6ad7cbc8237830e77376634b3731622eaf30d92e22a3886ff109279d9830dac727afb94a83ee6d8360cbdfa2cc0640",
)  # fmt: skip


def test_scrypt_through_libsodium_gives_the_rfcs_vector_and_what_openssl_and_cryptography_give() -> None:
    password, salt, n, r, p, length, expected = RFC_7914_VECTOR
    through_libsodium = sodium.scrypt(password, salt, n=n, r=r, p=p, length=length)
    assert through_libsodium is not None and through_libsodium.hex() == expected
    assert kdf.scrypt(password, salt, n=n, r=r, p=p, length=length) == through_libsodium
    for code in (b"ABCDEF", b"Z9Z9Z9"):
        through_libsodium = sodium.scrypt(code, TAG_CODE, n=CODE_KDF_N, r=CODE_KDF_R, p=CODE_KDF_P, length=32)
        openssl = hashlib.scrypt(code, salt=TAG_CODE, n=CODE_KDF_N, r=CODE_KDF_R, p=CODE_KDF_P, dklen=32)
        cryptography = Scrypt(salt=TAG_CODE, length=32, n=CODE_KDF_N, r=CODE_KDF_R, p=CODE_KDF_P).derive(code)
        assert through_libsodium == openssl == cryptography


@pytest.mark.parametrize("openssl", [True, False])
def test_without_libsodium_scrypt_comes_from_openssl_or_cryptography(
    monkeypatch: pytest.MonkeyPatch, openssl: bool
) -> None:
    expected = kdf.scrypt(b"ABCDEF", TAG_CODE, n=CODE_KDF_N, r=CODE_KDF_R, p=CODE_KDF_P, length=32)
    monkeypatch.setattr(sodium, "scrypt", lambda *_, **__: None)
    if openssl:
        monkeypatch.setattr(scrypt_module, "Scrypt", None)  # the fallback after OpenSSL, so not to be reached
    else:
        monkeypatch.delattr(hashlib, "scrypt")
    assert kdf.scrypt(b"ABCDEF", TAG_CODE, n=CODE_KDF_N, r=CODE_KDF_R, p=CODE_KDF_P, length=32) == expected
