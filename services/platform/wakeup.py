"""Wake a log follower (publisher, projector) as soon as an append commits.

Appends `NOTIFY` inside their transaction, so Postgres delivers the notice only
at commit. Followers still poll on a timeout: a notice lost while the listening
connection was down must never leave an event waiting.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable

import psycopg
from psycopg import AsyncConnection

from services.platform.eventstore import NOTIFY_CHANNEL

log = logging.getLogger(__name__)


# The projector's notice of a new checkpoint (sent at the commit that moves it): what the gateway waits
# for, since it never reads the log past the projections.
PROJECTIONS_CHANNEL = "jipsa_projections"


class StoreWakeup:
    """Wait for a notice on `channel`: the store's appends by default, or the projector's checkpoints."""

    def __init__(self, database_url: str, channel: str = NOTIFY_CHANNEL) -> None:
        self.database_url = database_url
        self.channel = channel
        self._conn: AsyncConnection | None = None
        self._notified = asyncio.Event()
        self._listener: asyncio.Task[None] | None = None

    async def __aenter__(self) -> StoreWakeup:
        self._listener = asyncio.create_task(self._listen())
        return self

    async def __aexit__(self, *exc: object) -> None:
        if self._listener:
            self._listener.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._listener

    async def wait(self, stop: asyncio.Event, timeout: float) -> bool:
        """Return on a commit notice, on `stop`, or after `timeout` seconds, whichever comes first;
        whether a notice came."""
        waiters = [asyncio.create_task(self._notified.wait()), asyncio.create_task(stop.wait())]
        _, pending = await asyncio.wait(waiters, timeout=timeout, return_when=asyncio.FIRST_COMPLETED)
        for task in pending:
            task.cancel()
        notified = self._notified.is_set()
        self._notified.clear()
        return notified

    async def follow(
        self,
        stop: asyncio.Event,
        catch_up: Callable[[], Awaitable[object]],
        *,
        name: str,
        poll_interval_s: float,
        first_backoff_s: float = 0.5,
        max_backoff_s: float = 30.0,
    ) -> None:
        """Catch up at every notice, and at least every `poll_interval_s`, until `stop` (a log
        follower's loop). A lost Postgres is an outage, not a crash: retried with exponential backoff,
        for ever, and a notice cuts the wait short, since it means Postgres is back."""
        failures = 0
        while not stop.is_set():
            try:
                await catch_up()
            except psycopg.OperationalError as lost:
                failures += 1
                delay = min(max_backoff_s, first_backoff_s * 2 ** (failures - 1))
                log.warning("%s lost Postgres (%s); retrying in %.1f s", name, lost, delay)
                await self.wait(stop, delay)
                continue
            if failures:
                log.info("%s back on Postgres after %d failed attempts", name, failures)
                failures = 0
            await self.wait(stop, poll_interval_s)

    async def _listen(self) -> None:
        while True:
            try:
                async with await AsyncConnection.connect(self.database_url, autocommit=True) as conn:
                    await conn.execute(f"LISTEN {self.channel}")
                    self._notified.set()  # we may have missed notices while (re)connecting: catch up once
                    async for _ in conn.notifies():
                        self._notified.set()
            except Exception as e:  # Postgres restarting: followers keep polling meanwhile
                log.warning("listen %s: %s; reconnecting", self.channel, e)
                await asyncio.sleep(1.0)
