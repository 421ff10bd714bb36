"""Telemetry without servers: trace context through envelopes, spans of team work and LLM calls,
metrics from appended events, log lines carrying the run's ids, and which exporters settings choose."""

from __future__ import annotations

import json
import logging
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from opentelemetry import trace
from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
from opentelemetry.sdk.metrics import MeterProvider
from opentelemetry.sdk.metrics.export import InMemoryMetricReader
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import ConsoleSpanExporter, SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import StatusCode
from pydantic import BaseModel

from contracts import Envelope, Event, new_envelope
from contracts.gateway import QueryReceived
from contracts.supervisor import ResponseReady, StepStarted
from contracts.teams import StepCompleted
from contracts.telemetry import LlmCallRecorded
from contracts.values import Team
from services.platform import telemetry
from services.platform.llm import LlmClient, LlmSettings
from services.platform.team import StepFailure, StepOutput, StepWork, answer_step

pytestmark = pytest.mark.unit


@dataclass
class Otel:
    spans: InMemorySpanExporter
    reader: InMemoryMetricReader

    def span(self, name: str) -> ReadableSpan:
        (found,) = [s for s in self.spans.get_finished_spans() if s.name == name]
        return found

    def points(self, metric: str) -> list[tuple[dict[str, Any], Any]]:
        """(attributes, value or histogram sum) of every point of one metric."""
        data = self.reader.get_metrics_data()
        found = []
        for resource in data.resource_metrics if data else []:
            for scope in resource.scope_metrics:
                for m in scope.metrics:
                    if m.name == metric:
                        found += [(dict(p.attributes), _value(p)) for p in m.data.data_points]
        return found


def _value(point: Any) -> Any:
    return point.value if hasattr(point, "value") else point.sum


@pytest.fixture
def otel() -> Iterator[Otel]:
    spans, reader = InMemorySpanExporter(), InMemoryMetricReader()
    tracer_provider = TracerProvider()
    tracer_provider.add_span_processor(SimpleSpanProcessor(spans))
    with telemetry.using(tracer_provider, MeterProvider(metric_readers=[reader])):
        yield Otel(spans, reader)


def envelope_of(event: Event, cause: Envelope | None = None) -> Envelope:
    return new_envelope(event, stream_id="run-r1", correlation_id="r1", session_id="s1", causation=cause)


def query() -> Envelope:
    return envelope_of(QueryReceived(run_id="r1", query="전세금 5% 인상 가능한가요?"))


def test_a_span_from_an_envelope_continues_the_trace_the_envelope_carries(otel: Otel) -> None:
    with telemetry.root_span("run"):
        asked = query().model_copy(update={"trace": telemetry.trace_context_now()})
    with telemetry.span_from(asked, "planner QueryReceived"):
        pass
    root, handler = otel.span("run"), otel.span("planner QueryReceived")
    assert handler.context.trace_id == root.context.trace_id
    assert handler.parent is not None and handler.parent.span_id == root.context.span_id
    assert handler.attributes["jipsa.run_id"] == "r1"
    assert handler.attributes["jipsa.session_id"] == "s1"
    assert handler.attributes["jipsa.event_id"] == str(asked.event_id)
    assert handler.attributes["jipsa.event_type"] == "QueryReceived"


def test_an_envelope_without_trace_context_starts_a_trace_of_its_own(otel: Otel) -> None:
    with telemetry.span_from(query(), "planner QueryReceived"):
        pass
    assert otel.span("planner QueryReceived").parent is None


def test_events_appended_in_a_span_carry_that_span_and_outside_keep_their_causes_trace(otel: Otel) -> None:
    assert telemetry.trace_context_now().traceparent is None
    with telemetry.root_span("run"):
        asked = query().model_copy(update={"trace": telemetry.trace_context_now()})
    answer = envelope_of(ResponseReady(run_id="r1", response_type="answer", answer="네"), cause=asked)
    assert telemetry.with_current_trace([answer]) == [
        answer
    ]  # no span: the cause's trace, as caused_by made it
    with telemetry.span_from(asked, "supervisor StepCompleted") as span:
        (reparented,) = telemetry.with_current_trace([answer])
    trace_id, span_id = reparented.trace.traceparent.split("-")[1:3]
    assert trace_id == trace.format_trace_id(otel.span("run").context.trace_id)
    assert span_id == trace.format_span_id(span.get_span_context().span_id)


async def nothing_stored(event_ids) -> list:
    raise AssertionError("a step that depends on nothing reads nothing")


async def test_team_work_is_a_span_in_the_handlers_and_a_failure_marks_it(otel: Otel) -> None:
    started = StepStarted(run_id="r1", step_id="s-1", team=Team.SEARCH, task="법령 검색", timeout_s=5)
    cause = envelope_of(started)

    async def fails(step: StepWork) -> StepOutput:
        raise StepFailure("upstream_unavailable", "잠시 응답 없음", retryable=True)

    with telemetry.span_from(cause, "team-search StepStarted"):
        (failed,) = await answer_step(Team.SEARCH, fails, started, cause, nothing_stored)
    work, handler = otel.span("team search"), otel.span("team-search StepStarted")
    assert failed.event_type == "StepFailed"
    assert work.parent.span_id == handler.context.span_id
    assert work.attributes["jipsa.step_id"] == "s-1" and work.attributes["jipsa.attempt"] == 1
    assert work.status.status_code is StatusCode.ERROR


