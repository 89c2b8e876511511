"""scrypt (RFC 7914) from the first library this process has: libsodium (pyzmq's copy, which every peer loads),
else hashlib's OpenSSL, else `cryptography`. The same bytes from each."""

import hashlib

from p2pfish.crypto import sodium


def scrypt(password: bytes, salt: bytes, *, n: int, r: int, p: int, length: int) -> bytes:
    derived = sodium.scrypt(password, salt, n=n, r=r, p=p, length=length)
    if derived is not None:
        return derived
    if hasattr(hashlib, "scrypt"):  # only where hashlib has OpenSSL
        return hashlib.scrypt(password, salt=salt, n=n, r=r, p=p, dklen=length)
    from cryptography.hazmat.primitives.kdf.scrypt import Scrypt

    return Scrypt(salt=salt, length=length, n=n, r=r, p=p).derive(password)
