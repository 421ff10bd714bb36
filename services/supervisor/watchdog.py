"""The watchdog: no run waits for nothing. It reads the store, not the bus, so it works after any crash.

Every `every_s` it ends, with RunFailed (ending.py), every run that has no ending event and
- has a message parked as a dead letter by the planner (planning_failed) or by the supervisor
  itself (decision_failed), and no event since: nobody will ever take that run's next step; or
- has had no event for longer than its own deadlines allow (stalled), or has waited for the person
  longer than `person_wait_s` (expired): the pure verdict of `ending.overdue`.

Never twice, never over an ending: each run is ended in a transaction of its own that reads the
run's stream and appends RunFailed expecting the version it read. A replica (or the run's own
supervisor) that appended anything meanwhile wins; ConcurrencyError means "someone moved", and the
run is judged again, from the store, at the next sweep.

What a sweep reads. Finding silent runs means grouping the log by stream; a sweep groups only the
events after its `horizon`, the position before the first event (after the previous horizon) of
any run that may still be open: everything before it belongs to runs that had ended. Appends are
serialised (eventstore.py), so no event can appear behind a position already read, and an open
run always keeps an event after the horizon. The horizon lives in memory: a restarted watchdog
reads the log once from the start. A run found still within its time is not read again until that
time comes or it has a new event.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable
from datetime import datetime, timedelta
from functools import partial

import psycopg
from psycopg import AsyncConnection
from psycopg_pool import AsyncConnectionPool

from contracts import new_envelope, run_stream
from contracts.supervisor import RunFailed
from services.platform.eventstore import ConcurrencyError, Recorded, append_in, read_stream_in
from services.platform.store_reads import StreamActivity, open_runs_with_parked_events, stream_activity
from services.supervisor.ending import (
    ENDINGS,
    RunLimits,
    decision_failed,
    overdue,
    overdue_at,
    planning_failed,
)
from services.supervisor.handlers import CONSUMER_PREFIX, Clock
from services.supervisor.run import RunState, fold

log = logging.getLogger("jipsa.supervisor.watchdog")
PLANNER_CONSUMER = "planner"  # the durable name the planner binds to (services/planner/handlers.py)
# For a run read in the ending transaction: the RunFailed that ends it now, or None.
Verdict = Callable[[list[Recorded]], RunFailed | None]


class Watchdog:
    def __init__(
        self, pool: AsyncConnectionPool, limits: RunLimits, clock: Clock, every_s: float = 5.0
    ) -> None:
        self.pool, self.limits, self.clock, self.every_s = pool, limits, clock, every_s
        self.horizon = 0
        self.watched_since: datetime | None = None  # silence counts from here; an outage resets it
        # Per run stream read and found not yet due: (its last position then, when it is due; None: ended).
        self.not_before: dict[str, tuple[int, datetime | None]] = {}

    async def run(self, stop: asyncio.Event) -> None:
        while not stop.is_set():
            try:
                await self.sweep()
            except psycopg.OperationalError as e:
                log.warning("watchdog: %s: %s; next sweep", type(e).__name__, e)
                self.watched_since = None
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(stop.wait(), self.every_s)

    async def sweep(self) -> list[str]:
        """End every run that cannot go on; return their ids."""
        now = self.clock()
        self.watched_since = self.watched_since or now
        ended = []
        for run_id, failure in await self._parked_runs():
            if await self._end(run_id, _ended_by(failure, run_id)):
                ended.append(run_id)
        for run_id in await self._silent_runs(now):
            if await self._end(run_id, partial(self._overdue, run_id, now=now)):
                ended.append(run_id)
        return ended

    async def _parked_runs(self) -> list[tuple[str, Callable[[str], RunFailed]]]:
        """Open runs with a planner or supervisor message parked and no event since (a run that moved on
        after a parked decision, say one that lost too many races, is decided by later triggers; the
        stall check still watches it). A re-driven letter's id has a suffix."""
        async with self.pool.connection() as conn:
            parked = await open_runs_with_parked_events(
                conn, [PLANNER_CONSUMER, f"{CONSUMER_PREFIX}%"], list(ENDINGS)
            )
        failures = {(r.run_id, r.consumer == PLANNER_CONSUMER) for r in parked}
        return [
            (run_id, planning_failed if planning else decision_failed)
            for run_id, planning in sorted(failures)
        ]

    async def _silent_runs(self, now: datetime) -> list[str]:
        """Runs that may be open and have been quiet for the shorter limit, read after the horizon."""
        async with self.pool.connection() as conn:
            rows = await stream_activity(conn, self.horizon, "run-", list(ENDINGS))
        open_rows = [r for r in rows if not r.ended and not self._known_ended(r)]
        last_read = max((r.last_position for r in rows), default=self.horizon)
        self.horizon = min((r.first_position - 1 for r in open_rows), default=last_read)
        in_window = {r.stream_id for r in rows}
        self.not_before = {s: v for s, v in self.not_before.items() if s in in_window}
        quiet_before = now - timedelta(seconds=min(self.limits.stall_after_s, self.limits.person_wait_s))
        due = [r for r in open_rows if r.last_at <= quiet_before and self._due(r, now)]
        return [r.stream_id.removeprefix("run-") for r in due]

    def _known_ended(self, row: StreamActivity) -> bool:
        """Read before and found ended (events after an ending: a late answer, a frame on a finished run)."""
        return self.not_before.get(row.stream_id) == (row.last_position, None)

    def _due(self, row: StreamActivity, now: datetime) -> bool:
        last_position, due_at = self.not_before.get(row.stream_id, (None, None))
        return last_position != row.last_position or (due_at is not None and due_at <= now)

    def _overdue(self, run_id: str, stored: list[Recorded], now: datetime) -> RunFailed | None:
        last = stored[-1]
        if any(r.envelope.event_type in ENDINGS for r in stored):
            self.not_before[last.envelope.stream_id] = (last.position, None)
            return None
        state = _folded(run_id, stored)
        if state is None:  # no decision can ever be taken for a run nobody can read
            return decision_failed(run_id)
        since = self.watched_since or now
        due_at = overdue_at(state, last.envelope.occurred_at, self.limits, since)
        self.not_before[last.envelope.stream_id] = (last.position, due_at)
        return overdue(state, last.envelope.occurred_at, now, self.limits, since)

    async def _end(self, run_id: str, verdict: Verdict) -> bool:
        """Append the verdict's RunFailed if the run, read now, has not ended; False if it has, or moved."""
        try:
            async with self.pool.connection() as conn, conn.transaction():
                return await _end_in(conn, run_id, verdict)
        except ConcurrencyError as e:
            log.info("watchdog: run %s moved (%s); judged again at the next sweep", run_id, e)
            return False


