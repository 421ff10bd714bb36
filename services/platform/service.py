"""The one way a Jipsa service process runs: connect, bind its consumers, work until SIGTERM/SIGINT.

A service's `__main__` builds its subscriptions (and any background loops, such as the
supervisor's timers) from its settings and hands them here; this module owns connecting,
stopping and closing, so every service starts and stops the same way under `make run`.
"""

from __future__ import annotations

import asyncio
import logging
import signal
import sys
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass

from psycopg_pool import AsyncConnectionPool

from services.platform.bus import ConsumerPolicy, connect
from services.platform.consumer import Consumer, Subscription
from services.platform.db import open_pool
from services.platform.runtime import ServersNotFound, load_infra_settings
from services.platform.settings import InfraSettings
from services.platform.telemetry import setup_telemetry

BackgroundLoop = Callable[[asyncio.Event], Awaitable[None]]


@dataclass(frozen=True)
class Wiring:
    subscriptions: Sequence[Subscription]
    loops: Sequence[BackgroundLoop] = ()


Build = Callable[[AsyncConnectionPool, InfraSettings], Awaitable[Wiring]]


async def serve(
    name: str,
    build: Build,
    settings: InfraSettings,
    stop: asyncio.Event,
    policy: ConsumerPolicy | None = None,
) -> None:
    """Run a service's consumers and loops until `stop` is set (tests call this in-process, with a
    faster retry policy than infra/nats/jetstream.json's)."""
    pool = await open_pool(settings.database_url)
    nc = await connect(settings.nats_url, name)
    try:
        wiring = await build(pool, settings)
        consumers = [Consumer(s, pool, nc.jetstream(), settings, policy) for s in wiring.subscriptions]
        await asyncio.gather(*(c.run(stop) for c in consumers), *(loop(stop) for loop in wiring.loops))
    finally:
        await nc.drain()
        await pool.close()


def main(name: str, build: Build) -> None:
    """`python -m services.<name>`: the servers of the `make run` that is up, or DATABASE_URL/NATS_URL."""
    logging.basicConfig(level=logging.INFO, format=f"%(asctime)s %(levelname)s {name} %(name)s: %(message)s")
    setup_telemetry(name)

    async def run() -> None:
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGTERM, signal.SIGINT):
            loop.add_signal_handler(sig, stop.set)
        await serve(name, build, load_infra_settings(), stop)

    try:
        asyncio.run(run())
    except ServersNotFound as missing:
        sys.exit(str(missing))
