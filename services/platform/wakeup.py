"""Wake a log follower (publisher, projector) as soon as an append commits.

Appends `NOTIFY` inside their transaction, so Postgres delivers the notice only
at commit. Followers still poll on a timeout: a notice lost while the listening
connection was down must never leave an event waiting.

An append whose appender publishes it itself notifies on a channel of its own
(ANNOUNCED_CHANNEL): a follower of the store hears both, and `wait` says which
kind it heard, so the relay can take its time with the announced ones.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable
from typing import Final, Literal

import psycopg
from psycopg import AsyncConnection

from services.platform.eventstore import ANNOUNCED_CHANNEL, NOTIFY_CHANNEL

log = logging.getLogger(__name__)


UNANNOUNCED: Final = "unannounced"
ANNOUNCED: Final = "announced"
Woken = Literal["unannounced", "announced"] | None  # what a wait heard: the first when both

# The projector's notice of a new checkpoint (sent at the commit that moves it): what the gateway waits
# for, since it never reads the log past the projections.
PROJECTIONS_CHANNEL = "jipsa_projections"


APPENDS = (NOTIFY_CHANNEL, ANNOUNCED_CHANNEL)  # the store's appends, both kinds


class StoreWakeup:
    """Wait for a notice on `channels`: the store's appends by default (both kinds), and (the gateway's
    follower) the projector's checkpoints."""

    def __init__(self, database_url: str, channels: tuple[str, ...] = APPENDS) -> None:
        self.database_url = database_url
        self.channels = channels
        self._notified = asyncio.Event()  # any notice
        self._unannounced = asyncio.Event()  # a notice of anything but an announced append
        self._position: int | None = None  # the furthest position a notice carried, not yet taken
        self._appended = False  # an append's notice came since the last `take_appended`
        self._listener: asyncio.Task[None] | None = None

    async def __aenter__(self) -> StoreWakeup:
        self._listener = asyncio.create_task(self._listen())
        return self

    async def __aexit__(self, *exc: object) -> None:
        if self._listener:
            self._listener.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._listener

    async def wait(self, stop: asyncio.Event, timeout: float, *, announced_too: bool = True) -> Woken:
        """Return on a notice (with `announced_too=False`: one of an append nobody announced), on
        `stop`, or after `timeout` seconds, whichever comes first; what was heard meanwhile."""
        notice = self._notified if announced_too else self._unannounced
        waiters = [asyncio.create_task(notice.wait()), asyncio.create_task(stop.wait())]
        _, pending = await asyncio.wait(waiters, timeout=timeout, return_when=asyncio.FIRST_COMPLETED)
        for task in pending:
            task.cancel()
        heard: Woken = (
            UNANNOUNCED if self._unannounced.is_set() else ANNOUNCED if self._notified.is_set() else None
        )
        self._notified.clear()
        self._unannounced.clear()
        return heard

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
                    for channel in self.channels:
                        await conn.execute(f"LISTEN {channel}")
                    for channel in self.channels:  # we may have missed notices while (re)connecting
                        self._heard(channel)
                    async for notice in conn.notifies():
                        self._heard(notice.channel, notice.payload)
            except Exception as e:  # Postgres restarting: followers keep polling meanwhile
                log.warning("listen %s: %s; reconnecting", self.channels[0], e)
                await asyncio.sleep(1.0)

    def take_position(self) -> int | None:
        """The furthest position the notices heard since the last take carried, if any: the projector's
        say how far the projections are built, so its follower need not ask the store."""
        position, self._position = self._position, None
        return position

    def take_appended(self) -> bool:
        """Whether an append's notice (or a reconnection, which may have missed one) came since the last
        take."""
        appended, self._appended = self._appended, False
        return appended

    def _heard(self, channel: str, payload: str = "") -> None:
        if payload.isdigit():
            self._position = max(self._position or 0, int(payload))
        if channel in APPENDS:
            self._appended = True
        self._notified.set()
        if channel != ANNOUNCED_CHANNEL:
            self._unannounced.set()