def _ended_by(failure: Callable[[str], RunFailed], run_id: str) -> Verdict:
    """A parked message ends its run whatever the stream holds."""
    return lambda stored: failure(run_id)


async def _end_in(conn: AsyncConnection, run_id: str, verdict: Verdict) -> bool:
    stored = await read_stream_in(conn, run_stream(run_id))
    failed = verdict(stored) if stored else None
    if failed is None or any(r.envelope.event_type in ENDINGS for r in stored):
        return False
    last = stored[-1].envelope
    session_id = next((r.envelope.session_id for r in stored if r.envelope.session_id), None)
    ending = new_envelope(
        failed, stream_id=last.stream_id, correlation_id=run_id, causation=last, session_id=session_id
    )
    await append_in(conn, [ending], expected_version=stored[-1].stream_version)
    await conn.execute("DELETE FROM supervisor_timers WHERE run_id = %s", (run_id,))
    log.warning("watchdog: run %s ended: %s: %s", run_id, failed.code, failed.reason)
    return True


def _folded(run_id: str, stored: list[Recorded]) -> RunState | None:
    """The run's state, or None when one of its events cannot be read: the supervisor's consumers park
    such a message, and the watchdog must still be able to end the run."""
    try:
        return fold(run_id, (r.envelope for r in stored))
    except Exception as e:  # whatever an upcaster or a model raises; reading is pure, so it fails every time
        log.error("watchdog: run %s cannot be folded: %s: %s", run_id, type(e).__name__, e)
        return None
