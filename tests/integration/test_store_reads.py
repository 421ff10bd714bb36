"""The event store's reads for other modules (services/platform/store_reads.py) against a real Postgres:
a session's runs, a run's events, a session's previous plan, and what the watchdog sweeps."""

from __future__ import annotations

from typing import Any

import pytest
from nats.aio.msg import Msg

from contracts import REGISTRY, Envelope, Event, TraceContext, new_envelope, run_stream, subject_for
from contracts.export import load_examples
from contracts.gateway import QueryOptions, QueryReceived
from contracts.planner import PlanReady
from services.platform import store_reads
from services.platform.deadletters import park
from services.platform.eventstore import EventStore, Recorded
from services.platform.publisher import headers_of, subject
from services.platform.store_reads import Outgoing

pytestmark = pytest.mark.integration


def example(event_type: str, run_id: str, **changes: Any) -> Event:
    """The contract's first example of an event type, moved to this test's run (a person's own events,
    which belong to no run, stay as they are)."""
    model = REGISTRY.model(event_type, REGISTRY.latest_version(event_type))
    of_run = {"run_id": run_id} if "run_id" in model.model_fields else {}
    return model.model_validate({**load_examples(model)[0], **of_run, **changes})


def of_run(run_id: str, event: Event, session_id: str = "s1") -> Envelope:
    return new_envelope(event, stream_id=run_stream(run_id), correlation_id=run_id, session_id=session_id)


def asked(run_id: str, text: str, session_id: str = "s1", approval: bool = False) -> Envelope:
    options = QueryOptions(require_approval=approval)
    return of_run(run_id, QueryReceived(run_id=run_id, query=text, options=options), session_id)


def types(records: list[Recorded]) -> list[tuple[str, str]]:
    return [(r.envelope.correlation_id, r.envelope.event_type) for r in records]


async def test_a_runs_events_and_a_sessions_events_in_log_order(store: EventStore) -> None:
    await store.append(
        [
            asked("r1", "전세금 인상기준은?"),
            asked("r2", "다른 세션", session_id="s2"),
            of_run("r1", example("PlanReady", "r1")),
            of_run("r1", example("StepStarted", "r1")),
        ]
    )
    async with store.pool.connection() as conn:
        head = await store_reads.head(conn)
        assert types(await store_reads.run_events(conn, "r1", after=0, limit=10)) == [
            ("r1", "QueryReceived"),
            ("r1", "PlanReady"),
            ("r1", "StepStarted"),
        ]
        assert types(await store_reads.run_events(conn, "r1", after=0, limit=1)) == [("r1", "QueryReceived")]
        assert types(await store_reads.session_events(conn, "s2", after=0, up_to=head, limit=10)) == [
            ("r2", "QueryReceived")
        ]
        after_first, checkpoint = await store_reads.events_and_checkpoint(conn, 1, 2, "projections")
        assert types(after_first) == [("r2", "QueryReceived"), ("r1", "PlanReady")]
        assert checkpoint == 0  # as the migration seeds it: nothing projected here
        assert await store_reads.events_and_checkpoint(conn, 4, 10, "projections") == ([], None)
        latest = await store_reads.latest_of_run(conn, "r1", "PlanReady")
        assert latest is not None and isinstance(latest.event(), PlanReady)
        assert await store_reads.latest_of_run(conn, "r2", "PlanReady") is None
        began = await store_reads.first_positions(conn, ["r1", "r2"], ["PlanApproved", "StepStarted"])
    assert head == 4
    assert began == {"r1": 4}


async def test_the_sessions_previous_plan_is_its_latest_other_run(store: EventStore) -> None:
    first_plan = example("PlanReady", "r1")
    await store.append(
        [
            asked("r1", "강남구 아파트 전세 시세"),
            of_run("r1", first_plan),
            asked("r9", "남의 세션", session_id="s2"),
            of_run("r9", example("PlanReady", "r9"), session_id="s2"),
            asked("r2", "그럼 서초구는?"),
        ]
    )
    async with store.pool.connection() as conn:
        previous = await store_reads.previous_plan(conn, "s1", before_run="r2")
        nothing_before = await store_reads.previous_plan(conn, "s1", before_run="r1")
    assert previous is not None
    assert previous.question.query == "강남구 아파트 전세 시세"
    assert previous.plan.intent == first_plan.intent
    assert nothing_before is None


