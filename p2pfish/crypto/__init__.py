"""The cryptography layer: identities and signatures, commitments, joint randomness, the encrypted deck.

Every construction is specified in protocol/CRYPTO.md and pinned by protocol/vectors/crypto_*.json.
Modules: encoding (the canonical bytes every hash covers), identity (Ed25519 keys and signatures),
commitment (hash commitments), randomness (commit-reveal seeds and draws), p256 (curve arithmetic),
deck (the SRA mental-poker deck) and deck_audit (the end-of-game checks of the deck passes).
Nothing here opens a socket, keeps global state or imports a game.
"""
