"""One trace per run across the real store and NATS: the gateway's root span, a consumer's handler span
and the events it appends share a trace; log lines in the handler carry the run's ids; a parked
message is counted as a dead letter."""

from __future__ import annotations

import logging
from collections.abc import Iterator

import pytest
from opentelemetry import trace
from opentelemetry.sdk.metrics import MeterProvider
from opentelemetry.sdk.metrics.export import InMemoryMetricReader
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import StatusCode

from services.gateway.feed.reads import Reads
from services.gateway.frames.protocol import QueryFrame
from services.gateway.handlers import RunRequests
from services.platform import telemetry
from services.platform.bus import ConsumerPolicy
from services.platform.consumer import Consumer, HandlerContext, Outcome, Poison, Subscription
from services.platform.deadletters import list_dead_letters
from services.platform.publisher import Publisher
from tests.integration.bus_helpers import plan_once, query_event, running, wait_until
from tests.unit.test_telemetry import Otel

pytestmark = pytest.mark.integration
FAST = ConsumerPolicy.from_infra(backoff_s=[0.05, 0.1, 0.2], max_attempts=3, ack_wait_s=5)
log = logging.getLogger("jipsa.test.planner")


@pytest.fixture
def otel() -> Iterator[Otel]:
    spans, reader = InMemorySpanExporter(), InMemoryMetricReader()
    tracer_provider = TracerProvider()
    tracer_provider.add_span_processor(SimpleSpanProcessor(spans))
    with telemetry.using(tracer_provider, MeterProvider(metric_readers=[reader])):
        yield Otel(spans, reader)


def planner(store, nc, infra, handler) -> Consumer:
    return Consumer(Subscription("planner", "QueryReceived", handler), store.pool, nc, infra, FAST)


async def stored(store, event_type: str):
    return [r for r in await store.read_all() if r.envelope.event_type == event_type]


def trace_and_parent(traceparent: str | None) -> tuple[str, str]:
    assert traceparent is not None
    _, trace_id, span_id, _ = traceparent.split("-")
    return trace_id, span_id


async def test_a_run_is_one_trace_from_the_gateway_through_a_handler_to_the_events_it_appends(
    store, nc, infra, otel: Otel, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.handler.addFilter(telemetry.LogIdsFilter())

    async def planning(ctx: HandlerContext) -> Outcome:
        log.info("planning %s", ctx.event.run_id)
        return await plan_once(ctx)

    asked = await RunRequests(Reads(store.pool)).ask("s1", QueryFrame(type="query", query="전세 시세"))
    consumer = planner(store, nc, infra, planning)
    with caplog.at_level(logging.INFO, logger=log.name):
        async with running(Publisher(store.pool, nc, infra), consumer):
            await wait_until(lambda: _count(store, "PlanReady"), what="a plan")
            await wait_until(lambda: _lag_sampled(otel, consumer.durable), what="the consumer's lag")

    root, handler = otel.span("run"), otel.span("planner QueryReceived")
    root_trace = trace.format_trace_id(root.context.trace_id)
    (query_received,) = await stored(store, "QueryReceived")
    (plan,) = await stored(store, "PlanReady")
    # QueryReceived's trace survives the store round trip and names the root span.
    assert query_received.envelope.trace == asked.envelope.trace
    assert trace_and_parent(query_received.envelope.trace.traceparent) == (
        root_trace,
        trace.format_span_id(root.context.span_id),
    )
    # The handler continues the run's trace, and what it appended is the handler span's child.
    assert handler.context.trace_id == root.context.trace_id
    assert handler.parent.span_id == root.context.span_id
    assert trace_and_parent(plan.envelope.trace.traceparent) == (
        root_trace,
        trace.format_span_id(handler.context.span_id),
    )
    assert handler.attributes["jipsa.outcome"] == "handled"
    assert handler.attributes["jipsa.run_id"] == query_received.envelope.correlation_id
    assert handler.attributes["jipsa.delivery"] == 1
    assert handler.attributes["messaging.system"] == "nats"
    appends = [s for s in otel.spans.get_finished_spans() if s.name == "eventstore.append"]
    assert {s.context.trace_id for s in appends} == {root.context.trace_id}
    (line,) = [r for r in caplog.records if r.name == log.name]
    assert line.jipsa_ids["run_id"] == query_received.envelope.correlation_id
    assert line.jipsa_ids["event_id"] == str(query_received.envelope.event_id)
    assert line.jipsa_ids["trace_id"] == root_trace


async def test_a_parked_message_is_counted_as_a_dead_letter_and_its_span_ends_in_error(
    store, nc, infra, otel: Otel
) -> None:
    async def poisoned(ctx: HandlerContext) -> Outcome:
        raise Poison("a plan for this can never be made")

    await store.append([query_event("poison")])
    async with running(Publisher(store.pool, nc, infra), planner(store, nc, infra, poisoned)):
        await wait_until(lambda: _parked(store), what="the message parked")
    handler = otel.span("planner QueryReceived")
    assert handler.attributes["jipsa.outcome"] == "parked"
    assert handler.status.status_code is StatusCode.ERROR
    assert otel.points("jipsa.dead_letters") == [({"consumer": "planner"}, 1)]


async def _count(store, event_type: str) -> bool:
    return len(await stored(store, event_type)) == 1


async def _parked(store) -> bool:
    return len(await list_dead_letters(store.pool)) == 1


async def _lag_sampled(otel: Otel, durable: str) -> bool:
    return ({"consumer": durable}, 0) in otel.points("jipsa.consumer.lag")
