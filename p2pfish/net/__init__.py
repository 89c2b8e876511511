"""The network layer: the ZeroMQ mesh, the lobby over plain TCP, discovery and the peer runner."""
