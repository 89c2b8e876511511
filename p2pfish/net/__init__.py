"""The ZeroMQ network layer: transport, lobby, discovery and the peer runner."""
