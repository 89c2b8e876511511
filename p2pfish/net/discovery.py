"""LAN lobby discovery: DNS-SD over multicast DNS (python-zeroconf, asyncio API), IPv4 only.

A host advertises its open lobby as one `_p2pfish._tcp.local.` service whose SRV/A records give the
rendezvous address and whose TXT record carries the lobby's public facts (`LobbyAd`). Anyone on the
link may answer an mDNS query, so every record read from the network is validated, and a malformed
one is dropped, never raised. Discovery only saves typing an address: joining still needs the code.

`interfaces` everywhere is zeroconf's: a list of local IPv4 addresses to bind, or None for all; an
address this host does not have raises OSError (ENODEV) at once.
"""

import asyncio
import contextlib
import ipaddress
import re
import secrets
import socket
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Self

from zeroconf import IPVersion, ServiceInfo, ServiceStateChange, Zeroconf
from zeroconf.asyncio import AsyncServiceBrowser, AsyncServiceInfo, AsyncZeroconf

from p2pfish.net.addresses import same_network

SERVICE_TYPE = "_p2pfish._tcp.local."
TXT_VERSION = "1"
MAX_NAME_BYTES = 64
MAX_SEATS = 16
DNS_LABEL_BYTES = 63
RESOLVE_TIMEOUT_MS = 3000

GAME_ID = re.compile(r"[a-z0-9_-]{1,32}")
LOBBY_ID = re.compile(r"[0-9a-f]{4,16}")
DECIMAL = re.compile(r"[0-9]{1,5}")
UNSAFE_IN_LABEL = re.compile(r"[.\\\x00-\x1f\x7f]")


def new_lobby_id() -> str:
    """A fresh random lobby id: 8 lowercase hex characters."""
    return secrets.token_hex(4)


@dataclass(frozen=True)
class LobbyAd:
    """One open lobby as advertised on the LAN. Construction validates every field (ValueError)."""

    name: str
    game: str
    players: int
    joined: int
    address: str
    port: int
    lobby_id: str
    more: tuple[str, ...] = ()
    """The host's other addresses (another network of its), advertised beside `address`."""

    def __post_init__(self) -> None:
        object.__setattr__(self, "more", tuple(self.more))  # a list (from JSON) is kept as a tuple
        if not self.name.strip() or not self.name.isprintable():
            raise ValueError(f"host name {self.name!r} must be printable and not blank")
        if len(self.name.encode()) > MAX_NAME_BYTES:
            raise ValueError(f"host name {self.name!r} is longer than {MAX_NAME_BYTES} bytes")
        if not GAME_ID.fullmatch(self.game):
            raise ValueError(f"game id {self.game!r} is not 1-32 of a-z, 0-9, '_' and '-'")
        if not 1 <= self.players <= MAX_SEATS:
            raise ValueError(f"players {self.players} is not within 1..{MAX_SEATS}")
        if not 0 <= self.joined <= self.players:
            raise ValueError(f"joined {self.joined} is not within 0..{self.players}")
        if not 1 <= self.port <= 65535:
            raise ValueError(f"port {self.port} is not within 1..65535")
        if not LOBBY_ID.fullmatch(self.lobby_id):
            raise ValueError(f"lobby id {self.lobby_id!r} is not 4-16 lowercase hex characters")
        for text in (self.address, *self.more):
            try:
                address = ipaddress.IPv4Address(text)
            except ValueError:
                raise ValueError(f"address {text!r} is not an IPv4 address") from None
            if address.is_unspecified or address.is_multicast:
                raise ValueError(f"address {text} cannot be connected to")

    def to_properties(self) -> dict[bytes, bytes]:
        """The TXT record: keys v, game, players, joined, host, id."""
        text = {
            "v": TXT_VERSION,
            "game": self.game,
            "players": str(self.players),
            "joined": str(self.joined),
            "host": self.name,
            "id": self.lobby_id,
        }
        return {key.encode(): value.encode() for key, value in text.items()}

    @classmethod
    def from_properties(cls, properties: Mapping[bytes, bytes | None], address: str, port: int) -> Self | None:
        """The ad a TXT record describes, at the SRV/A record's address and port; None if malformed."""
        try:
            text = {key.decode(): value.decode() for key, value in properties.items() if value is not None}
            if text.get("v") != TXT_VERSION:
                return None
            players, joined = text["players"], text["joined"]
            if not DECIMAL.fullmatch(players) or not DECIMAL.fullmatch(joined):
                return None
            return cls(
                name=text["host"],
                game=text["game"],
                players=int(players),
                joined=int(joined),
                address=address,
                port=port,
                lobby_id=text["id"],
            )
        except (KeyError, ValueError):
            return None

    @classmethod
    def from_info(cls, info: ServiceInfo) -> Self | None:
        """The ad a resolved service describes; None unless it is a well-formed p2pfish lobby. Of a host's
        several addresses, the ad's is the first on one of this machine's networks (else the first)."""
        addresses = info.parsed_addresses(IPVersion.V4Only)
        if info.type != SERVICE_TYPE or info.port is None or not addresses:
            return None
        near = [address for address in addresses if same_network(address)]
        return cls.from_properties(info.properties, (near or addresses)[0], info.port)


