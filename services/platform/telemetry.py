"""Traces, metrics and log ids for every Jipsa process: one trace per run, carried in the envelopes.

How a run becomes one trace
---------------------------
The gateway opens the run's root span when it appends QueryReceived and writes that span's W3C
`traceparent` into the envelope. Each consumer handles a message inside a span whose parent is the
incoming envelope's traceparent (`span_from`), and the events it appends carry the handler span's
context (`with_current_trace`), so the next service's span is a child of this one: the trace follows
the causal chain from question to answer across processes, through the store and NATS. Store
appends, LLM calls and team work are spans inside the handler's. The publisher's batch spans are
the exception: one batch carries events of many runs, so it is a trace of its own, linked to each.

Why globals here
----------------
OpenTelemetry's API is process-global by design: instrumented code asks for a tracer and meter,
which do nothing until a provider is installed. Threading a tracer through every port would touch
every constructor for no gain in testability, since tests install in-memory providers with `using`.
Nothing happens at import time; `setup_telemetry` installs the real providers once per process.

Exporters (settings read once, by `setup_telemetry`)
----------------------------------------------------
- `OTEL_EXPORTER_OTLP_ENDPOINT` set: spans and metrics go there over OTLP/HTTP (the exporters read
  the standard `OTEL_EXPORTER_OTLP_*` variables themselves).
- `JIPSA_OTEL_CONSOLE=1`: spans and metrics are printed to stdout as well. Off by default although
  the issue asked for console by default: every event makes several spans, and printed as JSON they
  would drown `make run`'s log, which interleaves every service's output.
- Neither: nothing is exported, but spans are still created, so trace ids reach envelopes and logs.
- `JIPSA_LOG_JSON=1`: log lines as JSON objects instead of text with `key=value` ids appended.
- `JIPSA_LOG_LEVEL` (INFO): the least severe records written, set on the root logger.
"""

from __future__ import annotations

import contextlib
import contextvars
import json
import logging
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, Literal

from opentelemetry import metrics, trace
from opentelemetry.context import Context
from opentelemetry.metrics import CallbackOptions, Counter, Histogram, MeterProvider, Observation
from opentelemetry.trace import Link, Span, SpanKind, Status, StatusCode, Tracer, TracerProvider
from opentelemetry.trace.propagation.tracecontext import TraceContextTextMapPropagator
from pydantic import Field, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from contracts import Envelope, TraceContext

INSTRUMENTATION = "jipsa"
RUN_OUTCOMES = {
    "ResponseReady": "answered",
    "RunFailed": "failed",
    "RunCancelled": "cancelled",
    "PlanRejected": "rejected",
}
_propagator = TraceContextTextMapPropagator()


class TelemetrySettings(BaseSettings):
    """Traces, metrics and logs of every process (this module's docstring says how a run becomes a trace)."""

    model_config = SettingsConfigDict(env_prefix="", extra="ignore")

    otlp_endpoint: str | None = Field(
        default=None,
        alias="OTEL_EXPORTER_OTLP_ENDPOINT",
        description="An OpenTelemetry collector (OTLP/HTTP, e.g. http://collector:4318) to send traces and "
        "metrics to; the exporters read the other standard OTEL_EXPORTER_OTLP_* variables themselves.",
    )
    console: bool = Field(
        default=False,
        alias="JIPSA_OTEL_CONSOLE",
        description="Print spans and metrics to stdout as well (they would drown `make run`'s log).",
    )
    log_json: bool = Field(
        default=False, alias="JIPSA_LOG_JSON", description="Log lines as JSON objects instead of text."
    )
    log_level: Literal["DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL"] = Field(
        default="INFO",
        alias="JIPSA_LOG_LEVEL",
        description="The least severe log records a process writes.",
    )

    @field_validator("log_level", mode="before")
    @classmethod
    def _upper(cls, level: object) -> object:
        return level.upper() if isinstance(level, str) else level


# --- the instruments ---------------------------------------------------------------------------------------


