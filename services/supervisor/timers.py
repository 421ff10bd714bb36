"""Deadlines without a waiting worker: a run that waits (a step's timeout, a retry's backoff, a
person's approval) holds nothing but one row in `supervisor_timers`.

Every `tick_s` the loop claims due rows with FOR UPDATE SKIP LOCKED (so replicas share the work
and never take the same run), reconciles each run in that transaction and commits. A lost race
with a consumer deciding for the same run (ConcurrencyError) rolls the batch back; the rows are
still due and are taken again at the next tick. A lost Postgres connection is an outage: the
loop logs it and keeps ticking.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging

import psycopg
from psycopg_pool import AsyncConnectionPool

from services.platform.eventstore import ConcurrencyError, append_in
from services.supervisor.handlers import Supervisor

log = logging.getLogger("jipsa.supervisor.timers")


class TimerLoop:
    def __init__(
        self, pool: AsyncConnectionPool, supervisor: Supervisor, tick_s: float = 0.25, batch: int = 20
    ):
        self.pool, self.supervisor, self.tick_s, self.batch = pool, supervisor, tick_s, batch

    async def run(self, stop: asyncio.Event) -> None:
        while not stop.is_set():
            try:
                await self.fire_due()
            except (psycopg.OperationalError, ConcurrencyError) as e:
                log.warning("timers: %s: %s; next tick", type(e).__name__, e)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(stop.wait(), self.tick_s)

    async def fire_due(self) -> int:
        """Reconcile every run whose deadline has passed; return how many."""
        async with self.pool.connection() as conn, conn.transaction():
            cur = await conn.execute(
                "SELECT run_id FROM supervisor_timers WHERE due_at <= %s"
                " ORDER BY due_at LIMIT %s FOR UPDATE SKIP LOCKED",
                (self.supervisor.clock(), self.batch),
            )
            runs = [r["run_id"] for r in await cur.fetchall()]
            for run_id in runs:
                outcome = await self.supervisor.reconcile(conn, run_id)
                await append_in(conn, outcome.events, expected_version=outcome.expected_version)
            return len(runs)