async def test_runs_awaiting_approval_and_open_forms_leave_answered_and_ended_runs_out(
    store: EventStore,
) -> None:
    await store.append(
        [
            asked("waiting", "승인을 기다리는 질문", approval=True),
            asked("approved", "승인된 질문", approval=True),
            of_run("approved", example("PlanApproved", "approved")),
            asked("no-approval", "승인이 필요 없는 질문"),
            of_run("asking", example("InputRequested", "asking")),
            of_run("answered", example("InputRequested", "answered")),
            of_run("answered", example("InputProvided", "answered")),
            of_run("failed", example("InputRequested", "failed")),
            of_run("failed", example("RunFailed", "failed")),
        ]
    )
    async with store.pool.connection() as conn:
        awaiting = await store_reads.runs_awaiting_approval(conn, "s1")
        forms = await store_reads.open_forms(conn, "s1")
    assert awaiting == ["waiting"]
    assert types(forms) == [("asking", "InputRequested")]


async def test_stream_activity_groups_the_log_after_a_position_by_run(store: EventStore) -> None:
    await store.append(
        [
            asked("r1", "첫 질문"),
            asked("r2", "둘째 질문"),
            of_run("r2", example("RunFailed", "r2")),
            asked("r1", "첫 질문에 이어서"),
        ]
    )
    async with store.pool.connection() as conn:
        everything = await store_reads.stream_activity(conn, 0, "run-", ["RunFailed"])
        after_two = await store_reads.stream_activity(conn, 2, "run-", ["RunFailed"])
    by_stream = {a.stream_id: (a.first_position, a.last_position, a.ended) for a in everything}
    assert by_stream == {"run-r1": (1, 4, False), "run-r2": (2, 3, True)}
    assert {a.stream_id: (a.first_position, a.ended) for a in after_two} == {
        "run-r1": (4, False),
        "run-r2": (3, True),
    }


async def test_open_runs_with_parked_events_are_those_nothing_happened_to_since(store: EventStore) -> None:
    stuck, ended, other = (
        asked("stuck", "멈춘 질문"),
        asked("ended", "끝난 질문"),
        asked("other", "다른 소비자"),
    )
    await store.append([stuck, ended, other])
    for envelope, consumer in ((stuck, "planner"), (ended, "planner"), (other, "projector")):
        letter = Msg(
            _client=None, subject="jipsa.v1.QueryReceived", headers={"Nats-Msg-Id": str(envelope.event_id)}
        )
        await park(store.pool, consumer=consumer, msg=letter, error="boom", deliveries=3)
    await store.append([of_run("ended", example("RunFailed", "ended"))])
    async with store.pool.connection() as conn:
        parked = await store_reads.open_runs_with_parked_events(
            conn, ["planner", "supervisor-%"], ["RunFailed"]
        )
    assert parked == [store_reads.ParkedRun(run_id="stuck", consumer="planner")]


async def test_events_read_for_the_bus_are_the_envelopes_the_store_holds(store: EventStore) -> None:
    """The relay's read (`outgoing_after`) has Postgres write each envelope's JSON: a consumer reads the
    same envelope from it as from the one the appender publishes, under the same subject and headers,
    for every event type (routed or not) with a trace, a session and Korean text."""
    traced = TraceContext(traceparent="00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01")
    envelopes = [
        of_run("r1", example(model.event_type, "r1")).model_copy(update={"trace": traced})
        for model in REGISTRY.current()
    ]
    envelopes.append(asked("r2", '강남구 전세 3억 5천, 84㎡ "따옴표" \\ 역슬래시'))
    recorded = await store.append(envelopes)
    async with store.pool.connection() as conn:
        outgoing = await store_reads.outgoing_after(conn, recorded[0].position - 1, len(recorded) + 10)

    assert [o.position for o in outgoing] == [r.position for r in recorded]
    for sent, record in zip(outgoing, recorded, strict=True):
        published = Outgoing.of(record)  # as the appender publishes it
        assert Envelope.model_validate_json(sent.body) == record.envelope
        assert subject(sent, "ns") == subject(published, "ns") == subject_for(record.envelope, "ns")
        assert headers_of(sent) == headers_of(published)
