"""Small games that exist only to test the engine's contract."""
