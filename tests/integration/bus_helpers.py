"""Small pieces the bus tests share: a running publisher, a counting consumer, waiting on conditions."""

from __future__ import annotations

import asyncio
import contextlib
import inspect
from collections.abc import AsyncIterator, Awaitable, Callable

from contracts import new_envelope
from contracts.gateway import QueryReceived
from contracts.planner import PlanReady
from contracts.values import Intent, IntentType
from services.platform.bus import ConsumerPolicy, connect
from services.platform.consumer import HandlerContext, Outcome
from services.platform.publisher import Publisher
from services.platform.service import Build, Wiring, serve


def query_event(run: str, text: str = "전세금 5% 인상 가능한가요?"):
    return new_envelope(
        QueryReceived(run_id=run, query=text), stream_id=f"run-{run}", correlation_id=run, session_id="s"
    )


async def plan_once(ctx: HandlerContext) -> Outcome:
    """A stand-in planner effect: one PlanReady per QueryReceived, appended to the run's stream."""
    run = ctx.event.run_id
    plan = PlanReady(run_id=run, intent=Intent(type=IntentType.UNCLEAR, confidence=0.5), mode="rules")
    return Outcome([new_envelope(plan, stream_id=f"run-{run}", correlation_id=run, causation=ctx.envelope)])


async def wait_until(
    condition: Callable[[], Awaitable[bool] | bool], timeout: float = 30.0, what: str = ""
) -> None:
    """Until `condition()` holds (a plain check or one that awaits a read), else fail after `timeout`."""
    deadline = asyncio.get_running_loop().time() + timeout
    while not await _holds(condition()):
        if asyncio.get_running_loop().time() > deadline:
            raise AssertionError(f"timed out after {timeout}s waiting for {what or condition}")
        await asyncio.sleep(0.05)


async def _holds(result: Awaitable[bool] | bool) -> bool:
    return await result if inspect.isawaitable(result) else result


@contextlib.asynccontextmanager
async def running(*runnables) -> AsyncIterator[asyncio.Event]:
    """Run publishers/consumers (anything with `run(stop)`) in the background for the block."""
    stop = asyncio.Event()
    tasks = [asyncio.create_task(r.run(stop)) for r in runnables]
    try:
        yield stop
    finally:
        stop.set()
        await asyncio.wait_for(asyncio.gather(*tasks, return_exceptions=True), 30)


async def count_events(store, event_type: str) -> int:
    async with store.pool.connection() as conn:
        row = await (
            await conn.execute("SELECT count(*) AS n FROM events WHERE event_type = %s", (event_type,))
        ).fetchone()
    return row["n"]


async def relay(pool, settings) -> Wiring:
    """The publisher as one more service, so a test's services reach each other over NATS."""
    nc = await connect(settings.nats_url, "relay")
    return Wiring([], loops=[Publisher(pool, nc, settings).run])


@contextlib.asynccontextmanager
async def serving_all(
    infra, builds: list[Build], policy: ConsumerPolicy | None = None
) -> AsyncIterator[None]:
    """Real services (services.platform.service.serve) in-process for the block, stopped after it."""
    stop = asyncio.Event()
    tasks = [asyncio.create_task(serve(f"svc{i}", b, infra, stop, policy)) for i, b in enumerate(builds)]
    try:
        yield
    finally:
        stop.set()
        await asyncio.wait_for(asyncio.gather(*tasks, return_exceptions=True), 30)
