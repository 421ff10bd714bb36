"""Commit notices against a real Postgres: a follower of the store hears every append, and is told
whether its appender publishes it itself (what lets the relay wait for more of those)."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

import pytest

from services.platform.eventstore import EventStore, Recorded
from services.platform.wakeup import ANNOUNCED, PROJECTIONS_CHANNEL, UNANNOUNCED, StoreWakeup
from tests.integration.bus_helpers import query_event

pytestmark = pytest.mark.integration


async def nobody_listens(records: Sequence[Recorded]) -> None:
    """An announcer without a bus: only the notice's channel matters here."""


async def heard_after(wakeup: StoreWakeup, stop: asyncio.Event) -> None:
    """Drain the notice the listener gives itself on connecting (it may have missed some)."""
    await wakeup.wait(stop, 30)


async def test_a_follower_hears_both_kinds_of_append_and_is_told_which(
    store: EventStore, database_url
) -> None:
    announcing = EventStore(store.pool, nobody_listens)
    stop = asyncio.Event()
    async with StoreWakeup(database_url) as wakeup:
        await heard_after(wakeup, stop)
        await announcing.append([query_event("announced")])
        assert await wakeup.wait(stop, 30) == ANNOUNCED
        await store.append([query_event("plain")])
        assert await wakeup.wait(stop, 30) == UNANNOUNCED


async def test_waiting_for_an_unannounced_append_lets_announced_ones_pass(
    store: EventStore, database_url
) -> None:
    announcing = EventStore(store.pool, nobody_listens)
    stop = asyncio.Event()
    async with StoreWakeup(database_url) as wakeup:
        await heard_after(wakeup, stop)
        waiting = asyncio.create_task(wakeup.wait(stop, 30, announced_too=False))
        await announcing.append([query_event("announced")])
        await asyncio.sleep(0.2)  # time for its notice to arrive, were it to end the wait
        assert not waiting.done(), "an announced append ended a wait for an unannounced one"
        await store.append([query_event("plain")])
        assert await waiting == UNANNOUNCED


async def test_the_projectors_notices_tell_how_far_it_has_built(store: EventStore, database_url) -> None:
    """The position a notice carries is told once taken, the furthest first; a notice without one (as on
    reconnecting) tells none, so the follower asks the store then."""
    stop = asyncio.Event()
    async with StoreWakeup(database_url, (PROJECTIONS_CHANNEL,)) as wakeup:
        await heard_after(wakeup, stop)
        assert wakeup.take_position() is None
        async with store.pool.connection() as conn:
            for told in ("40", "42"):  # two checkpoints' notices, delivered at one commit
                await conn.execute("SELECT pg_notify(%s, %s)", (PROJECTIONS_CHANNEL, told))
        taken: list[int] = []
        while 42 not in taken:
            await wakeup.wait(stop, 30)
            if (position := wakeup.take_position()) is not None:
                taken.append(position)
        assert taken in ([42], [40, 42])
        assert wakeup.take_position() is None
