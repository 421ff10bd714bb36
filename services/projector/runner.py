"""The projector: follows the event log into the projection tables, exactly once.

Exactly once, across crashes and replicas
-----------------------------------------
Each batch is one transaction: lock the checkpoint row (SELECT ... FOR UPDATE),
read the events after it, fold them into the affected runs' rows, write the
rows and the new checkpoint, commit. A crash before the commit leaves both the
rows and the checkpoint as they were, so the batch is applied again, whole; a
second replica blocks on the row lock and, once it gets it, reads the
checkpoint the first one committed (Postgres re-reads a row it waited to lock),
so no event is applied twice. The store serialises appends, so "position >
checkpoint" never misses an event that commits late with a lower position.

Following
---------
The projector catches up whenever the store announces a commit (`StoreWakeup`,
Postgres LISTEN/NOTIFY), and at least every `poll_interval_s`, because a notice
sent while the listener was reconnecting is lost.

Errors
------
A lost connection (Postgres restarting, a network cut) is retried with
exponential backoff, for ever, and logged; a commit notice cuts the wait short,
since it means Postgres is back. Anything else (an event version this
build cannot read, a bug in a fold) propagates: a projection must stop at an
event it cannot apply rather than skip it and be silently wrong.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable

from psycopg import AsyncConnection

from services.platform.db import transaction
from services.platform.eventstore import EventStore
from services.platform.outages import url_of
from services.platform.wakeup import StoreWakeup
from services.projector.handlers import Held, apply
from services.projector.store import (
    Batch,
    batch_of,
    clear,
    events_after,
    load_keys,
    lock_checkpoint,
    locked_batch,
    logged_in,
    position_of,
    save_checkpoint,
)


class Projector:
    def __init__(
        self,
        store: EventStore,
        *,
        batch_size: int = 500,
        poll_interval_s: float = 1.0,
        first_backoff_s: float = 0.5,
        max_backoff_s: float = 30.0,
    ) -> None:
        self.store = store
        self.batch_size = batch_size
        self.poll_interval_s = poll_interval_s
        self.first_backoff_s = first_backoff_s
        self.max_backoff_s = max_backoff_s
        self.held = Held()  # the states of the runs it wrote last (recent.py)

    async def catch_up(self) -> int:
        """Apply every event committed after the checkpoint; return how many, once the head is reached."""
        applied = 0
        while batch := await self._apply_next_batch():
            applied += batch
            if batch < self.batch_size:  # appends are serialised: nothing below the head can appear later
                break
        return applied

    async def rebuild(self) -> int:
        """Clear the projections and fold the whole log again; return how many events were folded.

        One transaction: readers see the old rows until the rebuilt ones commit,
        and live projectors wait on the checkpoint lock instead of interleaving.
        In one pipeline, each batch's read goes out before the batch before it is
        folded, so Postgres reads while Python folds; the checkpoint is saved once,
        at the end, with the last position folded.
        """
        async with self.store.pool.connection() as conn, conn.transaction():
            await lock_checkpoint(conn)
            await clear(conn)
            folded, position = 0, 0
            todo_at: dict[str, int] = {}
            final_at: dict[str, int] = {}
            async with conn.pipeline():
                reading = await events_after(conn, position, self.batch_size)
                while records := await logged_in(reading):
                    folded, position = folded + len(records), records[-1].position
                    reading = await events_after(conn, position, self.batch_size)
                    runs = {r.run_id for r in records}
                    batch = Batch(_of(todo_at, runs), _of(final_at, runs), records)
                    written = await apply(conn, batch, self.held)
                    todo_at.update(written.todo_at)
                    final_at.update(written.final_at)
                await save_checkpoint(conn, position)
            return folded

    async def run(self, stop: asyncio.Event) -> None:
        """Follow the log until `stop` is set, through Postgres restarts."""
        async with StoreWakeup(url_of(self.store.pool)) as wakeup:
            await wakeup.follow(
                stop,
                self.catch_up,
                name="projector",
                poll_interval_s=self.poll_interval_s,
                first_backoff_s=self.first_backoff_s,
                max_backoff_s=self.max_backoff_s,
            )

    async def _apply_next_batch(self) -> int:
        # One round trip begins the transaction, locks the checkpoint and reads the batch after it; one
        # more writes what the batch made and commits.
        async with transaction(self.store.pool, *locked_batch(self.batch_size)) as begun:
            locked, rows = begun.rows
            position_of(locked)  # a database without its checkpoint row is not migrated: say so
            await load_keys(begun.conn, rows)
            return await self._apply_batch(begun.conn, batch_of(rows), then=begun.commit)

    async def _apply_batch(
        self, conn: AsyncConnection, batch: Batch, then: Callable[[], Awaitable[None]] | None = None
    ) -> int:
        """Fold and write a batch; `then` (a COMMIT) goes in the same round trip as the writes."""
        if batch.records:
            # A pipeline: the rows read are waited for as before, the writes after them (the projections'
            # rows, the checkpoint and its notice) go in one round trip instead of one each.
            async with conn.pipeline():
                await apply(conn, batch, self.held)
                await save_checkpoint(conn, batch.records[-1].position)
                if then is not None:
                    await then()
        return len(batch.records)


def _of(positions: dict[str, int], runs: set[str]) -> dict[str, int]:
    return {run_id: positions[run_id] for run_id in runs if run_id in positions}
