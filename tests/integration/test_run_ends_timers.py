"""The supervisor's timers under two triggers of one run deciding at once: the second writer of the
run's wake-up waits for the first and then overwrites it; it does not fail on the table's key."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta

import pytest

from services.supervisor.handlers import set_timers
from tests.integration.bus_helpers import wait_until

pytestmark = pytest.mark.integration


async def test_two_decisions_setting_one_runs_timer_at_once_both_commit(pool) -> None:
    first_due = datetime.now(UTC)
    second_due = first_due + timedelta(seconds=30)
    first_wrote, first_may_commit = asyncio.Event(), asyncio.Event()

    async def first() -> None:
        async with pool.connection() as conn, conn.transaction():
            await set_timers(conn, "r", first_due)
            first_wrote.set()
            await first_may_commit.wait()

    async def second() -> None:
        await first_wrote.wait()
        async with pool.connection() as conn, conn.transaction():
            await set_timers(conn, "r", second_due)

    async def second_waits_on_the_first() -> bool:
        async with pool.connection() as conn:
            cur = await conn.execute(
                "SELECT count(*) AS n FROM pg_stat_activity"
                " WHERE datname = current_database() AND wait_event_type = 'Lock'"
            )
            return (await cur.fetchone())["n"] == 1

    writers = asyncio.gather(first(), second())
    await wait_until(second_waits_on_the_first, what="the second writer to wait for the first")
    first_may_commit.set()
    await writers  # the old delete-then-insert raised UniqueViolation here
    async with pool.connection() as conn:
        rows = await (await conn.execute("SELECT run_id, due_at FROM supervisor_timers")).fetchall()
    assert [(r["run_id"], r["due_at"]) for r in rows] == [("r", second_due)]
