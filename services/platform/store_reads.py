"""The reads of the event log other modules need, offered by the store that owns the `events` table.

Readers (the gateway's pages and socket, the planner's memory of a session, the supervisor's
watchdog) ask here instead of writing SQL on `events`, so the table's columns, its indexes and how a
row becomes a `Recorded` (upcast on read) are known in one package; the watchdog's one read that joins
the platform's `dead_letters` lives here too. Every read takes the caller's
connection: the gateway bounds how long it waits for one, and a consumer reads inside the
transaction it appends in.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from functools import cache
from typing import Any, cast

from psycopg import AsyncConnection
from psycopg.rows import class_row, dict_row, scalar_row

from contracts import REGISTRY, TraceContext
from contracts.gateway import QueryReceived
from contracts.planner import PlanReady
from services.platform.eventstore import EVENT_COLUMNS, Recorded, recorded_from_rows

# How many of a session's earlier turns the planner reads for what the person said before.
EARLIER_TURNS = 20


async def head(conn: AsyncConnection) -> int:
    """The position of the last event in the log (0 for an empty log)."""
    cur = conn.cursor(row_factory=scalar_row)
    position = await (await cur.execute("SELECT coalesce(max(position), 0) FROM events")).fetchone()
    assert position is not None  # an aggregate without GROUP BY always returns its one row
    return position


@dataclass(frozen=True)
class Outgoing:
    """An event as it goes onto the bus: what its subject and headers are made of, and its envelope's
    JSON. The relay reads it so, its JSON written by Postgres, without building the envelope it only
    passes on (decoding and encoding it again was most of the relay's time in a profile)."""

    position: int
    event_id: str
    event_type: str
    schema_version: int
    correlation_id: str
    routing: Mapping[str, Any]  # the payload's fields a subject can be routed by (contracts.subjects)
    trace: TraceContext
    body: bytes

    @classmethod
    def of(cls, record: Recorded) -> Outgoing:
        e = record.stored or record.envelope  # as stored: sealed, for an event of a person's run
        return cls(
            record.position,
            str(e.event_id),
            e.event_type,
            e.schema_version,
            e.correlation_id,
            e.data,
            e.trace,
            e.model_dump_json().encode(),
        )


@cache
def _outgoing_sql() -> str:
    routes = sorted({m.routing_field for m in REGISTRY.models() if m.routing_field})
    return (
        "SELECT position, event_id::text AS event_id, event_type, schema_version, correlation_id,"
        " metadata->'trace'->>'traceparent' AS traceparent, metadata->'trace'->>'tracestate' AS tracestate,"
        + "".join(f" data->'{field}' AS \"route {field}\"," for field in routes)
        # The payload's text spliced in, not built into a new jsonb with the rest: copying a large
        # payload into one was a third of the statement's time (docs/hot-path.md), every body the same
        # JSON. The object it joins always has its keys.
        + " '{\"data\": ' || data::text || ', ' || substr((jsonb_build_object('event_id', event_id,"
        " 'event_type', event_type, 'schema_version', schema_version, 'stream_id', stream_id)"
        " || metadata)::text, 2) AS body"
        " FROM events WHERE position > %s ORDER BY position LIMIT %s"
    )


async def outgoing_after(conn: AsyncConnection, after: int, limit: int) -> list[Outgoing]:
    """The log after `after` in position order, at most `limit` events, as they go onto the bus."""
    cur = await conn.cursor(row_factory=dict_row).execute(_outgoing_sql(), (after, limit))
    return [
        Outgoing(
            r["position"],
            r["event_id"],
            r["event_type"],
            r["schema_version"],
            r["correlation_id"],
            {key.removeprefix("route "): value for key, value in r.items() if key.startswith("route ")},
            TraceContext(traceparent=r["traceparent"], tracestate=r["tracestate"]),
            r["body"].encode(),
        )
        for r in await cur.fetchall()
    ]


async def events_and_checkpoint(
    conn: AsyncConnection, after: int, limit: int, checkpoint: str
) -> tuple[list[Recorded], int | None]:
    """The log after `after` in position order, at most `limit` events, and where the `checkpoint` stood
    when they were read (None when no event was read): one statement, so one snapshot."""
    cur = await conn.cursor(row_factory=dict_row).execute(
        f"SELECT {EVENT_COLUMNS}, (SELECT c.position FROM checkpoints c WHERE c.name = %s) AS checkpoint"
        " FROM events WHERE position > %s ORDER BY position LIMIT %s",
        (checkpoint, after, limit),
    )
    rows = await cur.fetchall()
    return await recorded_from_rows(conn, rows), rows[0]["checkpoint"] if rows else None


async def session_events(
    conn: AsyncConnection, session_id: str, after: int, up_to: int, limit: int
) -> list[Recorded]:
    """One session's events in log order (the `events_session` index)."""
    return await _recorded(
        conn,
        f"SELECT {EVENT_COLUMNS} FROM events WHERE metadata->>'session_id' = %s"
        " AND position > %s AND position <= %s ORDER BY position LIMIT %s",
        (session_id, after, up_to, limit),
    )


async def run_events(conn: AsyncConnection, run_id: str, after: int, limit: int) -> list[Recorded]:
    """One run's events (all its streams) in log order."""
    return await _recorded(
        conn,
        f"SELECT {EVENT_COLUMNS} FROM events WHERE correlation_id = %s AND position > %s"
        " ORDER BY position LIMIT %s",
        (run_id, after, limit),
    )


async def latest_of_run(conn: AsyncConnection, run_id: str, event_type: str) -> Recorded | None:
    rows = await _recorded(
        conn,
        f"SELECT {EVENT_COLUMNS} FROM events WHERE correlation_id = %s AND event_type = %s"
        " ORDER BY position DESC LIMIT 1",
        (run_id, event_type),
    )
    return rows[0] if rows else None


async def first_positions(
    conn: AsyncConnection, run_ids: Sequence[str], event_types: Sequence[str]
) -> dict[str, int]:
    """Per run among `run_ids`, the position of its first event of any of `event_types` (runs with none
    are left out)."""
    cur = await conn.cursor(row_factory=dict_row).execute(
        "SELECT correlation_id, min(position) AS position FROM events"
        " WHERE correlation_id = ANY(%s) AND event_type = ANY(%s) GROUP BY correlation_id",
        (list(run_ids), list(event_types)),
    )
    return {r["correlation_id"]: r["position"] for r in await cur.fetchall()}


async def events_of_runs(
    conn: AsyncConnection, run_ids: Sequence[str], event_types: Sequence[str]
) -> list[Recorded]:
    """The events of any of `event_types` of the runs among `run_ids`, in log order (the operator's
    page counts a window's runs by them: outcomes, step times, LLM calls)."""
    return await _recorded(
        conn,
        f"SELECT {EVENT_COLUMNS} FROM events WHERE correlation_id = ANY(%s) AND event_type = ANY(%s)"
        " ORDER BY position",
        (list(run_ids), list(event_types)),
    )


async def runs_awaiting_approval(conn: AsyncConnection, session_id: str) -> list[str]:
    """The session's runs whose plan waits for the person's answer (asked for, not answered or ended),
    oldest first."""
    # A run asked for approval counts from its question on: a client may answer as soon as it sees
    # plan_ready, which can come a moment before the supervisor's request is appended.
    cur = await conn.cursor(row_factory=scalar_row).execute(
        "SELECT q.correlation_id AS run_id FROM events q WHERE q.metadata->>'session_id' = %s"
        " AND q.event_type = 'QueryReceived' AND (q.data->'options'->>'require_approval')::boolean"
        " AND NOT EXISTS (SELECT 1 FROM events b WHERE b.correlation_id = q.correlation_id"
        "  AND b.event_type IN ('PlanApproved', 'PlanRejected', 'RunCancelled', 'RunFailed',"
        "  'ResponseReady'))"
        " ORDER BY q.position",
        (session_id,),
    )
    return await cur.fetchall()


async def open_forms(conn: AsyncConnection, session_id: str) -> list[Recorded]:
    """The session's unanswered InputRequested (not answered since, its run not ended), newest first."""
    return await _recorded(
        conn,
        f"SELECT {EVENT_COLUMNS} FROM events a WHERE a.metadata->>'session_id' = %s"
        " AND a.event_type = 'InputRequested' AND NOT EXISTS (SELECT 1 FROM events b"
        "  WHERE b.correlation_id = a.correlation_id AND b.position > a.position AND b.event_type IN"
        "  ('InputProvided', 'InputRequested', 'RunCancelled', 'RunFailed', 'ResponseReady'))"
        " ORDER BY a.position DESC",
        (session_id,),
    )


@dataclass(frozen=True)
class PlannedTurn:
    """A run of a session as the planner left it: the question asked and the plan made for it."""

    question: QueryReceived
    plan: PlanReady


async def previous_plan(conn: AsyncConnection, session_id: str, before_run: str) -> PlannedTurn | None:
    """The session's latest planned run other than `before_run` (the one being planned now): its latest
    PlanReady and its question, in one statement."""
    rows = await _recorded(
        conn,
        f"WITH plan AS (SELECT {EVENT_COLUMNS}, correlation_id FROM events"
        " WHERE metadata->>'session_id' = %s AND event_type = 'PlanReady' AND correlation_id <> %s"
        " ORDER BY position DESC LIMIT 1)"
        f" SELECT {EVENT_COLUMNS} FROM plan UNION ALL"
        f" (SELECT {EVENT_COLUMNS} FROM events WHERE correlation_id = (SELECT correlation_id FROM plan)"
        "  AND event_type = 'QueryReceived' ORDER BY position DESC LIMIT 1)",
        (session_id, before_run),
    )
    found = {r.envelope.event_type: r for r in rows}
    if PlanReady.event_type not in found or QueryReceived.event_type not in found:
        return None
    return PlannedTurn(
        question=cast(QueryReceived, found[QueryReceived.event_type].event()),
        plan=cast(PlanReady, found[PlanReady.event_type].event()),
    )


async def earlier_plans(conn: AsyncConnection, session_id: str, before_run: str) -> list[PlanReady]:
    """The session's PlanReady of runs other than `before_run`, oldest first: the readings of the person's
    earlier turns (the latest EARLIER_TURNS of them)."""
    rows = await _recorded(
        conn,
        f"SELECT * FROM (SELECT {EVENT_COLUMNS} FROM events WHERE metadata->>'session_id' = %s"
        " AND event_type = 'PlanReady' AND correlation_id <> %s ORDER BY position DESC LIMIT %s) latest"
        " ORDER BY position",
        (session_id, before_run, EARLIER_TURNS),
    )
    return [cast(PlanReady, row.event()) for row in rows]


async def person_events(
    conn: AsyncConnection,
    person_id: str,
    event_types: Sequence[str],
    *,
    after: int = 0,
    but_run: str | None = None,
) -> list[Recorded]:
    """One person's events of `event_types` after position `after`, in log order (the `events_person`
    index), leaving out those of `but_run` (the run being planned): what Jipsa remembers of a person is
    a fold of them all."""
    return await _recorded(
        conn,
        f"SELECT {EVENT_COLUMNS} FROM events WHERE metadata->>'person_id' = %s AND event_type = ANY(%s)"
        " AND position > %s AND correlation_id IS DISTINCT FROM %s ORDER BY position",
        (person_id, list(event_types), after, but_run),
    )


@dataclass(frozen=True)
class StreamActivity:
    """What a stretch of the log holds of one stream: its first and last position there, when its
    last event was recorded, and whether any of them ends it."""

    stream_id: str
    first_position: int
    last_position: int
    last_at: datetime
    ended: bool


async def stream_activity(
    conn: AsyncConnection, after: int, stream_prefix: str, endings: Sequence[str]
) -> list[StreamActivity]:
    """Per stream whose id starts with `stream_prefix`, its events after position `after`."""
    cur = await conn.cursor(row_factory=class_row(StreamActivity)).execute(
        """
        SELECT stream_id, min(position) AS first_position, max(position) AS last_position,
               max(recorded_at) AS last_at, bool_or(event_type = ANY(%s)) AS ended
          FROM events WHERE position > %s AND stream_id LIKE %s GROUP BY stream_id
        """,
        (list(endings), after, f"{stream_prefix}%"),
    )
    return await cur.fetchall()


@dataclass(frozen=True)
class ParkedRun:
    run_id: str
    consumer: str  # the consumer that parked one of the run's events as a dead letter


async def open_runs_with_parked_events(
    conn: AsyncConnection, consumers: Sequence[str], endings: Sequence[str]
) -> list[ParkedRun]:
    """Runs with an event parked (not re-driven) by one of `consumers` (LIKE patterns) and nothing
    recorded since in the event's stream, none of it an ending. A re-driven letter's id has a suffix."""
    cur = await conn.cursor(row_factory=class_row(ParkedRun)).execute(
        """
        SELECT DISTINCT e.correlation_id AS run_id, d.consumer
          FROM dead_letters d
          JOIN events e ON e.event_id::text = split_part(d.event_id, ':', 1)
         WHERE d.replayed_at IS NULL AND d.consumer LIKE ANY(%(consumers)s)
           AND NOT EXISTS (SELECT 1 FROM events f WHERE f.stream_id = e.stream_id
                              AND (f.event_type = ANY(%(endings)s) OR f.recorded_at > d.parked_at))
        """,
        {"consumers": list(consumers), "endings": list(endings)},
    )
    return await cur.fetchall()


async def _recorded(conn: AsyncConnection, sql: str, params: tuple[object, ...]) -> list[Recorded]:
    cur = await conn.cursor(row_factory=dict_row).execute(sql, params)
    return await recorded_from_rows(conn, await cur.fetchall())
