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

import contextlib
import json
from collections.abc import Awaitable, Callable, Collection, Iterator, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Protocol, cast
from uuid import UUID

import psycopg
from psycopg import AsyncConnection
from psycopg.rows import dict_row
from psycopg.types.json import Jsonb
from psycopg_pool import AsyncConnectionPool
from pydantic import TypeAdapter

from contracts import REGISTRY, Envelope, Event
from services.platform import telemetry
from services.platform.db import run_again_on_closed
from services.platform.sealing import KEYRING, open_envelope, sealed, sealed_runs

APPEND_LOCK_KEY = 0x4A495053  # "JIPS": the one key every append serialises on
NOTIFY_CHANNEL = "jipsa_events"
# The notice of an append whose appender publishes it itself (publisher.Announcer): the relay, whose
# copy is then only the safety net, may wait and carry several of them in one pass.
ANNOUNCED_CHANNEL = "jipsa_events_announced"
_ENVELOPES = TypeAdapter(list[Envelope])
MOVED_STREAM = "JA409"  # the SQLSTATE of jipsa_append's refusal: the stream moved past the expected version


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
    # The envelope as stored and published, where it differs (sealed: services/platform/sealing.py).
    stored: Envelope | None = None

    def event(self) -> Event:
        """The payload as the current model (older versions upcast on read)."""
        e = self.envelope
        return REGISTRY.parse(e.event_type, e.schema_version, e.data)


EVENT_COLUMNS = (
    "position, event_id, stream_id, stream_version, event_type, schema_version, data, metadata, recorded_at"
)


async def rows_of(conn: AsyncConnection[Any], sql: str, params: Sequence[Any]) -> list[dict[str, Any]]:
    """The rows of a query as dicts: every pool here is opened with `dict_row` (db.open_pool)."""
    cur = await conn.execute(sql, params)
    return cast(list[dict[str, Any]], await cur.fetchall())


async def recorded_from_rows(conn: AsyncConnection[Any], rows: Sequence[dict[str, Any]]) -> list[Recorded]:
    """Rows of `events` as Recorded, their payloads opened (the keys of sealed ones read first)."""
    await KEYRING.load(conn, sealed_runs((r["data"], r["metadata"]["correlation_id"]) for r in rows))
    return [recorded_from_row(r) for r in rows]


def recorded_from_row(row: dict[str, Any]) -> Recorded:
    """A row of `events` as a Recorded, its payload opened: a sealed one's key must have been read
    (`recorded_from_rows`), else sealing.KeyNotLoaded."""
    envelope = Envelope(
        event_id=row["event_id"],
        event_type=row["event_type"],
        schema_version=row["schema_version"],
        stream_id=row["stream_id"],
        data=row["data"],
        **row["metadata"],
    )
    return Recorded(row["position"], row["stream_version"], row["recorded_at"], open_envelope(envelope))


Announce = Callable[[Sequence[Recorded]], Awaitable[None]]


class EventStore:
    """The store's reads and appends over a pool. `announce`, when given, is told of what an append
    committed, right after the commit (publisher.Announcer: the bus hears of it without the relay)."""

    def __init__(self, pool: AsyncConnectionPool, announce: Announce | None = None) -> None:
        self.pool = pool
        self.announce = announce

    async def append(
        self, events: Sequence[Envelope], *, expected_version: int | None = None
    ) -> list[Recorded]:
        recorded = await append_anywhere(
            self.pool, events, expected_version=expected_version, announced=self.announce is not None
        )
        if self.announce is not None:
            await self.announce(recorded)
        return recorded

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

    async def read_events(self, event_ids: Collection[UUID]) -> list[Recorded]:
        """The stored events with these ids (each one lookup in the `event_id` key), in log order; an id
        the store does not hold is left out."""
        sql = f"SELECT {EVENT_COLUMNS} FROM events WHERE event_id = ANY(%s) ORDER BY position"
        return await self._select(sql, (list(event_ids),))

    async def head(self) -> int:
        async with self.pool.connection() as conn:
            (row,) = await rows_of(conn, "SELECT coalesce(max(position), 0) AS head FROM events", ())
            return int(row["head"])

    async def _select(self, sql: str, params: tuple[Any, ...]) -> list[Recorded]:
        async with self.pool.connection() as conn:
            return await recorded_from_rows(conn, await rows_of(conn, sql, params))


