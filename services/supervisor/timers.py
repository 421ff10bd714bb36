"""Deadlines without a waiting worker: a run that waits (a step's timeout, a retry's backoff, a
person's approval) holds nothing but one row in `supervisor_timers`.

Every `tick_s` the loop takes due rows one at a time, each in a transaction of its own: the row
is claimed with FOR UPDATE SKIP LOCKED (so replicas share the work and never take the same run),
the run is reconciled and its decisions appended, and the commit releases the store's append
lock before the next run is looked at (no run's response composition waits behind another's).
A lost race with a consumer deciding for the same run (ConcurrencyError) rolls that run back; its
row is still due and is taken again at the next tick. A decision that raises is not allowed to
hold the loop: the run's row is put back by `FAILED_DECISION_DELAY_S` and, if the decision never
succeeds, the watchdog ends the run (watchdog.py). A lost Postgres connection is an outage: the
loop logs it and keeps ticking.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from datetime import timedelta

import psycopg
from psycopg.rows import scalar_row
from psycopg_pool import AsyncConnectionPool

from services.platform.eventstore import ConcurrencyError, append_in
from services.supervisor.handlers import Supervisor

log = logging.getLogger("jipsa.supervisor.timers")
FAILED_DECISION_DELAY_S = 5.0


class TimerLoop:
    def __init__(
        self, pool: AsyncConnectionPool, supervisor: Supervisor, tick_s: float = 0.25, batch: int = 20
    ):
        self.pool, self.supervisor, self.tick_s, self.batch = pool, supervisor, tick_s, batch

    async def run(self, stop: asyncio.Event) -> None:
        while not stop.is_set():
            try:
                await self.fire_due()
            except psycopg.OperationalError as e:
                log.warning("timers: %s: %s; next tick", type(e).__name__, e)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(stop.wait(), self.tick_s)

    async def fire_due(self) -> int:
        """Reconcile up to `batch` runs whose deadline has passed; return how many were taken."""
        taken = 0
        while taken < self.batch:
            try:
                run_id = await self._fire_next()
            except ConcurrencyError as e:  # this run is decided again at the next tick
                log.info("timers: %s; next tick", e)
                return taken + 1
            if run_id is None:
                break
            taken += 1
        return taken

    async def _fire_next(self) -> str | None:
        run_id: str | None = None
        try:
            async with self.pool.connection() as conn, conn.transaction():
                cur = await conn.cursor(row_factory=scalar_row).execute(
                    "SELECT run_id FROM supervisor_timers WHERE due_at <= %s"
                    " ORDER BY due_at LIMIT 1 FOR UPDATE SKIP LOCKED",
                    (self.supervisor.clock(),),
                )
                run_id = await cur.fetchone()
                if run_id is None:
                    return None
                outcome = await self.supervisor.reconcile(conn, run_id)
                await append_in(conn, outcome.events, expected_version=outcome.expected_version)
        except (psycopg.OperationalError, ConcurrencyError):
            raise
        except Exception:
            if run_id is None:
                raise
            log.exception(
                "timers: the decision for run %s failed; retried in %gs", run_id, FAILED_DECISION_DELAY_S
            )
            await self._put_back(run_id)
        return run_id

    async def _put_back(self, run_id: str) -> None:
        due = self.supervisor.clock() + timedelta(seconds=FAILED_DECISION_DELAY_S)
        async with self.pool.connection() as conn:
            await conn.execute("UPDATE supervisor_timers SET due_at = %s WHERE run_id = %s", (due, run_id))
