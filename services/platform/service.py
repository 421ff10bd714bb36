"""The one way a Jipsa service process runs: connect, bind its consumers, work until SIGTERM/SIGINT.

A service's bootstrap.py builds its subscriptions (and any background loops, such as the
supervisor's timers) from its settings and hands them here; this module owns connecting,
stopping and closing, so every service starts and stops the same way under `make run`.

Starting while the store or the bus is down is an outage, not a crash: the service waits for
them with a backoff. Stopping is bounded whatever the service waits on: on SIGTERM, start-up is
abandoned at once; work in hand gets STOP_WITHIN_S to finish, then whatever still waits (a
handler holding its message through an outage, a loop blocked on the pool) is cancelled, its
transaction rolled back and its message left to come back after ack_wait. STOP_WITHIN_S plus
closing stays under procman's grace, so `make run`'s Ctrl-C never has to SIGKILL a service.

With `JIPSA_HEALTH_PORT` set, the process answers `/livez` and `/readyz` (probes.py) from start to
stop: ready once it holds a pool Postgres answers through and a NATS connection that is up, and has
built its wiring; while it waits for a server, `/readyz` says which.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import signal
import sys
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import TypeVar

from nats.aio.client import Client as NATS
from psycopg_pool import AsyncConnectionPool

from services.platform import heap, loop
from services.platform.bus import ConsumerPolicy, connect
from services.platform.consumer import Consumer, Subscription
from services.platform.db import open_pool
from services.platform.outages import backoff, is_outage
from services.platform.probes import ProbeSettings, Readiness, bus_answers, pool_answers, probes_served
from services.platform.runtime import ServersNotFound, load_infra_settings
from services.platform.settings import InfraSettings
from services.platform.telemetry import setup_telemetry

log = logging.getLogger("jipsa.service")
BackgroundLoop = Callable[[asyncio.Event], Awaitable[None]]
T = TypeVar("T")
STOP_WITHIN_S = 6.0  # procman's grace is 10 s: this, then closing (CLOSE_WITHIN_S each), fits in it
CLOSE_WITHIN_S = 1.0
REACH_FIRST_WAIT_S, REACH_MAX_WAIT_S = 1.0, 15.0


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
    *,
    db_wait_s: float = 30.0,
    stop_within_s: float = STOP_WITHIN_S,
    probes: ProbeSettings | None = None,
) -> None:
    """Run a service's consumers and loops until `stop` is set (tests call this in-process, with a
    faster retry policy than infra/nats/jetstream.json's); `db_wait_s` bounds a checkout's wait;
    `probes` says where to answer /livez and /readyz (nowhere by default)."""
    readiness = Readiness()
    async with probes_served(probes or ProbeSettings(port=0), readiness):
        work = asyncio.create_task(_work(name, build, settings, stop, policy, db_wait_s, readiness))
        stopped = asyncio.create_task(stop.wait())
        await asyncio.wait({work, stopped}, return_when=asyncio.FIRST_COMPLETED)
        stopped.cancel()
        if work.done():
            return work.result()
        grace = stop_within_s if readiness.waiting is None else 0  # a start-up is abandoned at once
        readiness.waiting = "stopping"  # no new work is sent to a process on its way out
        try:
            await asyncio.wait_for(work, grace)
        except TimeoutError:
            log.warning("%s: still busy %g s after the stop; cancelled what was left", name, stop_within_s)


async def _work(
    name: str,
    build: Build,
    settings: InfraSettings,
    stop: asyncio.Event,
    policy: ConsumerPolicy | None,
    db_wait_s: float,
    readiness: Readiness,
) -> None:
    readiness.waiting = "waiting for Postgres"
    database_url = server_url(settings.database_url, "DATABASE_URL")
    nats_url = server_url(settings.nats_url, "NATS_URL")
    pool = await once_reachable(name, lambda: open_pool(database_url, wait_s=db_wait_s))
    readiness.checks["postgres"] = pool_answers(pool)
    try:
        readiness.waiting = "waiting for NATS"
        nc = await once_reachable(name, lambda: connect(nats_url, name))
        readiness.checks["nats"] = bus_answers(nc)
        try:
            readiness.waiting = "building"
            wiring = await once_reachable(name, lambda: build(pool, settings))
            consumers = [Consumer(s, pool, nc, settings, policy) for s in wiring.subscriptions]
            heap.settle()
            readiness.waiting = None
            await asyncio.gather(*(c.run(stop) for c in consumers), *(loop(stop) for loop in wiring.loops))
        finally:
            await close_bus(nc)
    finally:
        await pool.close(timeout=CLOSE_WITHIN_S)


def server_url(url: str | None, variable: str) -> str:
    """A server's URL from settings that load_infra_settings() (or a test) filled in."""
    if not url:
        raise ServersNotFound(f"{variable} is not set and no `make run` is up")
    return url


async def once_reachable(name: str, start: Callable[[], Awaitable[T]]) -> T:
    """What `start` makes (a pool, a connection, the wiring), started again with a backoff while an
    outage stops it: a service started, or building, while a server is down waits for it."""
    delays = backoff(REACH_FIRST_WAIT_S, REACH_MAX_WAIT_S)
    while True:
        try:
            return await start()
        except Exception as e:
            if not is_outage(e):
                raise
            delay = next(delays)
            log.warning("%s: %s; trying again in %.0f s", name, e, delay)
            await asyncio.sleep(delay)


async def close_bus(nc: NATS) -> None:
    """Drain if NATS answers in time; a drain waits for a reconnection that may never come."""
    with contextlib.suppress(Exception):
        await asyncio.wait_for(nc.drain(), CLOSE_WITHIN_S)
    if not nc.is_closed:
        await nc.close()


def run_service(name: str, build: Build) -> None:
    """Run a service's process (`python -m services.<name>` calls it through the service's bootstrap.py):
    the servers of the `make run` that is up, or DATABASE_URL/NATS_URL."""
    logging.basicConfig(level=logging.INFO, format=f"%(asctime)s %(levelname)s {name} %(name)s: %(message)s")
    setup_telemetry(name)

    async def run() -> None:
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGTERM, signal.SIGINT):
            loop.add_signal_handler(sig, stop.set)
        await serve(name, build, load_infra_settings(), stop, probes=ProbeSettings())

    try:
        loop.run(run())
    except ServersNotFound as missing:
        sys.exit(str(missing))
