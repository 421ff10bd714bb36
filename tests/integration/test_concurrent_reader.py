"""A reader following the log by position never skips an event that commits late with a lower position.

Eight writers append for several seconds, some one event per transaction and some
in batches, with random pauses inside their transactions so commits finish out of
order; a reader follows `position > checkpoint` all the while, exactly as the
publisher and the projector do. Every committed event must be seen exactly once,
and each stream's events in version order.
"""

from __future__ import annotations

import asyncio
import random
import time

import pytest

from services.platform.eventstore import EventStore, append_in
from tests.integration.bus_helpers import query_event

pytestmark = pytest.mark.integration
WRITERS = 8
SECONDS = 4.0


async def writer(store: EventStore, n: int, until: float, committed: list) -> None:
    rng = random.Random(n)
    while time.monotonic() < until:
        batch = [query_event(f"w{n}-{rng.randrange(5)}") for _ in range(rng.choice([1, 1, 3]))]
        async with store.pool.connection() as conn, conn.transaction():
            await append_in(conn, batch)
            await asyncio.sleep(
                rng.random() * 0.004
            )  # hold the commit back: out-of-order commits if unguarded
        committed.extend(e.event_id for e in batch)


async def follow(store: EventStore, done: asyncio.Event, seen: list) -> None:
    position = 0
    while True:
        finished = done.is_set()  # read the flag first: after it, one more pass sees every commit
        for record in await store.read_all(position, limit=200):
            seen.append(record)
            position = record.position
        if finished and (await store.read_all(position, limit=1)) == []:
            return
        await asyncio.sleep(0)


async def test_reader_sees_every_committed_event_once_in_stream_order(database_url: str) -> None:
    from services.platform.db import open_pool

    pool = await open_pool(database_url, max_size=WRITERS + 2)
    store = EventStore(pool)
    committed: list = []
    seen: list = []
    done = asyncio.Event()
    reader = asyncio.create_task(follow(store, done, seen))
    until = time.monotonic() + SECONDS
    await asyncio.gather(*(writer(store, n, until, committed) for n in range(WRITERS)))
    done.set()
    await reader
    await pool.close()

    ids = [r.envelope.event_id for r in seen]
    assert len(committed) > 200, "the writers should have raced for a while"
    assert len(ids) == len(set(ids)), "an event was seen twice"
    assert set(ids) == set(committed), f"{len(set(committed) - set(ids))} committed events were skipped"
    positions = [r.position for r in seen]
    assert positions == sorted(positions)
    by_stream: dict[str, list[int]] = {}
    for r in seen:
        by_stream.setdefault(r.envelope.stream_id, []).append(r.stream_version)
    assert all(v == list(range(1, len(v) + 1)) for v in by_stream.values())
