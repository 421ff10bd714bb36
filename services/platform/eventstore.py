"""The append-only Postgres event store: the source of truth.

Ordering (why appends take one lock)
------------------------------------
Readers (the publisher, the projections) follow the log by `position`. A
position is handed out when a row is inserted, but becomes visible only at
commit; two concurrent transactions can commit out of order, so a reader that
has seen position 11 may later find 10 appear, and a reader that checkpointed
at 11 would skip it for ever. We serialise appends with one transaction-scoped
advisory lock, taken before any position is allocated and released at commit:
positions then become visible in the order they were allocated, and "everything
after my checkpoint" is always complete. The price is one appender at a time;
batching (several events per transaction) is how a busy writer pays it less
often, and `make bench` measures it against bare inserts. The alternative, a
high-water mark from the transaction snapshot (pg_snapshot_xmin), allows
parallel appends but makes every reader wait for the oldest open transaction;
at Jipsa's rates the simple lock costs nothing that matters.

Idempotency and concurrency
---------------------------
Appending an event whose event_id is already stored is a no-op that returns the
stored record, so a retried handler or a re-published message never doubles an
effect. `expected_version` makes a decision conditional on the stream not having
moved since it was read (the supervisor's optimistic concurrency).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any
from uuid import UUID

from psycopg import AsyncConnection
from psycopg_pool import AsyncConnectionPool

from contracts import REGISTRY, Envelope, Event
from services.platform import telemetry

APPEND_LOCK_KEY = 0x4A495053  # "JIPS": the one key every append serialises on
NOTIFY_CHANNEL = "jipsa_events"


class ConcurrencyError(Exception):
    """The stream moved on since the caller read it: re-read, decide again."""

    def __init__(self, stream_id: str, expected: int, actual: int) -> None:
        super().__init__(f"stream {stream_id}: expected version {expected}, found {actual}")
        self.stream_id, self.expected, self.actual = stream_id, expected, actual


@dataclass(frozen=True)
class Recorded:
    """An event as the store holds it: its envelope plus where it sits in the log."""

    position: int
    stream_version: int
    recorded_at: datetime
    envelope: Envelope

    def event(self) -> Event:
        """The payload as the current model (older versions upcast on read)."""
        e = self.envelope
        return REGISTRY.parse(e.event_type, e.schema_version, e.data)


EVENT_COLUMNS = (
    "position, event_id, stream_id, stream_version, event_type, schema_version, data, metadata, recorded_at"
)


def recorded_from_row(row: dict[str, Any]) -> Recorded:
    envelope = Envelope(
        event_id=row["event_id"],
        event_type=row["event_type"],
        schema_version=row["schema_version"],
        stream_id=row["stream_id"],
        data=row["data"],
        **row["metadata"],
    )
    return Recorded(row["position"], row["stream_version"], row["recorded_at"], envelope)


class EventStore:
    def __init__(self, pool: AsyncConnectionPool) -> None:
        self.pool = pool

    async def append(
        self, events: Sequence[Envelope], *, expected_version: int | None = None
    ) -> list[Recorded]:
        async with self.pool.connection() as conn, conn.transaction():
            return await append_in(conn, events, expected_version=expected_version)

    async def read_all(self, after_position: int = 0, limit: int = 1000) -> list[Recorded]:
        async with self.pool.connection() as conn:
            return await read_all_in(conn, after_position, limit)

    async def read_stream(self, stream_id: str, after_version: int = 0) -> list[Recorded]:
        async with self.pool.connection() as conn:
            return await read_stream_in(conn, stream_id, after_version)

    async def read_correlation(self, correlation_id: str, after_position: int = 0) -> list[Recorded]:
        """Every event of one run (all its streams), in log order."""
        return await self._select(
            f"SELECT {EVENT_COLUMNS} FROM events WHERE correlation_id = %s AND position > %s"
            " ORDER BY position",
            (correlation_id, after_position),
        )

    async def head(self) -> int:
        async with self.pool.connection() as conn:
            row = await (
                await conn.execute("SELECT coalesce(max(position), 0) AS head FROM events")
            ).fetchone()
            return row["head"]

    async def _select(self, sql: str, params: tuple[Any, ...]) -> list[Recorded]:
        async with self.pool.connection() as conn:
            rows = await (await conn.execute(sql, params)).fetchall()
            return [recorded_from_row(r) for r in rows]


async def read_all_in(conn: AsyncConnection, after_position: int = 0, limit: int = 1000) -> list[Recorded]:
    """Read the log inside the caller's transaction (a projector reads and checkpoints in one)."""
    cur = await conn.execute(
        f"SELECT {EVENT_COLUMNS} FROM events WHERE position > %s ORDER BY position LIMIT %s",
        (after_position, limit),
    )
    return [recorded_from_row(r) for r in await cur.fetchall()]


async def read_stream_in(conn: AsyncConnection, stream_id: str, after_version: int = 0) -> list[Recorded]:
    """One stream in version order, inside the caller's transaction (a decision reads and appends in one)."""
    cur = await conn.execute(
        f"SELECT {EVENT_COLUMNS} FROM events WHERE stream_id = %s AND stream_version > %s"
        " ORDER BY stream_version",
        (stream_id, after_version),
    )
    return [recorded_from_row(r) for r in await cur.fetchall()]


