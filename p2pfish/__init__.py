"""p2pfish: peer-to-peer LAN card games with no trusted host."""

__version__ = "0.1.0"