@dataclass
class Telemetry:
    """The tracer and every metric instrument of the house, built from one pair of providers."""

    tracer: Tracer
    runs: Counter
    step_duration: Histogram
    llm_calls: Counter
    llm_fallbacks: Counter
    dead_letters: Counter
    lag: dict[str, int] = field(default_factory=dict)  # durable -> messages not yet delivered

    @classmethod
    def build(cls, tracer_provider: TracerProvider, meter_provider: MeterProvider) -> Telemetry:
        meter = meter_provider.get_meter(INSTRUMENTATION)
        built = cls(
            tracer=tracer_provider.get_tracer(INSTRUMENTATION),
            runs=meter.create_counter("jipsa.runs", "{run}", "Runs that reached a final state, by outcome"),
            step_duration=meter.create_histogram(
                "jipsa.step.duration", "ms", "Time a team spent on a step, by team and outcome"
            ),
            llm_calls=meter.create_counter(
                "jipsa.llm.calls", "{call}", "LLM calls, by call point and outcome"
            ),
            llm_fallbacks=meter.create_counter(
                "jipsa.llm.fallbacks", "{call}", "LLM calls answered by the rule-based fallback"
            ),
            dead_letters=meter.create_counter(
                "jipsa.dead_letters", "{message}", "Messages parked as dead letters, by consumer"
            ),
        )
        meter.create_observable_gauge(
            "jipsa.consumer.lag",
            [built._observe_lag],
            "{message}",
            "Messages of a durable consumer's subjects not yet delivered (NATS num_pending)",
        )
        return built

    def _observe_lag(self, _options: CallbackOptions) -> Iterable[Observation]:
        return [Observation(pending, {"consumer": durable}) for durable, pending in self.lag.items()]


_current: Telemetry | None = None


def current() -> Telemetry:
    """The installed telemetry; before `setup_telemetry`, OTel's global (no-op until set) providers."""
    global _current
    if _current is None:
        _current = Telemetry.build(trace.get_tracer_provider(), metrics.get_meter_provider())
    return _current


def install(tracer_provider: TracerProvider, meter_provider: MeterProvider) -> Telemetry:
    global _current
    _current = Telemetry.build(tracer_provider, meter_provider)
    return _current


@contextlib.contextmanager
def using(tracer_provider: TracerProvider, meter_provider: MeterProvider) -> Iterator[Telemetry]:
    """Install these providers for the block, then put back what was there (tests)."""
    global _current
    previous = _current
    try:
        yield install(tracer_provider, meter_provider)
    finally:
        _current = previous


def setup_telemetry(service_name: str, settings: TelemetrySettings | None = None) -> Telemetry:
    """Once per process, after logging is configured: providers, exporters and log ids (module docstring)."""
    from opentelemetry.sdk.metrics import MeterProvider as SdkMeterProvider
    from opentelemetry.sdk.metrics.export import PeriodicExportingMetricReader
    from opentelemetry.sdk.resources import Resource
    from opentelemetry.sdk.trace import TracerProvider as SdkTracerProvider
    from opentelemetry.sdk.trace.export import BatchSpanProcessor

    settings = settings or TelemetrySettings()
    resource = Resource.create({"service.name": f"jipsa-{service_name}", "service.namespace": "jipsa"})
    tracer_provider = SdkTracerProvider(resource=resource)
    for exporter in span_exporters(settings):
        tracer_provider.add_span_processor(BatchSpanProcessor(exporter))
    readers = [PeriodicExportingMetricReader(e) for e in metric_exporters(settings)]
    meter_provider = SdkMeterProvider(resource=resource, metric_readers=readers)
    trace.set_tracer_provider(tracer_provider)
    metrics.set_meter_provider(meter_provider)
    configure_logging(service_name, settings)
    return install(tracer_provider, meter_provider)


def span_exporters(settings: TelemetrySettings) -> list[Any]:
    from opentelemetry.sdk.trace.export import ConsoleSpanExporter

    exporters: list[Any] = [ConsoleSpanExporter()] if settings.console else []
    if settings.otlp_endpoint:
        from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter

        exporters.append(OTLPSpanExporter())
    return exporters