async def append_in(
    conn: AsyncConnection, events: Sequence[Envelope], *, expected_version: int | None = None
) -> list[Recorded]:
    """Append inside the caller's transaction (a consumer appends and marks its inbox in one commit)."""
    if not events:
        return []
    streams = {e.stream_id for e in events}
    attributes = {"db.system.name": "postgresql", "jipsa.store.events": len(events)}
    attributes["jipsa.stream_id"] = next(iter(streams)) if len(streams) == 1 else f"{len(streams)} streams"
    with telemetry.span_in_run(events[0], "eventstore.append", attributes) as span:
        # Its own statement: a statement's snapshot is taken before it runs, so reads in the
        # statement that waited for the lock would not see the commit of the appender before us.
        await conn.execute("SELECT pg_advisory_xact_lock(%s)", (APPEND_LOCK_KEY,))
        ids = [e.event_id for e in events]
        stored_ids, versions = await _stored_ids_and_versions(conn, ids, streams)
        already = await _read_ids(conn, stored_ids) if stored_ids else {}
        fresh = [e for e in events if e.event_id not in already]
        span.set_attribute("jipsa.store.appended", len(fresh))
        if not fresh:
            return [already[i] for i in ids]
        if expected_version is not None:
            _check_expected(fresh, versions, expected_version)
        appended = await _insert(conn, fresh, versions)
    # Counted here, the one place every append of every process passes (consumers, the gateway, the
    # supervisor's timers), and only for events new to the store. The price: a transaction rolled back
    # after this point (a lost race later in a timer's batch, a failed commit) has been counted; rare,
    # and the store, not a dashboard, is the record of what happened.
    telemetry.record_appended(fresh)
    by_id = {**already, **{r.envelope.event_id: r for r in appended}}
    return [by_id[i] for i in ids]


def _check_expected(events: Sequence[Envelope], versions: dict[str, int], expected: int) -> None:
    streams = {e.stream_id for e in events}
    if len(streams) != 1:
        raise ValueError("expected_version applies to one stream; got events for several")
    (stream_id,) = streams
    if versions[stream_id] != expected:
        raise ConcurrencyError(stream_id, expected, versions[stream_id])


async def _stored_ids_and_versions(
    conn: AsyncConnection, ids: list[UUID], streams: set[str]
) -> tuple[list[UUID], dict[str, int]]:
    """One round trip: which of these events are stored already, and each stream's current version."""
    cur = await conn.execute(
        """
        SELECT event_id::text AS key, 0 AS version, true AS stored FROM events WHERE event_id = ANY(%s)
        UNION ALL
        SELECT stream_id, max(stream_version), false FROM events WHERE stream_id = ANY(%s) GROUP BY stream_id
        """,
        (ids, list(streams)),
    )
    rows = await cur.fetchall()
    found = {r["key"]: r["version"] for r in rows if not r["stored"]}
    return [UUID(r["key"]) for r in rows if r["stored"]], {s: found.get(s, 0) for s in streams}


async def _read_ids(conn: AsyncConnection, ids: list[UUID]) -> dict[UUID, Recorded]:
    cur = await conn.execute(f"SELECT {EVENT_COLUMNS} FROM events WHERE event_id = ANY(%s)", (ids,))
    return {r["event_id"]: recorded_from_row(r) for r in await cur.fetchall()}


async def _insert(
    conn: AsyncConnection, events: Sequence[Envelope], versions: dict[str, int]
) -> list[Recorded]:
    next_version = dict(versions)
    stream_versions = []
    for e in events:
        next_version[e.stream_id] += 1
        stream_versions.append(next_version[e.stream_id])
    # The NOTIFY rides in the same statement (one round trip); Postgres delivers it at commit.
    cur = await conn.execute(
        """
        WITH appended AS (
            INSERT INTO events (event_id, stream_id, stream_version, event_type, schema_version,
                                correlation_id, data, metadata)
            SELECT i, s, v, t, sv, c, d::jsonb, m::jsonb
              FROM unnest(%s::uuid[], %s::text[], %s::int[], %s::text[],
                          %s::int[], %s::text[], %s::text[], %s::text[])
                   WITH ORDINALITY AS x(i, s, v, t, sv, c, d, m, n)
             ORDER BY n
            RETURNING position, stream_version, recorded_at
        )
        SELECT appended.* FROM appended, (SELECT pg_notify(%s, '')) AS notice ORDER BY position
        """,
        (
            [e.event_id for e in events],
            [e.stream_id for e in events],
            stream_versions,
            [e.event_type for e in events],
            [e.schema_version for e in events],
            [e.correlation_id for e in events],
            [json.dumps(e.data, ensure_ascii=False) for e in events],
            [json.dumps(e.metadata(), ensure_ascii=False) for e in events],
            NOTIFY_CHANNEL,
        ),
    )
    rows = await cur.fetchall()  # in input order: positions were allocated in it
    return [
        Recorded(r["position"], r["stream_version"], r["recorded_at"], e)
        for r, e in zip(rows, events, strict=True)
    ]