async def append_anywhere(
    pool: AsyncConnectionPool,
    events: Sequence[Envelope],
    *,
    expected_version: int | None = None,
    announced: bool = False,
    timeout: float | None = None,
) -> list[Recorded]:
    """An append that is its own transaction (the pool's connections are in autocommit), on any
    connection of the pool: without the checkout's check, since an append is safe to run again
    (db.run_again_on_closed; the events it stored before are returned as stored, whatever the
    stream's version has become since)."""
    return await run_again_on_closed(
        pool,
        lambda conn: append_in(conn, events, expected_version=expected_version, announced=announced),
        timeout=timeout,
    )


async def read_all_in(
    conn: AsyncConnection[Any], after_position: int = 0, limit: int = 1000
) -> list[Recorded]:
    """Read the log inside the caller's transaction (a projector reads and checkpoints in one)."""
    rows = await rows_of(
        conn,
        f"SELECT {EVENT_COLUMNS} FROM events WHERE position > %s ORDER BY position LIMIT %s",
        (after_position, limit),
    )
    return await recorded_from_rows(conn, rows)


async def read_stream_in(
    conn: AsyncConnection[Any], stream_id: str, after_version: int = 0
) -> list[Recorded]:
    """One stream in version order, inside the caller's transaction (a decision reads and appends in one)."""
    rows = await rows_of(
        conn,
        f"SELECT {EVENT_COLUMNS} FROM events WHERE stream_id = %s AND stream_version > %s"
        " ORDER BY stream_version",
        (stream_id, after_version),
    )
    return await recorded_from_rows(conn, rows)


async def append_in(
    conn: AsyncConnection[Any],
    events: Sequence[Envelope],
    *,
    expected_version: int | None = None,
    announced: bool = False,
    then: Callable[[], Awaitable[None]] | None = None,
) -> list[Recorded]:
    """Append inside the caller's transaction (a consumer appends and marks its inbox in one commit).

    One round trip: `jipsa_append` (infra/migrations/versions/0008_append_planned_once.py; 0009 keeps its
    plans on the indexes; 0012 takes the envelopes as JSON) takes the lock, then reads and inserts in
    statements of its own, each with a snapshot taken after the lock, so it sees the commit of the
    appender before us. `then` (a consumer's COMMIT) is sent right behind it, before its rows are waited
    for: in the caller's pipeline (db.run_in_transaction) both go in one round trip, so the lock, held
    until COMMIT, is not held while the append's answer comes back and the COMMIT goes out after it. A
    stream that moved past `expected_version` fails the statement (0011), so the COMMIT behind it commits
    nothing. `announced`: the caller publishes the events itself once they are committed (the commit
    notice says so, on ANNOUNCED_CHANNEL)."""
    if not events:
        return []
    streams = {e.stream_id for e in events}
    if expected_version is not None and len(streams) != 1:
        raise ValueError("expected_version applies to one stream; got events for several")
    # What is stored and published: the events of a person's runs sealed (services/platform/sealing.py);
    # the caller's Recorded keep its own envelopes, with the stored ones beside. The keys of runs these
    # events open are inserted by the same statement: no round trip, no commit of their own.
    sealing = await sealed(conn, events)
    stored = sealing.events
    attributes = {"db.system.name": "postgresql", "jipsa.store.events": len(events)}
    attributes["jipsa.stream_id"] = next(iter(streams)) if len(streams) == 1 else f"{len(streams)} streams"
    with telemetry.span_in_run(events[0], "eventstore.append", attributes) as span, _moved_stream():
        cur = await conn.cursor(row_factory=dict_row).execute(
            # The envelopes as one JSON document, written by pydantic in one call (0012): psycopg dumps
            # arrays element by element in Python, a cost per field of every event (docs/hot-path.md).
            (_WITH_KEYS if sealing.keys else "") + _APPEND,
            (
                *(_key_columns(sealing.keys) if sealing.keys else ()),
                Jsonb(stored, dumps=_ENVELOPES.dump_json),
                expected_version,
                APPEND_LOCK_KEY,
                ANNOUNCED_CHANNEL if announced else NOTIFY_CHANNEL,
            ),
        )
        if then is not None:
            await then()
        rows = await cur.fetchall()
        if sealing.keys and not all(r["fresh"] for r in rows):
            # Stored before (a retried append): sealed with the key stored then, which ON CONFLICT kept.
            KEYRING.drop(run for run, _, _ in sealing.keys)
            await KEYRING.load(conn, [run for run, _, _ in sealing.keys])
        given = {e.event_id: e for e in events}
        kept = {e.event_id: e for e in stored if e is not given[e.event_id]}
        by_id = {r["event_id"]: _recorded(r, given, kept) for r in rows}
        fresh = [given[r["event_id"]] for r in rows if r["fresh"]]
        span.set_attribute("jipsa.store.appended", len(fresh))
    # Counted here, the one place every append of every process passes (consumers, the gateway, the
    # supervisor's timers), and only for events new to the store. The price: a transaction rolled back
    # after this point (a lost race later in a timer's batch, a failed commit) has been counted; rare,
    # and the store, not a dashboard, is the record of what happened.
    telemetry.record_appended(fresh)
    return [by_id[e.event_id] for e in events]