def metric_exporters(settings: TelemetrySettings) -> list[Any]:
    from opentelemetry.sdk.metrics.export import ConsoleMetricExporter

    exporters: list[Any] = [ConsoleMetricExporter()] if settings.console else []
    if settings.otlp_endpoint:
        from opentelemetry.exporter.otlp.proto.http.metric_exporter import OTLPMetricExporter

        exporters.append(OTLPMetricExporter())
    return exporters


# --- spans and the envelope's trace ------------------------------------------------------------------------


def tracer() -> Tracer:
    return current().tracer


def trace_context_now() -> TraceContext:
    """The current span as W3C trace context (empty when no span is active)."""
    carrier: dict[str, str] = {}
    _propagator.inject(carrier)
    return TraceContext(traceparent=carrier.get("traceparent"), tracestate=carrier.get("tracestate"))


def with_current_trace(envelopes: Sequence[Envelope]) -> list[Envelope]:
    """The envelopes re-parented on the current span, so the next consumer's span is its child.

    `caused_by`/`new_envelope` copy the cause's trace because contracts know nothing of OTel; the
    platform applies the live span here, just before the events are appended.
    """
    if not trace.get_current_span().get_span_context().is_valid:
        return list(envelopes)
    now = trace_context_now()
    return [e.model_copy(update={"trace": now}) for e in envelopes]


def envelope_attributes(envelope: Envelope) -> dict[str, str]:
    attributes = {
        "jipsa.run_id": envelope.correlation_id,
        "jipsa.session_id": envelope.session_id,
        "jipsa.event_id": str(envelope.event_id),
        "jipsa.event_type": envelope.event_type,
    }
    return {key: value for key, value in attributes.items() if value is not None}


def _context_of(trace_context: TraceContext) -> Context:
    carrier = {"traceparent": trace_context.traceparent, "tracestate": trace_context.tracestate}
    return _propagator.extract({key: value for key, value in carrier.items() if value})


@contextlib.contextmanager
def span_from(
    envelope: Envelope,
    name: str,
    *,
    kind: SpanKind = SpanKind.INTERNAL,
    attributes: dict[str, Any] | None = None,
) -> Iterator[Span]:
    """A span whose parent is the envelope's traceparent (a root span when it has none)."""
    with tracer().start_as_current_span(
        name,
        context=_context_of(envelope.trace),
        kind=kind,
        attributes={**envelope_attributes(envelope), **(attributes or {})},
    ) as span:
        yield span


@contextlib.contextmanager
def span_in_run(envelope: Envelope, name: str, attributes: dict[str, Any] | None = None) -> Iterator[Span]:
    """A child of the current span, or of the envelope's trace when none is active (a timer's append)."""
    if trace.get_current_span().get_span_context().is_valid:
        with tracer().start_as_current_span(name, attributes=attributes) as span:
            yield span
    else:
        with span_from(envelope, name, attributes=attributes) as span:
            yield span


@contextlib.contextmanager
def root_span(
    name: str,
    attributes: dict[str, Any] | None = None,
    links: Sequence[Link] = (),
    kind: SpanKind = SpanKind.PRODUCER,
) -> Iterator[Span]:
    """A span that starts a trace of its own, whatever is active (a run; a publish batch)."""
    with tracer().start_as_current_span(
        name, context=Context(), kind=kind, attributes=attributes, links=links
    ) as span:
        yield span


def links_to(traced: Iterable[tuple[str, TraceContext]]) -> list[Link]:
    """Links to the spans of these (event id, trace context) pairs, as a batch of events has them."""
    links = []
    for event_id, trace_context in traced:
        if trace_context.traceparent is None:  # appended with no span around it: nothing to link to
            continue
        span_context = trace.get_current_span(_context_of(trace_context)).get_span_context()
        if span_context.is_valid:
            links.append(Link(span_context, {"jipsa.event_id": event_id}))
    return links


