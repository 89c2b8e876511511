"""Driving the terminal app headless: run it, feed it keys, and wait on conditions, never on time."""

import asyncio
from collections.abc import Awaitable, Callable

from p2pfish.ui.app import GameApp

TIMEOUT_S = 10.0


async def until(condition: Callable[[], bool], what: str) -> None:
    """Let the app run until `condition` holds (it reads keys between our awaits)."""
    deadline = asyncio.get_running_loop().time() + TIMEOUT_S
    while not condition():
        if asyncio.get_running_loop().time() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        await asyncio.sleep(0.01)


def drive(app: GameApp, script: Callable[[], Awaitable[None]]) -> None:
    """Run the app, play `script` against it, and wait for the app to end."""

    async def main() -> None:
        running = asyncio.ensure_future(app.run())
        await until(lambda: app.app.is_running, "the app to start")
        await script()
        await asyncio.wait_for(running, TIMEOUT_S)

    asyncio.run(main())
