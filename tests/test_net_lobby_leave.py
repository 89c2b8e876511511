"""Leaving a lobby really leaves: a joiner whose connection ends is out (its seat free again, and it never
plays), a host that leaves closes the lobby for everyone with a clear word; and the lobby's small promises:
unique default names, the joiner told the game and the true seat count, a code that picks its lobby among
several, and a mistyped code's look-alike characters explained."""

import asyncio
from collections.abc import Awaitable, Callable

import pytest
from ui_helpers import until

from p2pfish.core.errors import MalformedInput
from p2pfish.crypto.identity import Identity
from p2pfish.net.lobby import (
    LobbyClosed,
    LobbyHost,
    LobbyRefused,
    LobbyState,
    PlayerCard,
    join_lobby,
    new_lobby_nonce,
    normal_code,
    opens_with,
    unique_name,
)
from p2pfish.net.mesh import new_curve_keypair

CODE = "KAN234"
WAIT_S = 10.0


def identity(n: int) -> Identity:
    return Identity.from_seed(bytes([n]) * 32)


def card_maker(n: int, name: str) -> Callable[[bytes], PlayerCard]:
    public, _ = new_curve_keypair()

    def make(nonce: bytes) -> PlayerCard:
        return PlayerCard.make(identity(n), name, public, f"tcp://127.0.0.1:{40000 + n}", nonce)

    return make


def lobby_host(players: int, code: str = CODE, name: str = "ann") -> LobbyHost:
    public, _ = new_curve_keypair()
    card = PlayerCard.make(identity(1), name, public, "tcp://127.0.0.1:40001", new_lobby_nonce())
    return LobbyHost("fishnstones", {}, players=players, host=card, code=code, bind="tcp://127.0.0.1:*")


def address_of(host: LobbyHost) -> str:
    return host.endpoint.removeprefix("tcp://")


def run(scenario: Callable[[], Awaitable[None]]) -> None:
    asyncio.run(asyncio.wait_for(scenario(), 60))


def test_a_joiner_who_leaves_frees_its_seat_and_never_takes_it() -> None:
    async def scenario() -> None:
        host = lobby_host(players=3)
        seen: list[list[str]] = []
        gathering = asyncio.ensure_future(host.gather(lambda cards: seen.append([c.name for c in cards])))
        try:
            leaver = asyncio.ensure_future(join_lobby(address_of(host), CODE, card_maker(2, "lea"), timeout_s=60))
            await until(lambda: len(host.cards) == 2, "lea to be seated")
            leaver.cancel()  # what a joiner's Ctrl-C does: its lobby link is closed
            await until(lambda: len(host.cards) == 1, "lea's seat to be freed")
            # the host's gather loop shows the change on its next turn of the event loop
            await until(lambda: seen[-1] == ["ann"], "the host to show lea's seat freed")
            joiners = [
                asyncio.ensure_future(join_lobby(address_of(host), CODE, card_maker(n, name), timeout_s=60))
                for n, name in ((3, "bob"), (4, "cy"))
            ]
            tables = await asyncio.gather(*joiners)
            table = await gathering
        finally:
            host.close()
        names = [card.name for card in table.cards]
        assert sorted(names) == ["ann", "bob", "cy"] and identity(2).public_bytes not in table.setup.roster
        assert all(t.setup == table.setup for t in tables)

    run(scenario)


def test_a_host_who_leaves_closes_the_lobby_for_every_joiner_with_a_clear_word() -> None:
    async def scenario() -> None:
        host = lobby_host(players=4)
        gathering = asyncio.ensure_future(host.gather())
        joiner = asyncio.ensure_future(join_lobby(address_of(host), CODE, card_maker(2, "bob"), timeout_s=60))
        await until(lambda: len(host.cards) == 2, "bob to be seated")
        gathering.cancel()
        await host.close_before_start("the host left")
        with pytest.raises(LobbyClosed, match="the host closed the lobby: the host left"):
            await asyncio.wait_for(joiner, WAIT_S)

    run(scenario)


def test_the_joiner_hears_the_game_and_the_true_seat_count() -> None:
    async def scenario() -> None:
        host = lobby_host(players=4)
        gathering = asyncio.ensure_future(host.gather())
        states: list[LobbyState] = []
        joiner = asyncio.ensure_future(
            join_lobby(address_of(host), CODE, card_maker(2, "bob"), timeout_s=60, on_change=states.append)
        )
        try:
            await until(lambda: bool(states), "a lobby message")
            assert (states[-1].game, states[-1].players, len(states[-1].cards)) == ("fishnstones", 4, 2)
        finally:
            joiner.cancel()
            gathering.cancel()
            host.close()

    run(scenario)


def test_a_name_taken_at_the_table_is_refused_and_a_default_one_made_unique() -> None:
    async def scenario() -> None:
        host = lobby_host(players=4, name="root")
        gathering = asyncio.ensure_future(host.gather())
        try:
            with pytest.raises(LobbyRefused, match="the name 'Root' is taken at this table"):
                await join_lobby(address_of(host), CODE, card_maker(2, "Root"), timeout_s=WAIT_S)
            taken: list[str] = []

            def default_named(nonce: bytes) -> PlayerCard:
                return card_maker(3, unique_name("root", taken))(nonce)

            joining = join_lobby(address_of(host), CODE, default_named, timeout_s=60, on_welcome=taken.extend)
            joiner = asyncio.ensure_future(joining)
            await until(lambda: len(host.cards) == 2, "the second root to be seated")
            assert [card.name for card in host.cards] == ["root", "root-2"]
            joiner.cancel()
        finally:
            gathering.cancel()
            host.close()

    run(scenario)
    assert unique_name("root", ["root", "root-2", "ann"]) == "root-3"


def test_a_code_picks_its_lobby_among_several() -> None:
    async def scenario() -> None:
        hosts = [lobby_host(players=2, code=code) for code in ("KAN234", "BEE567", "CAT89Z")]
        gatherings = [asyncio.ensure_future(host.gather()) for host in hosts]
        try:
            assert await opens_with([address_of(host) for host in hosts], "bee-567") == [False, True, False]
        finally:
            for host, gathering in zip(hosts, gatherings, strict=True):
                gathering.cancel()
                host.close()

    run(scenario)


def test_a_code_with_a_look_alike_character_says_why() -> None:
    with pytest.raises(MalformedInput, match="never hold 0, 1, I, L or O"):
        normal_code("KAN0I4")
