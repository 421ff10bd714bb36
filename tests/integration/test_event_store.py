"""The event store against a real Postgres: append-only, idempotent, optimistic, gap-free in order."""

from __future__ import annotations

import pytest

from contracts import new_envelope
from contracts.gateway import QueryReceived
from services.platform.eventstore import ConcurrencyError, EventStore

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
