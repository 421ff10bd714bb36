"""A Postgres outage is not the message's fault: stopped for longer than the whole retry schedule with
questions in flight, the store comes back and every run ends with its answer, nothing parked.

The real planner, supervisor and teams run in-process (services.platform.service.serve) on servers
this test owns. The planner's handler is held at a gate until every question is inside it (claimed in
its inbox, transaction open), so the outage meets each one mid-delivery, deterministically.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
from collections.abc import AsyncIterator

import pytest

from contracts.values import Team
from services.analysis.bootstrap import build as analysis_build
from services.planner.bootstrap import build as planner_build
from services.platform.bus import ConsumerPolicy
from services.platform.consumer import Handler, HandlerContext
from services.platform.deadletters import list_dead_letters
from services.platform.service import Build, Wiring, serve
from services.platform.team import team_subscription
from services.search.handlers import search_work
from services.search.read_models import load_legal_index
from services.search.tools import SearchContext, default_tools
from services.supervisor.bootstrap import build as supervisor_build
from tests.integration.bus_helpers import query_event, relay, wait_until

pytestmark = pytest.mark.fault
POLICY = ConsumerPolicy.from_infra(backoff_s=[0.05, 0.1, 0.2], max_attempts=3, ack_wait_s=3)
DB_WAIT_S = 1.0  # a checkout's wait: how soon an attempt fails while Postgres is down
# Every attempt the old policy would have spent, twice over: each attempt waits DB_WAIT_S, then its backoff.
OUTAGE_S = 2 * (POLICY.max_attempts * DB_WAIT_S + sum(POLICY.backoff_s))
QUESTIONS = {"greet": "안녕", "loan": "대출 3억 30년 원리금 월 상환액 계산해줘"}


async def search_build(pool, settings) -> Wiring:
    # Seeds the fresh database: seconds with the terms memo under .data/cache, a minute of Kiwi without.
    ctx = SearchContext(pool=pool, legal=await load_legal_index(pool))
    return Wiring([team_subscription(Team.SEARCH, search_work(ctx, default_tools()))])


def held_at(gate: asyncio.Event, inside: set[str], build: Build) -> Build:
    """`build`'s service, each handler waiting at `gate` once its message is claimed (run ids in `inside`)."""

    def held(handler: Handler) -> Handler:
        async def handle(ctx: HandlerContext):
            inside.add(ctx.envelope.correlation_id)
            await gate.wait()
            return await handler(ctx)

        return handle

    async def gated(pool, settings) -> Wiring:
        wiring = await build(pool, settings)
        held_subs = [dataclasses.replace(s, handler=held(s.handler)) for s in wiring.subscriptions]
        return Wiring(held_subs, wiring.loops)

    return gated


@contextlib.asynccontextmanager
async def services(infra, builds: list[Build]) -> AsyncIterator[None]:
    stop = asyncio.Event()
    tasks = [
        asyncio.create_task(serve(f"svc{i}", b, infra, stop, POLICY, db_wait_s=DB_WAIT_S))
        for i, b in enumerate(builds)
    ]
    try:
        yield
    finally:
        stop.set()
        await asyncio.wait_for(asyncio.gather(*tasks, return_exceptions=True), 60)


async def test_runs_in_flight_through_a_long_postgres_outage_all_end_answered(
    owned, owned_infra, owned_store
) -> None:
    gate, inside = asyncio.Event(), set()
    runs = {f"{kind}{i}": text for i in range(3) for kind, text in QUESTIONS.items()}
    planner = held_at(gate, inside, planner_build)
    builds = [relay, planner, supervisor_build, search_build, analysis_build]
    async with services(owned_infra, builds):
        await owned_store.append([query_event(run, text) for run, text in runs.items()])
        await wait_until(lambda: _all_in(inside, runs), timeout=240, what="every question inside the planner")

        await asyncio.to_thread(owned.postgres.stop)
        gate.set()  # each planner transaction now meets a Postgres that is gone
        await asyncio.sleep(OUTAGE_S)  # the fault's length, not a wait for an outcome
        await asyncio.to_thread(owned.postgres.start)

        await wait_until(lambda: _all_answered(owned_store, runs), timeout=120, what="every run answered")

    assert await list_dead_letters(owned_store.pool, include_replayed=True) == []
    answers = await _answers(owned_store)
    assert sorted(run for run, _ in answers) == sorted(runs), "one answer per run"
    for run, answer in answers:
        expected = "guidance" if run.startswith("greet") else "answer"
        assert (answer["response_type"], answer["failed_steps"]) == (expected, []), (run, answer)


async def _all_in(inside: set[str], runs: dict[str, str]) -> bool:
    return inside >= set(runs)


async def _all_answered(store, runs: dict[str, str]) -> bool:
    with contextlib.suppress(Exception):  # the test's own pool reconnects too
        return len(await _answers(store)) >= len(runs)
    return False


async def _answers(store) -> list[tuple[str, dict]]:
    async with store.pool.connection() as conn:
        rows = await (
            await conn.execute("SELECT correlation_id, data FROM events WHERE event_type = 'ResponseReady'")
        ).fetchall()
    return [(r["correlation_id"], r["data"]) for r in rows]