class Keywords(BaseModel):
    keywords: list[str]


async def test_an_llm_call_is_a_span_with_its_call_point_outcome_and_fallback(
    otel: Otel, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in ("OPENAI_BASE_URL", "OPENAI_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    (tmp_path / "keywords.md").write_text("---\nname: keywords\n---\n## system\n찾기\n## user\n{query}\n")
    llm = LlmClient(LlmSettings(), prompts_dir=tmp_path)
    result = await llm.structured(
        "keywords", {"query": "전세"}, Keywords, run_id="r1", fallback=lambda: Keywords(keywords=["전세"])
    )
    span = otel.span("llm keywords")
    assert result.record.fallback_used
    assert span.attributes["jipsa.llm.call_point"] == "keywords"
    assert span.attributes["jipsa.llm.outcome"] == "not_configured"
    assert span.attributes["jipsa.llm.fallback_used"] is True
    assert span.attributes["jipsa.run_id"] == "r1"


def llm_call(fallback: bool) -> Envelope:
    return envelope_of(
        LlmCallRecorded(
            run_id="r1",
            call_point="planning",
            prompt_name="planning",
            prompt_hash="abc",
            model="m" if not fallback else None,
            latency_ms=12.0,
            outcome="timeout" if fallback else "ok",
            fallback_used=fallback,
        )
    )


def test_appended_events_count_runs_steps_llm_calls_and_fallbacks(otel: Otel) -> None:
    completed = StepCompleted(
        run_id="r1", step_id="s-1", team=Team.ANALYSIS, attempt=1, summary="완료", result={}, duration_ms=42.0
    )
    answered = ResponseReady(run_id="r1", response_type="answer", answer="네")
    telemetry.record_appended(
        [llm_call(fallback=True), llm_call(fallback=False), *map(envelope_of, (completed, answered))]
    )
    assert otel.points("jipsa.llm.fallbacks") == [({"call_point": "planning", "outcome": "timeout"}, 1)]
    assert sum(value for _, value in otel.points("jipsa.llm.calls")) == 2
    assert otel.points("jipsa.runs") == [({"outcome": "answered"}, 1)]
    assert otel.points("jipsa.step.duration") == [({"team": "analysis", "outcome": "completed"}, 42.0)]


def test_dead_letters_and_consumer_lag_are_reported(otel: Otel) -> None:
    telemetry.record_dead_letter("planner")
    telemetry.record_consumer_lag("jipsa-planner", 7)
    assert otel.points("jipsa.dead_letters") == [({"consumer": "planner"}, 1)]
    assert otel.points("jipsa.consumer.lag") == [({"consumer": "jipsa-planner"}, 7)]


def formatted(formatter: logging.Formatter) -> str:
    record = logging.LogRecord("jipsa.planner", logging.INFO, __file__, 1, "planned %s", ("r1",), None)
    telemetry.LogIdsFilter().filter(record)
    return formatter.format(record)


def test_log_lines_inside_a_handler_carry_the_run_event_session_and_trace_ids(otel: Otel) -> None:
    asked = query()
    text = telemetry.KeyValueFormatter(logging.Formatter("%(levelname)s %(message)s"))
    assert formatted(text) == "INFO planned r1"
    with telemetry.span_from(asked, "planner QueryReceived") as span, telemetry.log_context(asked):
        line, entry = formatted(text), json.loads(formatted(telemetry.JsonFormatter("planner")))
    trace_id = trace.format_trace_id(span.get_span_context().trace_id)
    assert line == f"INFO planned r1 run_id=r1 event_id={asked.event_id} session_id=s1 trace_id={trace_id}"
    assert entry["message"] == "planned r1" and entry["service"] == "planner"
    assert (entry["run_id"], entry["event_id"], entry["trace_id"]) == ("r1", str(asked.event_id), trace_id)


def test_exporters_follow_settings_and_none_is_the_default(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("OTEL_EXPORTER_OTLP_ENDPOINT", "JIPSA_OTEL_CONSOLE"):
        monkeypatch.delenv(name, raising=False)

    def settings(**env: str) -> telemetry.TelemetrySettings:
        return telemetry.TelemetrySettings(**env)

    assert telemetry.span_exporters(settings()) == []
    assert telemetry.metric_exporters(settings()) == []
    assert [type(e) for e in telemetry.span_exporters(settings(JIPSA_OTEL_CONSOLE="1"))] == [
        ConsoleSpanExporter
    ]
    otlp = telemetry.span_exporters(settings(OTEL_EXPORTER_OTLP_ENDPOINT="http://127.0.0.1:4318"))
    assert [type(e) for e in otlp] == [OTLPSpanExporter]
    assert len(telemetry.metric_exporters(settings(OTEL_EXPORTER_OTLP_ENDPOINT="http://127.0.0.1:4318"))) == 1
