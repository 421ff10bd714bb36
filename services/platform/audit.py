"""A run's timeline, every event with what caused it and what it decided: what `jipsa audit RUN_ID`
prints and the operator's page shows. It lives in the platform because both the projector's CLI and
the gateway read it, and services never import each other.

The cause of an event is found by its causation id among the run's own events;
a cause outside the run (or missing from the log) is said so, not guessed.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any
from uuid import UUID

from rich.console import Console
from rich.table import Table
from rich.text import Text

from contracts import Event, UnknownEventType
from contracts.gateway import PlanApproved, PlanRejected, QueryReceived
from contracts.planner import PlanReady
from contracts.supervisor import (
    PlanApprovalRequested,
    ResponseReady,
    RunCancelled,
    RunFailed,
    StepRetried,
    StepSkipped,
    StepStarted,
)
from contracts.teams import StepCompleted, StepFailed
from contracts.telemetry import LlmCallRecorded, ToolDecisionRecorded
from services.platform.eventstore import Recorded

OUTSIDE_RUN = "outside this run"


@dataclass(frozen=True)
class TimelineRow:
    position: int
    occurred_at: datetime
    event: str  # type and stored version, e.g. "StepFailed v1"
    producer: str
    stream_version: int
    cause: str | None  # e.g. "StepStarted @12"; None for an event nothing caused (a person's query)
    details: str


def timeline(records: list[Recorded]) -> list[TimelineRow]:
    """The run's events in log order, each with its cause and what it says."""
    by_id = {r.envelope.event_id: r for r in records}
    return [
        TimelineRow(
            position=r.position,
            occurred_at=r.envelope.occurred_at,
            event=f"{r.envelope.event_type} v{r.envelope.schema_version}",
            producer=r.envelope.producer,
            stream_version=r.stream_version,
            cause=_cause(r, by_id),
            details=_details(r),
        )
        for r in records
    ]


def print_timeline(run_id: str, rows: list[TimelineRow], console: Console) -> None:
    table = Table(title=Text(f"run {run_id}: {len(rows)} events"), expand=True)
    for column in ("pos", "occurred at (UTC)", "event", "producer", "ver", "caused by"):
        table.add_column(column, no_wrap=True)
    table.add_column("details", overflow="fold", ratio=1)
    for row in rows:
        cells = (
            str(row.position),
            row.occurred_at.astimezone(UTC).strftime("%Y-%m-%d %H:%M:%S.%f")[:-3],
            row.event,
            row.producer,
            str(row.stream_version),
            row.cause or "-",
            row.details,
        )
        # Text, not str: a query or a tool list in [brackets] is content, not rich markup.
        table.add_row(*map(Text, cells))
    console.print(table)


def _cause(record: Recorded, by_id: dict[UUID, Recorded]) -> str | None:
    causation_id = record.envelope.causation_id
    if causation_id is None:
        return None
    cause = by_id.get(causation_id)
    return f"{cause.envelope.event_type} @{cause.position}" if cause else OUTSIDE_RUN


def _details(record: Recorded) -> str:
    describe = _DESCRIBE.get(record.envelope.event_type)
    if describe is None:
        return ""
    try:
        return describe(record.event())
    except UnknownEventType as unreadable:
        # An audit shows what it cannot read instead of refusing the whole run.
        return f"(unreadable by this build: {unreadable})"


def _llm_call(e: LlmCallRecorded) -> str:
    counted = e.prompt_tokens is not None or e.completion_tokens is not None
    tokens = f"{e.prompt_tokens or 0}+{e.completion_tokens or 0} tokens" if counted else "no tokens"
    parts = [
        e.call_point,
        f"prompt {e.prompt_name}@{e.prompt_hash[:12]}",
        e.model or "no model",
        f"{e.latency_ms:.0f} ms",
        tokens,
        e.outcome,
        "fallback used" if e.fallback_used else "no fallback",
    ]
    return " · ".join(parts) + (f" · {e.error}" if e.error else "")


def _tool_decision(e: ToolDecisionRecorded) -> str:
    step = f"{e.step_id}: " if e.step_id else ""
    chosen = f"available [{', '.join(e.available_tools)}] → selected [{', '.join(e.selected_tools)}]"
    outcome = f" · {e.outcome}" if e.outcome else ""
    return f"{step}{chosen} · confidence {e.confidence:.2f} · {e.reasoning}{outcome}"


def _response(e: ResponseReady) -> str:
    answer = e.answer if len(e.answer) <= 80 else e.answer[:79] + "…"
    counts = f"{len(e.listings)} listings, {len(e.citations)} citations, {len(e.documents)} documents"
    failed = f" · failed: {', '.join(e.failed_steps)}" if e.failed_steps else ""
    return f"{e.response_type}: {answer} · {counts}{failed}"


def _plan(e: PlanReady) -> str:
    return f"{e.intent.type} ({e.intent.confidence:.2f}) · {len(e.steps)} steps, {e.strategy} · {e.mode} mode"


def _step_failed(e: StepFailed) -> str:
    retry = "retryable" if e.retryable else "not retryable"
    return f"{e.step_id} attempt {e.attempt}: {e.error.code}: {e.error.message} ({retry})"


def _approved(e: PlanApproved) -> str:
    return "as planned" if e.modified_steps is None else f"edited to {len(e.modified_steps)} steps"


_DESCRIBERS: dict[type[Event], Callable[[Any], str]] = {
    QueryReceived: lambda e: e.query + (" · approval asked" if e.options.require_approval else ""),
    PlanReady: _plan,
    PlanApprovalRequested: lambda e: f"{len(e.steps)} steps await approval",
    PlanApproved: _approved,
    PlanRejected: lambda e: e.reason or "",
    StepStarted: lambda e: f"{e.step_id} · team {e.team} · attempt {e.attempt}",
    StepCompleted: lambda e: f"{e.step_id}: {e.summary} ({e.duration_ms:.0f} ms)",
    StepFailed: _step_failed,
    StepRetried: lambda e: f"{e.step_id} → attempt {e.next_attempt} in {e.delay_s:g} s: {e.reason}",
    StepSkipped: lambda e: f"{e.step_id}: {e.reason}",
    LlmCallRecorded: _llm_call,
    ToolDecisionRecorded: _tool_decision,
    ResponseReady: _response,
    RunFailed: lambda e: f"{e.code}: {e.reason}",
    RunCancelled: lambda e: f"{e.reason} (by {e.requested_by})",
}
_DESCRIBE = {model.event_type: describe for model, describe in _DESCRIBERS.items()}