_APPEND = "SELECT * FROM jipsa_append(%b, %b::int, %b::bigint, %b::text)"
# The keys of the runs an append opens, inserted by its statement (a data-modifying WITH runs whole
# whatever the query reads of it); a run that has its key already keeps it.
_WITH_KEYS = (
    "WITH keys AS (INSERT INTO person_keys (run_id, person_id, key)"
    " SELECT * FROM unnest(%b::text[], %b::text[], %b::bytea[]) ON CONFLICT (run_id) DO NOTHING) "
)


def _key_columns(keys: Sequence[tuple[str, str, bytes]]) -> tuple[list[Any], ...]:
    return tuple(list(column) for column in zip(*keys, strict=True))


class Appending(Protocol):
    """Events to append with the stream version they expect (a consumer's Outcome)."""

    @property
    def events(self) -> Sequence[Envelope]: ...

    @property
    def expected_version(self) -> int | None: ...


async def append_each_in(
    conn: AsyncConnection[Any],
    appends: Sequence[Appending],
    *,
    announced: bool = False,
    then: Callable[[], Awaitable[None]] | None = None,
) -> list[Recorded]:
    """Several appends inside the caller's transaction, each with its own expected version (the decisions
    of a consumer's batch, each on its run's stream), sent one behind the other and `then` (the COMMIT)
    behind the last before any answer is waited for: in the caller's pipeline, one round trip, and the
    lock the first takes is held only while the server runs them, as for one append (`append_in`). A
    refused append fails the statements behind it, and the COMMIT."""
    appending = [a for a in appends if a.events]
    recorded: list[list[Recorded]] = [[] for _ in appending]

    async def append_from(i: int) -> None:
        if i == len(appending):
            if then is not None:
                await then()
            return
        recorded[i] = await append_in(
            conn,
            appending[i].events,
            expected_version=appending[i].expected_version,
            announced=announced,
            then=lambda: append_from(i + 1),
        )

    await append_from(0)
    return [r for appended in recorded for r in appended]


@contextlib.contextmanager
def _moved_stream() -> Iterator[None]:
    """jipsa_append's refusal of a stream that moved past the expected version, as a ConcurrencyError."""
    try:
        yield
    except psycopg.Error as e:
        if e.sqlstate != MOVED_STREAM or e.diag.message_detail is None:
            raise
        moved = json.loads(e.diag.message_detail)
        raise ConcurrencyError(moved["stream_id"], moved["expected"], moved["actual"]) from None


def _recorded(row: dict[str, Any], given: dict[Any, Envelope], stored: dict[Any, Envelope]) -> Recorded:
    """A row of `jipsa_append`: an event it appended (the envelope is the caller's, the stored one beside
    when sealed) or one stored before (its run's key read by `sealed`)."""
    if row["fresh"]:
        event_id = row["event_id"]
        return Recorded(
            row["position"], row["stream_version"], row["recorded_at"], given[event_id], stored.get(event_id)
        )
    return recorded_from_row(row)
