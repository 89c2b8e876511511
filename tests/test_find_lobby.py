"""`join --code` without an address (netplay.find_lobby), with stand-ins for mDNS and the lobby probe: browsing
stops at the first lobby seen that takes the code; the one lobby seen is tried even if it does not; several that
do not, or none, give a clear error."""

import asyncio
from collections.abc import Callable, Sequence

import pytest

from p2pfish import netplay
from p2pfish.core.errors import UsageError
from p2pfish.net import discovery
from p2pfish.net.discovery import LobbyAd

BROWSE_S = 60.0


def ad(name: str, port: int) -> LobbyAd:
    return LobbyAd(name, "fishnstones", 2, 1, "192.0.2.7", port, f"{port:08x}", ())


def run_find(seen: Sequence[LobbyAd], taking: set[int], monkeypatch: pytest.MonkeyPatch) -> tuple[str, list[str]]:
    """find_lobby's answer, and how the fake browse ended ("enough" or "timeout")."""
    ended: list[str] = []

    async def fake_browse(
        timeout_s: float,
        interfaces: list[str] | None = None,
        *,
        on_found: Callable[[LobbyAd], None] | None = None,
        enough: asyncio.Event | None = None,
    ) -> list[LobbyAd]:
        assert timeout_s == BROWSE_S and on_found is not None and enough is not None
        for each in seen:
            on_found(each)
            on_found(each)  # an updated announcement: seen again
        try:
            await asyncio.wait_for(enough.wait(), 0.5)
            ended.append("enough")
        except TimeoutError:
            ended.append("timeout")
        return list(seen)

    async def fake_opens_with(addresses: Sequence[str], code: str) -> list[bool]:
        assert code == "KAN234"
        return [int(address.rpartition(":")[2]) in taking for address in addresses]

    monkeypatch.setattr(discovery, "browse", fake_browse)
    monkeypatch.setattr(netplay, "opens_with", fake_opens_with)
    return asyncio.run(netplay.find_lobby(BROWSE_S, "KAN234")), ended


def test_browsing_stops_at_the_first_lobby_that_takes_the_code(monkeypatch: pytest.MonkeyPatch) -> None:
    found, ended = run_find([ad("bob", 4001), ad("ann", 4002)], {4002}, monkeypatch)
    assert (found, ended) == ("192.0.2.7:4002", ["enough"])


def test_the_one_lobby_seen_is_tried_though_it_did_not_take_the_code(monkeypatch: pytest.MonkeyPatch) -> None:
    found, ended = run_find([ad("ann", 4001)], set(), monkeypatch)
    assert (found, ended) == ("192.0.2.7:4001", ["timeout"])


def test_none_or_several_lobbies_that_do_not_take_the_code_are_a_clear_error(monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(UsageError, match="no open lobby found on this network"):
        run_find([], set(), monkeypatch)
    with pytest.raises(UsageError, match="no open lobby takes this code") as error:
        run_find([ad("bob", 4001), ad("ann", 4002)], set(), monkeypatch)
    assert any("ann" in line for line in error.value.details) and any("bob" in line for line in error.value.details)