def instance_label(ad: LobbyAd) -> str:
    """The DNS-SD instance label: the host's name made label-safe, then the lobby id, within 63 bytes."""
    suffix = f"-{ad.lobby_id}"
    safe_name = UNSAFE_IN_LABEL.sub("-", ad.name).encode()
    truncated = safe_name[: DNS_LABEL_BYTES - len(suffix)].decode(errors="ignore")
    return truncated + suffix


def service_info(ad: LobbyAd) -> AsyncServiceInfo:
    return AsyncServiceInfo(
        SERVICE_TYPE,
        f"{instance_label(ad)}.{SERVICE_TYPE}",
        port=ad.port,
        properties=ad.to_properties(),
        server=f"p2pfish-{ad.lobby_id}.local.",
        addresses=[socket.inet_aton(address) for address in (ad.address, *ad.more)],
    )


def open_zeroconf(interfaces: list[str] | None) -> AsyncZeroconf:
    if interfaces is None:
        return AsyncZeroconf(ip_version=IPVersion.V4Only)
    return AsyncZeroconf(interfaces=interfaces, ip_version=IPVersion.V4Only)


class Advertiser:
    """Advertises one lobby until closed. Not reusable: start, update any number of times, close."""

    def __init__(self) -> None:
        self._zeroconf: AsyncZeroconf | None = None
        self._info: AsyncServiceInfo | None = None

    async def start(self, ad: LobbyAd, interfaces: list[str] | None = None) -> None:
        """Probe for the name, register and announce the lobby (about a second)."""
        if self._zeroconf is not None:
            raise RuntimeError("this advertiser has already been started")
        info = service_info(ad)
        zeroconf = open_zeroconf(interfaces)
        try:
            announced = await zeroconf.async_register_service(info)
            await announced
        except BaseException:
            await zeroconf.async_close()
            raise
        self._zeroconf, self._info = zeroconf, info

    async def update(self, ad: LobbyAd) -> None:
        """Re-announce the lobby with new facts (typically the joined count); same name and lobby id."""
        if self._zeroconf is None or self._info is None:
            raise RuntimeError("update() before start() or after close()")
        info = service_info(ad)
        if info.name != self._info.name:
            raise ValueError("an update must keep the host name and lobby id of the advertised lobby")
        announced = await self._zeroconf.async_update_service(info)
        await announced
        self._info = info

    async def close(self) -> None:
        """Withdraw the lobby (goodbye packets) and release the sockets. Safe to call twice."""
        zeroconf, info = self._zeroconf, self._info
        self._zeroconf = self._info = None
        if zeroconf is None or info is None:
            return
        try:
            withdrawn = await zeroconf.async_unregister_service(info)
            await withdrawn
        finally:
            await zeroconf.async_close()


async def browse(
    timeout_s: float,
    interfaces: list[str] | None = None,
    *,
    on_found: Callable[[LobbyAd], None] | None = None,
    enough: asyncio.Event | None = None,
) -> list[LobbyAd]:
    """Listen for timeout_s seconds, or until `enough` is set; return the well-formed lobbies seen, one per lobby
    id, by name. `on_found` is told of each lobby as it is seen (again when its announcement changes)."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout_s
    found: dict[str, LobbyAd] = {}
    resolving: dict[str, asyncio.Task[None]] = {}
    async_zeroconf = open_zeroconf(interfaces)

    async def resolve(name: str) -> None:
        info = AsyncServiceInfo(SERVICE_TYPE, name)
        remaining_ms = (deadline - loop.time()) * 1000
        if await info.async_request(async_zeroconf.zeroconf, min(remaining_ms, RESOLVE_TIMEOUT_MS)):
            ad = LobbyAd.from_info(info)
            if ad is not None:
                found[name] = ad
                if on_found is not None:
                    on_found(ad)

    def on_service_state_change(
        zeroconf: Zeroconf, service_type: str, name: str, state_change: ServiceStateChange
    ) -> None:
        if name in resolving:
            resolving.pop(name).cancel()
        if state_change is ServiceStateChange.Removed:
            found.pop(name, None)
        else:
            resolving[name] = loop.create_task(resolve(name))

    try:
        async with AsyncServiceBrowser(async_zeroconf.zeroconf, SERVICE_TYPE, handlers=[on_service_state_change]):
            stop = enough if enough is not None else asyncio.Event()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(stop.wait(), max(0.0, deadline - loop.time()))
    finally:
        for task in resolving.values():
            task.cancel()
        await asyncio.gather(*resolving.values(), return_exceptions=True)
        await async_zeroconf.async_close()
    by_lobby = {ad.lobby_id: ad for _, ad in sorted(found.items())}
    return sorted(by_lobby.values(), key=lambda ad: (ad.name.casefold(), ad.lobby_id))


def format_lobbies(ads: Sequence[LobbyAd]) -> str:
    """A table of the lobbies (name, game, joined/players, address:port) for the terminal."""
    if not ads:
        return "no open lobbies found on this network"
    header = ("name", "game", "seats", "address")
    rows = [header, *((ad.name, ad.game, f"{ad.joined}/{ad.players}", f"{ad.address}:{ad.port}") for ad in ads)]
    widths = [max(len(row[column]) for row in rows) for column in range(len(header))]
    return "\n".join(
        "  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=True)).rstrip() for row in rows
    )
