"""LAN lobby discovery: the TXT record, malformed records, the table, and a real advertise/browse run.

The real run uses mDNS multicast, which may only flow inside network namespaces the test makes itself:
two namespaces joined by a veth pair, an advertiser child in one and a browser child in the other.
"""

import asyncio
import contextlib
import dataclasses
import json
import os
import socket
import sys
from pathlib import Path

import pytest
from conftest import ADDRESS_B
from zeroconf import ServiceInfo

from p2pfish.net.discovery import (
    SERVICE_TYPE,
    Advertiser,
    LobbyAd,
    format_lobbies,
    instance_label,
    new_lobby_id,
    service_info,
)

REPO = Path(__file__).resolve().parent.parent
AD = LobbyAd(name="Alice", game="fishnstones", players=4, joined=1, address="10.77.0.1", port=5555, lobby_id="0badf00d")
GOOD_TXT = AD.to_properties()


def test_txt_record_round_trips() -> None:
    assert GOOD_TXT == {
        b"v": b"1",
        b"game": b"fishnstones",
        b"players": b"4",
        b"joined": b"1",
        b"host": b"Alice",
        b"id": b"0badf00d",
    }
    assert LobbyAd.from_properties(GOOD_TXT, AD.address, AD.port) == AD


def test_a_non_ascii_host_name_round_trips() -> None:
    ad = dataclasses.replace(AD, name="Zoë 🐟")
    assert LobbyAd.from_properties(ad.to_properties(), ad.address, ad.port) == ad


def test_unknown_txt_keys_are_ignored() -> None:
    assert LobbyAd.from_properties({**GOOD_TXT, b"later": b"x"}, AD.address, AD.port) == AD


def with_txt(**changes: bytes | None) -> dict[bytes, bytes | None]:
    txt: dict[bytes, bytes | None] = dict(GOOD_TXT)
    for key, value in changes.items():
        if value is None:
            del txt[key.encode()]
        else:
            txt[key.encode()] = value
    return txt


@pytest.mark.parametrize(
    "txt",
    [
        pytest.param({}, id="empty"),
        pytest.param(with_txt(v=b"2"), id="future-version"),
        pytest.param(with_txt(v=None), id="no-version"),
        pytest.param(with_txt(host=None), id="no-host"),
        pytest.param(with_txt(id=None), id="no-id"),
        pytest.param(with_txt(players=b"four"), id="players-not-a-number"),
        pytest.param(with_txt(players=b"\xd9\xa3"), id="players-arabic-digit"),
        pytest.param(with_txt(players=b"-4"), id="players-negative"),
        pytest.param(with_txt(players=b"0"), id="players-zero"),
        pytest.param(with_txt(players=b"999999999999"), id="players-huge"),
        pytest.param(with_txt(joined=b"5"), id="more-joined-than-seats"),
        pytest.param(with_txt(joined=b" 1"), id="joined-padded"),
        pytest.param(with_txt(host=b""), id="host-empty"),
        pytest.param(with_txt(host=b"\xff\xfe"), id="host-not-utf8"),
        pytest.param(with_txt(host=b"Al\nice"), id="host-control-char"),
        pytest.param(with_txt(host=b"x" * 200), id="host-too-long"),
        pytest.param(with_txt(game=b"Fish Stones!"), id="game-bad-id"),
        pytest.param(with_txt(id=b"XYZ"), id="lobby-id-not-hex"),
        pytest.param({**GOOD_TXT, b"\xff": b"1"}, id="key-not-utf8"),
        pytest.param({**GOOD_TXT, b"id": None}, id="id-without-value"),
    ],
)
def test_malformed_txt_records_give_none(txt: dict[bytes, bytes | None]) -> None:
    assert LobbyAd.from_properties(txt, AD.address, AD.port) is None


@pytest.mark.parametrize(("address", "port"), [("10.77.0", 5555), ("::1", 5555), ("0.0.0.0", 5555), ("1.2.3.4", 0)])
def test_bad_addresses_and_ports_give_none(address: str, port: int) -> None:
    assert LobbyAd.from_properties(GOOD_TXT, address, port) is None


def test_building_a_bad_ad_raises() -> None:
    with pytest.raises(ValueError, match="joined"):
        dataclasses.replace(AD, joined=5)
    with pytest.raises(ValueError, match="IPv4"):
        dataclasses.replace(AD, address="example.org")


def info_for(
    txt: bytes | dict[bytes, bytes], *, port: int | None = AD.port, addresses: list[bytes] | None = None
) -> ServiceInfo:
    return ServiceInfo(
        SERVICE_TYPE,
        f"Alice-0badf00d.{SERVICE_TYPE}",
        port=port,
        properties=txt,
        server="p2pfish-0badf00d.local.",
        addresses=[socket.inet_aton(AD.address)] if addresses is None else addresses,
    )


def test_a_resolved_service_gives_its_ad() -> None:
    assert LobbyAd.from_info(service_info(AD)) == AD
    assert LobbyAd.from_info(info_for(GOOD_TXT)) == AD


@pytest.mark.parametrize(
    "info",
    [
        pytest.param(info_for(b"\x05v=1\xff\x40garbage"), id="raw-txt-garbage"),
        pytest.param(info_for(b""), id="no-txt"),
        pytest.param(info_for(GOOD_TXT, port=None), id="no-port"),
        pytest.param(info_for(GOOD_TXT, addresses=[]), id="no-address"),
        pytest.param(info_for(GOOD_TXT, addresses=[socket.inet_pton(socket.AF_INET6, "fe80::1")]), id="ipv6-only"),
    ],
)
def test_malformed_services_give_none(info: ServiceInfo) -> None:
    assert LobbyAd.from_info(info) is None


