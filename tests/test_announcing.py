"""The host's LAN announcement is made beside its lobby (p2pfish/announcing.py), with a stand-in for mDNS: a lobby
closed while the announcement is still probing stops it; one made late shows the players seated meanwhile, and
then follows them; a failed one is noted, once; loopback addresses are never announced."""

import asyncio
from collections.abc import Callable, Iterator
from typing import ClassVar

import pytest
from ui_helpers import until

from p2pfish.announcing import LobbyAnnouncement
from p2pfish.net import discovery
from p2pfish.net.discovery import LobbyAd


class FakeAdvertiser:
    """Records what an Advertiser would have sent; `start` waits for the test's go-ahead (the probes)."""

    probing: ClassVar[asyncio.Event] = asyncio.Event()
    log: ClassVar[list[str]] = []

    async def start(self, ad: LobbyAd, interfaces: list[str] | None = None) -> None:
        FakeAdvertiser.log.append(f"probing {ad.joined}")
        try:
            await FakeAdvertiser.probing.wait()
        except asyncio.CancelledError:
            FakeAdvertiser.log.append("stopped")
            raise
        FakeAdvertiser.log.append(f"announced {ad.joined}")

    async def update(self, ad: LobbyAd) -> None:
        FakeAdvertiser.log.append(f"updated {ad.joined}")

    async def close(self) -> None:
        FakeAdvertiser.log.append("withdrawn")


class FailingAdvertiser(FakeAdvertiser):
    async def start(self, ad: LobbyAd, interfaces: list[str] | None = None) -> None:
        raise OSError("no multicast here")


@pytest.fixture(autouse=True)
def fake_mdns(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setattr(discovery, "Advertiser", FakeAdvertiser)
    FakeAdvertiser.log = []
    yield


def announce(notes: list[str], hosts: tuple[str, ...] = ("192.0.2.7",)) -> LobbyAnnouncement:
    return LobbyAnnouncement("ann", "fishnstones", 4, list(hosts), 4000, bind_host="0.0.0.0", note=notes.append)


def logged(*entries: str) -> Callable[[], bool]:
    return lambda: FakeAdvertiser.log == list(entries)


def test_a_lobby_closed_while_its_announcement_probes_stops_it() -> None:
    async def scenario() -> None:
        FakeAdvertiser.probing = asyncio.Event()
        announcement = announce([])
        await until(logged("probing 1"), "the announcement to probe")
        announcement.seated(4)
        await announcement.close()

    asyncio.run(scenario())
    assert FakeAdvertiser.log == ["probing 1", "stopped"]


def test_an_announcement_made_late_shows_who_was_seated_meanwhile_then_follows() -> None:
    async def scenario() -> None:
        FakeAdvertiser.probing = asyncio.Event()
        announcement = announce([])
        await until(logged("probing 1"), "the announcement to probe")
        announcement.seated(3)
        FakeAdvertiser.probing.set()
        await until(logged("probing 1", "announced 1", "updated 3"), "the late announcement to show 3 seated")
        announcement.seated(2)
        await until(logged("probing 1", "announced 1", "updated 3", "updated 2"), "the update to 2 seated")
        announcement.seated(4)  # full: the lobby is about to close, nothing to update
        await announcement.close()

    asyncio.run(scenario())
    assert FakeAdvertiser.log == ["probing 1", "announced 1", "updated 3", "updated 2", "withdrawn"]


def test_a_failed_announcement_is_noted_once_and_loopback_is_never_announced(monkeypatch: pytest.MonkeyPatch) -> None:
    notes: list[str] = []

    async def scenario() -> None:
        monkeypatch.setattr(discovery, "Advertiser", FailingAdvertiser)
        failing = announce(notes)
        await until(lambda: bool(notes), "the failure to be noted")
        failing.seated(2)
        await failing.close()
        monkeypatch.setattr(discovery, "Advertiser", FakeAdvertiser)
        loopback = announce(notes, ("127.0.0.1",))
        loopback.seated(2)
        await loopback.close()

    asyncio.run(scenario())
    assert notes == ["  (not announced on the LAN: no multicast here)"]
    assert FakeAdvertiser.log == []
