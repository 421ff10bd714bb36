"""The projector's composition root: settings in, a store over an open pool out, and the process that
follows the log with it until SIGTERM or SIGINT.

The projector follows the store, not the bus, so it runs its own loop rather than the platform's
`run_service`, which binds NATS consumers; it starts and stops with the same signals.
"""

from __future__ import annotations

import asyncio
import logging
import signal
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from services.platform import heap, loop
from services.platform.db import open_pool
from services.platform.eventstore import EventStore
from services.platform.probes import ProbeSettings, Readiness, pool_answers, probes_served
from services.platform.runtime import ServersNotFound, load_infra_settings
from services.platform.service import server_url
from services.platform.settings import InfraSettings
from services.platform.telemetry import setup_telemetry
from services.projector.runner import Projector


def load_settings() -> InfraSettings:
    """DATABASE_URL, else the servers of the `make run` that is up (ServersNotFound if none).

    The projector needs Postgres only, so a set DATABASE_URL is enough even without NATS_URL.
    """
    settings = InfraSettings()
    return settings if settings.database_url else load_infra_settings()


@asynccontextmanager
async def opened_store(settings: InfraSettings) -> AsyncIterator[EventStore]:
    pool = await open_pool(server_url(settings.database_url, "DATABASE_URL"))
    try:
        yield EventStore(pool)
    finally:
        await pool.close()


async def follow_the_log() -> None:
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    async with opened_store(load_settings()) as store:
        # Ready while Postgres answers: the projector holds no NATS connection (it follows the log).
        async with probes_served(
            ProbeSettings(), Readiness({"postgres": pool_answers(store.pool)}, waiting=None)
        ):
            heap.settle()
            await Projector(store).run(stop)


def main() -> None:
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    setup_telemetry("projector")
    try:
        loop.run(follow_the_log())
    except ServersNotFound as missing:
        sys.exit(str(missing))