def test_instance_labels_are_label_safe_and_fit_63_bytes() -> None:
    assert instance_label(AD) == "Alice-0badf00d"
    assert instance_label(dataclasses.replace(AD, name="J.R. Bob")) == "J-R- Bob-0badf00d"
    long_label = instance_label(dataclasses.replace(AD, name="é" * 32))
    assert len(long_label.encode()) <= 63
    assert long_label.endswith("-0badf00d")
    assert service_info(AD).name == f"Alice-0badf00d.{SERVICE_TYPE}"
    assert service_info(AD).server == "p2pfish-0badf00d.local."


def test_new_lobby_ids_are_8_hex_characters() -> None:
    lobby_id = new_lobby_id()
    assert len(lobby_id) == 8
    assert dataclasses.replace(AD, lobby_id=lobby_id).lobby_id == lobby_id


def test_format_lobbies() -> None:
    bob = LobbyAd(
        name="Bob", game="kunayala", players=3, joined=3, address="192.168.1.20", port=40123, lobby_id="abcd1234"
    )
    assert format_lobbies([AD, bob]).splitlines() == [
        "name   game         seats  address",
        "Alice  fishnstones  1/4    10.77.0.1:5555",
        "Bob    kunayala     3/3    192.168.1.20:40123",
    ]
    assert format_lobbies([]) == "no open lobbies found on this network"


def test_update_before_start_is_refused() -> None:
    with pytest.raises(RuntimeError):
        asyncio.run(Advertiser().update(AD))


# --- a real advertise/browse run between two network namespaces -------------------------------------

STEP_TIMEOUT_S = 5.0
BROWSE_S = 2.0

ADVERTISER_CHILD = """
import asyncio, dataclasses, json, sys
from p2pfish.net.discovery import Advertiser, LobbyAd

async def main() -> None:
    ad = LobbyAd(**json.loads(sys.argv[1]))
    advertiser = Advertiser()
    await advertiser.start(ad, [ad.address])
    print("ready", flush=True)
    reader = asyncio.StreamReader()
    await asyncio.get_running_loop().connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin)
    while line := await reader.readline():
        ad = dataclasses.replace(ad, joined=int(line))
        await advertiser.update(ad)
        print("updated", flush=True)
    await advertiser.close()
    print("closed", flush=True)

asyncio.run(main())
"""

BROWSER_CHILD = """
import asyncio, dataclasses, json, sys
from p2pfish.net.discovery import browse

async def main() -> None:
    reader = asyncio.StreamReader()
    await asyncio.get_running_loop().connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin)
    while line := await reader.readline():
        ads = await browse(float(line), [sys.argv[1]])
        print(json.dumps([dataclasses.asdict(ad) for ad in ads]), flush=True)

asyncio.run(main())
"""


async def start_child(ns: str, program: str, argument: str) -> asyncio.subprocess.Process:
    return await asyncio.create_subprocess_exec(
        "ip", "netns", "exec", ns, sys.executable, "-c", program, argument,
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        cwd=REPO,
        env={**os.environ, "PYTHONPATH": str(REPO)},
    )  # fmt: skip


async def send(child: asyncio.subprocess.Process, line: str) -> None:
    assert child.stdin is not None
    child.stdin.write(f"{line}\n".encode())
    await child.stdin.drain()


async def read_line(child: asyncio.subprocess.Process, timeout_s: float) -> str:
    assert child.stdout is not None
    line = await asyncio.wait_for(child.stdout.readline(), timeout_s)
    assert line, f"child exited early with {await child.wait()}"
    return line.decode().strip()


async def browse_in(browser: asyncio.subprocess.Process) -> list[LobbyAd]:
    await send(browser, str(BROWSE_S))
    return [LobbyAd(**fields) for fields in json.loads(await read_line(browser, BROWSE_S + STEP_TIMEOUT_S))]


async def stop(child: asyncio.subprocess.Process) -> None:
    if child.returncode is None:
        with contextlib.suppress(ProcessLookupError):
            child.kill()
        await child.wait()


async def advertise_and_browse(ns_a: str, ns_b: str) -> None:
    advertiser = await start_child(ns_a, ADVERTISER_CHILD, json.dumps(dataclasses.asdict(AD)))
    browser = await start_child(ns_b, BROWSER_CHILD, ADDRESS_B)
    try:
        assert await read_line(advertiser, STEP_TIMEOUT_S) == "ready"
        assert await browse_in(browser) == [AD]

        await send(advertiser, "3")
        assert await read_line(advertiser, STEP_TIMEOUT_S) == "updated"
        assert await browse_in(browser) == [dataclasses.replace(AD, joined=3)]

        assert advertiser.stdin is not None
        advertiser.stdin.close()
        assert await read_line(advertiser, STEP_TIMEOUT_S) == "closed"
        assert await asyncio.wait_for(advertiser.wait(), STEP_TIMEOUT_S) == 0
    finally:
        await stop(advertiser)
        await stop(browser)


def test_a_lobby_advertised_in_one_namespace_is_found_from_another(two_namespaces: tuple[str, str]) -> None:
    asyncio.run(advertise_and_browse(*two_namespaces))
