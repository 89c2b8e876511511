"""Which library checks this peer's signatures: the first, in order of speed, that gives p2pfish's verdict on
every vector below, once the byte checks of ed25519_rule.py are passed.

The byte checks leave one place where Ed25519 libraries still differ: the equation. A cofactored library
(libsodium's development branch since 2022, Zebra) accepts signatures whose R or A has a torsion component
that the cofactorless equation of OpenSSL, libsodium 1.0.18-1.0.22 and p2pfish refuses. So a library is used
only after it has accepted the valid signatures and refused the rest of these, on its first use in the process
(about a millisecond). The pure-Python check (ed25519_python.py) is the rule itself, the last resort.
"""

from collections.abc import Callable, Iterable

Check = Callable[[bytes, bytes, bytes], bool]
"""(public key, message, signature) -> valid."""

_VECTORS: tuple[tuple[str, str, str, bool], ...] = (
    # RFC 8032 §7.1 TEST 1 and TEST 2 (public key, message, signature), and TEST 2 with its message changed.
    (
        "d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a",
        "",
        "e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e06522490155"
        "5fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b",
        True,
    ),
    (
        "3d4017c3e843895a92b70aa74d1b7ebc9c982ccf2ec4968cc0cd55f12af4660c",
        "72",
        "92a009a9f0d4cab8720e820b5f642540a2b27b5416503f8fb3762223ebdb69da"
        "085ac1e43e15996e458f3613d0f11d8c387b2eaeb4302aeeb00d291612bb0c00",
        True,
    ),
    (
        "3d4017c3e843895a92b70aa74d1b7ebc9c982ccf2ec4968cc0cd55f12af4660c",
        "73",
        "92a009a9f0d4cab8720e820b5f642540a2b27b5416503f8fb3762223ebdb69da"
        "085ac1e43e15996e458f3613d0f11d8c387b2eaeb4302aeeb00d291612bb0c00",
        False,
    ),
    # novifinancial/ed25519-speccheck cases.json, cases 3, 4 and 5: A and R of mixed order. Case 3 holds under
    # both equations; 4 only under the cofactored one; 5 only under a cofactored one that pre-reduces 8k.
    (
        "cdb267ce40c5cd45306fa5d2f29731459387dbf9eb933b7bd5aed9a765b88d4d",
        "9bd9f44f4dcc75bd531b56b2cd280b0bb38fc1cd6d1230e14861d861de092e79",
        "9046a64750444938de19f227bb80485e92b83fdb4b6506c160484c016cc1852f"
        "87909e14428a7a1d62e9f22f3d3ad7802db02eb2e688b6c52fcd6648a98bd009",
        True,
    ),
    (
        "cdb267ce40c5cd45306fa5d2f29731459387dbf9eb933b7bd5aed9a765b88d4d",
        "e47d62c63f830dc7a6851a0b1f33ae4bb2f507fb6cffec4011eaccd55b53f56c",
        "160a1cb0dc9c0258cd0a7d23e94d8fa878bcb1925f2c64246b2dee1796bed512"
        "5ec6bc982a269b723e0668e540911a9a6a58921d6925e434ab10aa7940551a09",
        False,
    ),
    (
        "cdb267ce40c5cd45306fa5d2f29731459387dbf9eb933b7bd5aed9a765b88d4d",
        "e47d62c63f830dc7a6851a0b1f33ae4bb2f507fb6cffec4011eaccd55b53f56c",
        "21122a84e0b5fca4052f5b1235c80a537878b38f3142356b2c2384ebad4668b7"
        "e40bc836dac0f71076f9abe3a53f9c03c1ceeeddb658d0030494ace586687405",
        False,
    ),
    # A canonical key that is no point of the curve (y = 2), with TEST 1's signature.
    (
        "0200000000000000000000000000000000000000000000000000000000000000",
        "",
        "e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e06522490155"
        "5fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b",
        False,
    ),
)
VECTORS: tuple[tuple[bytes, bytes, bytes, bool], ...] = tuple(
    (bytes.fromhex(key), bytes.fromhex(message), bytes.fromhex(signature), valid)
    for key, message, signature, valid in _VECTORS
)


def agrees(check: Check) -> bool:
    """Whether `check` gives the rule's verdict on every vector (a library that raises does not)."""
    try:
        return all(check(key, message, signature) is valid for key, message, signature, valid in VECTORS)
    except Exception:  # a broken binding is simply not used
        return False


def choose(candidates: Iterable[tuple[str, Check]], last_resort: tuple[str, Check]) -> tuple[str, Check]:
    """The first candidate that agrees with the rule, else `last_resort`."""
    for name, check in candidates:
        if agrees(check):
            return name, check
    return last_resort