def mark_failed(reason: str, error: BaseException | None = None) -> None:
    """The current span ends in error: a retried or parked message (with the exception, when one)."""
    span = trace.get_current_span()
    if error is not None:
        span.record_exception(error)
    span.set_status(Status(StatusCode.ERROR, reason))


# --- metrics from what was appended ------------------------------------------------------------------------


def record_appended(envelopes: Iterable[Envelope]) -> None:
    """Count run outcomes, step latencies and LLM calls in events just appended to the store."""
    t = current()
    for e in envelopes:
        if outcome := RUN_OUTCOMES.get(e.event_type):
            t.runs.add(1, {"outcome": outcome})
        elif e.event_type in ("StepCompleted", "StepFailed"):
            step_outcome = "completed" if e.event_type == "StepCompleted" else "failed"
            t.step_duration.record(e.data["duration_ms"], {"team": e.data["team"], "outcome": step_outcome})
        elif e.event_type == "LlmCallRecorded":
            labels = {"call_point": e.data["call_point"], "outcome": e.data["outcome"]}
            t.llm_calls.add(1, labels)
            if e.data["fallback_used"]:
                t.llm_fallbacks.add(1, labels)


def record_dead_letter(consumer: str) -> None:
    current().dead_letters.add(1, {"consumer": consumer})


def record_consumer_lag(durable: str, pending: int) -> None:
    current().lag[durable] = pending


# --- logs carrying the same ids ----------------------------------------------------------------------------

_log_ids: contextvars.ContextVar[dict[str, str] | None] = contextvars.ContextVar(
    "jipsa_log_ids", default=None
)


@contextlib.contextmanager
def log_context(envelope: Envelope) -> Iterator[None]:
    """Every log record emitted in this block (in this task) carries the envelope's ids."""
    ids = {"run_id": envelope.correlation_id, "event_id": str(envelope.event_id)}
    if envelope.session_id:
        ids["session_id"] = envelope.session_id
    token = _log_ids.set(ids)
    try:
        yield
    finally:
        _log_ids.reset(token)


class LogIdsFilter(logging.Filter):
    """Stamps `record.jipsa_ids` (run, session, event, trace) where the record is emitted."""

    def filter(self, record: logging.LogRecord) -> bool:
        ids = dict(_log_ids.get() or {})
        span_context = trace.get_current_span().get_span_context()
        if span_context.is_valid:
            ids["trace_id"] = trace.format_trace_id(span_context.trace_id)
        record.jipsa_ids = ids
        return True


class KeyValueFormatter(logging.Formatter):
    """The existing line format with ` key=value` ids after the first line (a traceback stays below)."""

    def __init__(self, inner: logging.Formatter) -> None:
        super().__init__()
        self.inner = inner

    def format(self, record: logging.LogRecord) -> str:
        line = self.inner.format(record)
        ids = getattr(record, "jipsa_ids", None)
        if not ids:
            return line
        first, newline, rest = line.partition("\n")
        return first + "".join(f" {key}={value}" for key, value in ids.items()) + newline + rest


class JsonFormatter(logging.Formatter):
    def __init__(self, service_name: str) -> None:
        super().__init__()
        self.service_name = service_name

    def format(self, record: logging.LogRecord) -> str:
        entry = {
            "time": datetime.fromtimestamp(record.created, UTC).isoformat(),
            "level": record.levelname,
            "service": self.service_name,
            "logger": record.name,
            "message": record.getMessage(),
            **getattr(record, "jipsa_ids", {}),
        }
        if record.exc_info:
            entry["exception"] = self.formatException(record.exc_info)
        return json.dumps(entry, ensure_ascii=False)


def configure_logging(service_name: str, settings: TelemetrySettings) -> None:
    """The root logger at the configured level; its handlers (set up by basicConfig) get the ids filter
    and our formatter."""
    logging.getLogger().setLevel(settings.log_level)
    for handler in logging.getLogger().handlers:
        handler.addFilter(LogIdsFilter())
        inner = handler.formatter or logging.Formatter()
        handler.setFormatter(JsonFormatter(service_name) if settings.log_json else KeyValueFormatter(inner))
