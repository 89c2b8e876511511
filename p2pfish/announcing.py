"""A host's lobby announced on the LAN (mDNS) beside the lobby, not before it: the announcement's probes take
about 1.5 s, and joiners (a host's own bots first) are seated meanwhile. Once made, the announcement follows the
number seated; it is withdrawn when the lobby closes, or stopped if it is still being made."""

import asyncio
from collections.abc import Callable
from dataclasses import replace
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from p2pfish.net.discovery import Advertiser, LobbyAd

Note = Callable[[str], None]
Made = tuple["Advertiser", "LobbyAd"]


class LobbyAnnouncement:
    """Starts announcing the lobby at once, at its addresses `hosts` but the loopback ones."""

    def __init__(
        self, name: str, game: str, players: int, hosts: list[str], port: int, *, bind_host: str, note: Note
    ) -> None:
        self._players, self._note = players, note
        self._seated = 1
        self._closed = False
        self._made: Made | None = None
        self._updates: set[asyncio.Task[None]] = set()
        lan = [host for host in hosts if not host.startswith("127.")]
        self._starting: asyncio.Task[Made | None] | None = None
        if lan:
            making = _start(name, game, players, lan, port, bind_host=bind_host, note=note)
            self._starting = asyncio.ensure_future(making)
            self._starting.add_done_callback(self._started)

    def seated(self, count: int) -> None:
        """The lobby now seats `count` players."""
        self._seated = count
        self._follow()

    def _started(self, starting: "asyncio.Task[Made | None]") -> None:
        if self._closed or starting.cancelled():
            return
        if (error := starting.exception()) is not None:
            self._note(f"  (not announced on the LAN: {error})")
            return
        self._made = starting.result()
        self._follow()

    def _follow(self) -> None:
        if self._made is None or self._seated >= self._players or self._made[1].joined == self._seated:
            return
        advertiser, ad = self._made[0], replace(self._made[1], joined=self._seated)
        self._made = advertiser, ad
        update = asyncio.ensure_future(advertiser.update(ad))
        self._updates.add(update)
        update.add_done_callback(self._updates.discard)

    async def close(self) -> None:
        """Withdraw the announcement (goodbye packets), or stop making it (a start still probing closes its
        sockets itself: Advertiser.start)."""
        self._closed = True
        starting, self._starting = self._starting, None
        if starting is not None:
            if not starting.done():
                starting.cancel()
                await asyncio.wait([starting])
            if self._made is None and not starting.cancelled() and starting.exception() is None:
                self._made = starting.result()  # made, its callback not yet run
        made, self._made = self._made, None
        if made is not None:
            await made[0].close()


async def _start(
    name: str, game: str, players: int, hosts: list[str], port: int, *, bind_host: str, note: Note
) -> Made | None:
    """mDNS is imported only here and where lobbies are looked for: a peer that needs no discovery never loads it.
    A failure only means no announcement."""
    from p2pfish.net.discovery import Advertiser, LobbyAd, new_lobby_id

    try:
        ad = LobbyAd(name[:20], game, players, 1, hosts[0], port, new_lobby_id(), tuple(hosts[1:]))
        advertiser = Advertiser()
        await advertiser.start(ad, None if bind_host == "0.0.0.0" else [bind_host])
    except (ValueError, OSError) as error:
        note(f"  (not announced on the LAN: {error})")
        return None
    return advertiser, ad
