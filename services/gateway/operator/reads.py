"""What the operator's page reads: recent runs from the final-state projection, the few events of those
runs it counts (through the store's reads), every checkpoint against the head of the log, and the bus's
consumers.

Runs are chosen by the projection's `created_at` (a small table) and their events read by run through
the store's `events_correlation` index, so the page never scans the log by time, however long it grows.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import nats
from nats.aio.client import Client as NATS
from nats.errors import Error as NatsError
from nats.js.errors import NotFoundError
from psycopg import AsyncConnection
from psycopg.rows import dict_row, scalar_row

from services.platform import store_reads
from services.platform.eventstore import Recorded
from services.platform.run_outcomes import FINAL_EVENTS, RunEvent

# The events the page counts: steps (latency, skips), LLM calls, and what ended each run.
COUNTED_EVENTS = (
    "StepStarted",
    "StepCompleted",
    "StepFailed",
    "StepSkipped",
    "LlmCallRecorded",
    *FINAL_EVENTS,
)
# A window's runs beyond this are left out of the figures (the page says how many it counted): the
# newest are counted, and the page is read every few seconds.
MAX_RUNS = 1000


@dataclass(frozen=True)
class RecentRuns:
    now: datetime  # the database's clock, which every recorded time was taken by
    runs: list[dict[str, Any]]  # final_states rows, newest first


@dataclass(frozen=True)
class LlmCall:
    call_point: str
    outcome: str
    fallback_used: bool
    latency_ms: float


@dataclass(frozen=True)
class CountedEvents:
    by_run: dict[str, list[RunEvent]]
    llm_calls: list[LlmCall]


async def recent_runs(conn: AsyncConnection, minutes: int) -> RecentRuns:
    cur = await conn.cursor(row_factory=dict_row).execute(
        "SELECT now() AS now, run_id, query, status, created_at, completed_at, total_ms FROM final_states"
        " WHERE created_at >= now() - make_interval(mins => %s) ORDER BY created_at DESC LIMIT %s",
        (minutes, MAX_RUNS),
    )
    rows = await cur.fetchall()
    now = rows[0]["now"] if rows else await _database_now(conn)
    return RecentRuns(now, [{k: v for k, v in r.items() if k != "now"} for r in rows])


async def _database_now(conn: AsyncConnection) -> datetime:
    now = await (await conn.cursor(row_factory=scalar_row).execute("SELECT now()")).fetchone()
    assert now is not None  # a SELECT without FROM returns its one row
    return now


async def counted_events(conn: AsyncConnection, run_ids: list[str]) -> CountedEvents:
    by_run: dict[str, list[RunEvent]] = {run_id: [] for run_id in run_ids}
    llm_calls: list[LlmCall] = []
    for record in await store_reads.events_of_runs(conn, run_ids, COUNTED_EVENTS):
        data = record.envelope.data
        if record.envelope.event_type == "LlmCallRecorded":
            llm_calls.append(
                LlmCall(data["call_point"], data["outcome"], bool(data["fallback_used"]), data["latency_ms"])
            )
        else:
            by_run[record.envelope.correlation_id].append(_run_event(record))
    return CountedEvents(by_run, llm_calls)


def _run_event(record: Recorded) -> RunEvent:
    """The fields the outcome and the step times read (every stored version of these events has them)."""
    data = record.envelope.data
    return RunEvent(
        position=record.position,
        type=record.envelope.event_type,
        at=record.recorded_at.timestamp(),
        team=data.get("team"),
        step_id=data.get("step_id"),
        attempt=data.get("attempt"),
        response_type=data.get("response_type"),
        failed_steps=tuple(data.get("failed_steps") or ()),
    )


async def checkpoints(conn: AsyncConnection) -> list[dict[str, Any]]:
    """Every reader of the log that keeps a checkpoint (projections, publisher), and how far behind."""
    head = await store_reads.head(conn)
    cur = await conn.cursor(row_factory=dict_row).execute(
        "SELECT name, position, updated_at FROM checkpoints ORDER BY name"
    )
    return [{**row, "head": head, "behind": head - row["position"]} for row in await cur.fetchall()]


@dataclass(frozen=True)
class Consumers:
    consumers: list[dict[str, Any]]
    problem: str | None = None  # why there are none to show, in the operator's words


async def consumers_of(nats_url: str, stream_name: str | None, timeout_s: float) -> Consumers:
    """The stream's durable consumers: messages not yet delivered, and delivered but not yet acked.

    NATS out of reach is a fact for the page to show beside the rest, not a failure of the page."""
    if stream_name is None:
        return Consumers([], "이 게이트웨이에는 스트림 이름이 설정되지 않았습니다")
    try:
        async with briefly_connected(nats_url, timeout_s) as nc:
            infos = await nc.jetstream(timeout=timeout_s).consumers_info(stream_name)
    except NotFoundError:
        return Consumers([], f"스트림 {stream_name}이(가) 없습니다")
    except (NatsError, OSError):  # refused, timed out (nats' TimeoutError is both)
        return Consumers([], "메시지 버스(NATS)에 연결할 수 없습니다")
    return Consumers(
        [
            {
                "consumer": info.name,
                "pending": info.num_pending or 0,
                "unacked": info.num_ack_pending or 0,
                "redelivered": info.num_redelivered or 0,
            }
            for info in sorted(infos, key=lambda i: i.name or "")
        ]
    )


@contextlib.asynccontextmanager
async def briefly_connected(nats_url: str, timeout_s: float) -> AsyncIterator[NATS]:
    """A connection for one request of the page: no reconnecting, and nothing logged when it closes (the
    page asks every few seconds; the services' connections log their outages, this one need not)."""

    async def quiet(_: Exception) -> None:
        """A refused connection is raised to the caller, which says so on the page."""

    nc = await nats.connect(
        nats_url.split(","),
        name="jipsa-operator",
        connect_timeout=timeout_s,
        allow_reconnect=False,
        max_reconnect_attempts=0,
        error_cb=quiet,
    )
    try:
        yield nc
    finally:
        await nc.close()
