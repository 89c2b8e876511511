"""The replicated game, sans I/O: signed messages in, messages to send and events out."""
