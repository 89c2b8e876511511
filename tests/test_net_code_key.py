"""The join code's key: the derivation PROTOCOL §17.4 specifies, pinned by the example it gives, and a
derivation cheap in memory (a peer's peak memory is not set by it)."""

import re
from pathlib import Path

from p2pfish.net.lobby import CODE_KDF_N, CODE_KDF_P, CODE_KDF_R, code_key

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
