"""This machine's IPv4 addresses on its networks: the ones a host shows, advertises and puts in its card.

They are read from the interfaces themselves (ifaddr, which zeroconf brings), so a LAN without a default
route (a travel router, a cable between two laptops) has its address found too; a UDP 'connect' towards
an outside address, which sends nothing, only says which of them to list first.
"""

import contextlib
import ipaddress
import socket
from typing import Any

LOOPBACK = "127.0.0.1"
OUTSIDE = "10.255.255.255"
"""An address no packet is sent to: a UDP 'connect' towards it picks the interface of the default route."""


def lan_addresses() -> list[str]:
    """Every IPv4 address of this machine that another machine could reach: not loopback, multicast or
    unspecified. The default route's first, link-local (169.254/16, a cable with no DHCP) last."""
    found: list[str] = []
    with contextlib.suppress(OSError):
        for adapter in _adapters():
            for ip in adapter.ips:
                if isinstance(ip.ip, str) and _usable(ip.ip) and ip.ip not in found:
                    found.append(ip.ip)
    routed = _towards(OUTSIDE)
    return sorted(found, key=lambda address: (address != routed, ipaddress.IPv4Address(address).is_link_local))


def primary_address() -> str:
    """The address a host shows first and puts in its card: the first of lan_addresses, else loopback."""
    addresses = lan_addresses()
    return addresses[0] if addresses else LOOPBACK


def local_address_towards(host: str) -> str:
    """The local IPv4 address that reaches `host` (a UDP 'connect' sends nothing); loopback for a host on
    this machine, the primary address when no route leads there."""
    if host.startswith("127.") or host == "localhost":
        return LOOPBACK
    return _towards(host) or primary_address()


def same_network(address: str) -> bool:
    """Whether `address` is on one of this machine's networks (a subnet of one of its interfaces)."""
    try:
        wanted = ipaddress.IPv4Address(address)
    except ValueError:
        return False
    with contextlib.suppress(OSError):
        for adapter in _adapters():
            for ip in adapter.ips:
                if isinstance(ip.ip, str) and _usable(ip.ip):
                    network = ipaddress.IPv4Network(f"{ip.ip}/{ip.network_prefix}", strict=False)
                    if wanted in network:
                        return True
    return False


def _adapters() -> list[Any]:
    """The interfaces (ifaddr, imported only here: a joiner that never lists them does not load it)."""
    import ifaddr

    return list(ifaddr.get_adapters())


def _usable(address: str) -> bool:
    try:
        parsed = ipaddress.IPv4Address(address)
    except ValueError:
        return False
    return not (parsed.is_loopback or parsed.is_multicast or parsed.is_unspecified)


def _towards(host: str) -> str | None:
    probe = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    try:
        probe.connect((host, 9))
        address = str(probe.getsockname()[0])
    except OSError:
        return None
    finally:
        probe.close()
    return address if _usable(address) else None
