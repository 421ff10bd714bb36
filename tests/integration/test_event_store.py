"""The event store against a real Postgres: append-only, idempotent, optimistic, gap-free in order."""

from __future__ import annotations

import pytest
from psycopg import AsyncConnection
from psycopg.rows import dict_row

from contracts import new_envelope
from contracts.gateway import QueryReceived
from services.platform.eventstore import ConcurrencyError, EventStore, append_in
from services.platform.outages import url_of

pytestmark = pytest.mark.integration


def query(run: str, text: str = "전세금 인상기준은?"):
    return new_envelope(
        QueryReceived(run_id=run, query=text), stream_id=f"run-{run}", correlation_id=run, session_id="s"
    )


async def test_append_is_idempotent_by_event_id(store: EventStore) -> None:
    event = query("r1")
    first = await store.append([event])
    again = await store.append([event])
    assert again == first
    assert [r.envelope.event_id for r in await store.read_all()] == [event.event_id]


async def test_expected_version_refuses_a_stale_decision(store: EventStore) -> None:
    await store.append([query("r1")], expected_version=0)
    with pytest.raises(ConcurrencyError) as refused:
        await store.append([query("r1", "두번째")], expected_version=0)
    assert (refused.value.expected, refused.value.actual) == (0, 1)
    assert len(await store.read_stream("run-r1")) == 1


async def test_stream_versions_count_up_per_stream_in_one_batch(store: EventStore) -> None:
    recorded = await store.append([query("a"), query("b"), query("a")])
    assert [(r.envelope.stream_id, r.stream_version) for r in recorded] == [
        ("run-a", 1),
        ("run-b", 1),
        ("run-a", 2),
    ]
    assert [r.position for r in recorded] == sorted(r.position for r in recorded)


async def test_a_batch_partly_stored_appends_only_the_new_events_after_the_stored_ones(
    store: EventStore,
) -> None:
    """A retried handler's batch: what is stored comes back as stored, the rest continues its stream."""
    first, second, third = query("a"), query("a", "둘째"), query("a", "셋째")
    (stored,) = await store.append([first])
    again = await store.append([first, second, third], expected_version=1)
    assert again[0] == stored
    assert [(r.envelope.event_id, r.stream_version) for r in again[1:]] == [
        (second.event_id, 2),
        (third.event_id, 3),
    ]
    assert [r.envelope.event_id for r in await store.read_stream("run-a")] == [
        first.event_id,
        second.event_id,
        third.event_id,
    ]


async def test_a_batch_over_streams_partly_stored_continues_each_stream(store: EventStore) -> None:
    """The several-streams path of `jipsa_append` (one stream's batches take a path of their own)."""
    stored_a, stored_b = query("a"), query("b")
    await store.append([stored_a, stored_b])
    new_a, new_b = query("a", "둘째"), query("b", "둘째")
    again = await store.append([new_b, stored_a, new_a, stored_b])
    assert [(r.envelope.event_id, r.envelope.stream_id, r.stream_version) for r in again] == [
        (new_b.event_id, "run-b", 2),
        (stored_a.event_id, "run-a", 1),
        (new_a.event_id, "run-a", 2),
        (stored_b.event_id, "run-b", 1),
    ]
    assert again[0].position < again[2].position  # the new events in the order they were given


@pytest.mark.parametrize(
    "statement", ["UPDATE events SET event_type = 'X'", "DELETE FROM events", "TRUNCATE events"]
)
async def test_database_refuses_to_change_stored_events(store: EventStore, statement: str) -> None:
    await store.append([query("r1")])
    async with store.pool.connection() as conn:
        with pytest.raises(Exception, match="append-only"):
            await conn.execute(statement)
    assert len(await store.read_all()) == 1


async def test_payload_round_trips_with_korean_text(store: EventStore) -> None:
    event = query("r1", "강남구 아파트 전세 시세와 위험도 분석해줘")
    (recorded,) = await store.append([event])
    (read,) = await store.read_stream("run-r1")
    assert read.envelope == event == recorded.envelope
    assert read.event().query == "강남구 아파트 전세 시세와 위험도 분석해줘"


async def test_an_append_looks_events_up_by_index_however_small_the_log_was_when_it_planned(
    store: EventStore,
) -> None:
    """`jipsa_append` keeps its plans for the connection's life: one made while the log filled a page
    must not go on scanning the whole log at every append once it has grown."""
    await store.append([query(f"early{i}") for i in range(20)])
    own = AsyncConnection.connect(url_of(store.pool), autocommit=True, row_factory=dict_row)
    async with await own as conn:
        await append_in(conn, [query("planned-small")])  # its plans are made with one page of events
        for batch in range(10):
            await store.append([query(f"later{batch}-{i}") for i in range(100)])
        before = await sequential_scans_of_events(store, conn)
        await append_in(conn, [query("again")])
        assert await sequential_scans_of_events(store, conn) == before


async def sequential_scans_of_events(store: EventStore, appender: AsyncConnection) -> int:
    """How often `events` was read whole, with what `appender` did so far counted (its backend reports
    its statistics before it next answers, once told to)."""
    await appender.execute("SELECT pg_stat_force_next_flush()")
    async with store.pool.connection() as conn:
        await conn.execute("SELECT pg_stat_clear_snapshot()")
        cur = await conn.execute("SELECT seq_scan FROM pg_stat_user_tables WHERE relname = 'events'")
        (row,) = await cur.fetchall()
        return row["seq_scan"]


async def test_a_large_payload_is_stored_with_the_fastest_compression_the_server_offers(
    store: EventStore,
) -> None:
    """lz4 where Postgres was built with it (every reader of a large step result decompresses it), the
    server's default otherwise; the payload reads back whole either way."""
    large = query("r1", "강남구 아파트 전세 시세와 위험도 분석해줘 " * 80)  # about 5 kB
    await store.append([large])
    async with store.pool.connection() as conn:
        cur = await conn.execute(
            "SELECT pg_column_compression(e.data) AS method, 'lz4' = ANY(s.enumvals) AS lz4_built"
            " FROM events e, pg_settings s WHERE s.name = 'default_toast_compression'"
        )
        (row,) = await cur.fetchall()
    assert row["method"] == ("lz4" if row["lz4_built"] else "pglz")
    (read,) = await store.read_stream("run-r1")
    assert read.envelope == large
