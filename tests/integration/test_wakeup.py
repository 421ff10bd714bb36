"""Commit notices against a real Postgres: a follower of the store hears every append, and is told
whether its appender publishes it itself (what lets the relay wait for more of those)."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

import pytest

from services.platform.eventstore import EventStore, Recorded
from services.platform.wakeup import ANNOUNCED, UNANNOUNCED, StoreWakeup
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
