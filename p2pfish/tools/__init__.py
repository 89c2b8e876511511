"""The test tools: bot matches, hostile peers and strangers, the cheat matrix, the crash soak and the bench.
They wrap the player's code (host, join, resume) and are never imported by it."""
