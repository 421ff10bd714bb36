"""Wake a log follower (publisher, projector) as soon as an append commits.

Appends `NOTIFY` inside their transaction, so Postgres delivers the notice only
at commit. Followers still poll on a timeout: a notice lost while the listening
connection was down must never leave an event waiting.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging

from psycopg import AsyncConnection

from services.platform.eventstore import NOTIFY_CHANNEL

log = logging.getLogger(__name__)


class StoreWakeup:
    def __init__(self, database_url: str) -> None:
        self.database_url = database_url
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

    async def wait(self, stop: asyncio.Event, timeout: float) -> None:
        """Return on a commit notice, on `stop`, or after `timeout` seconds, whichever comes first."""
        waiters = [asyncio.create_task(self._notified.wait()), asyncio.create_task(stop.wait())]
        _, pending = await asyncio.wait(waiters, timeout=timeout, return_when=asyncio.FIRST_COMPLETED)
        for task in pending:
            task.cancel()
        self._notified.clear()

    async def _listen(self) -> None:
        while True:
            try:
                async with await AsyncConnection.connect(self.database_url, autocommit=True) as conn:
                    await conn.execute(f"LISTEN {NOTIFY_CHANNEL}")
                    self._notified.set()  # we may have missed notices while (re)connecting: catch up once
                    async for _ in conn.notifies():
                        self._notified.set()
            except Exception as e:  # Postgres restarting: followers keep polling meanwhile
                log.warning("listen %s: %s; reconnecting", NOTIFY_CHANNEL, e)
                await asyncio.sleep(1.0)
