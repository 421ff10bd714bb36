"""Events of the team services (search, analysis, document)."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from contracts.events import Event
from contracts.registry import REGISTRY
from contracts.results import StepResult
from contracts.steps import result_from_v1
from contracts.values import StepError, Team


@REGISTRY.event
class StepCompletedV1(Event):
    """First published shape: the result was a free dict. Read through `upcast_step_completed_v1`."""

    event_type = "StepCompleted"
    producer = "team"
    schema_version: Literal[1] = 1

    run_id: str
    step_id: str
    team: Team
    attempt: int = Field(default=1, ge=1)
    summary: str = Field(description="one line a person reads on the todo")
    result: dict[str, Any] = {}
    duration_ms: float = Field(ge=0)


@REGISTRY.event
class StepCompleted(Event):
    """v2: the result is a StepResult; `result.needs_input` says the run waits for the person's answers."""

    event_type = "StepCompleted"
    producer = "team"
    schema_version: Literal[2] = 2

    run_id: str
    step_id: str
    team: Team
    attempt: int = Field(default=1, ge=1)
    summary: str = Field(description="one line a person reads on the todo")
    result: StepResult = StepResult()
    duration_ms: float = Field(ge=0)


@REGISTRY.upcaster("StepCompleted", from_version=1)
def upcast_step_completed_v1(data: dict[str, Any]) -> dict[str, Any]:
    return {**data, "result": result_from_v1(data.get("result", {}))}


@REGISTRY.event
class StepFailedV1(Event):
    """First published shape: the error was free text. Read through `upcast_step_failed_v1`."""

    event_type = "StepFailed"
    producer = "team"
    schema_version: Literal[1] = 1

    run_id: str
    step_id: str
    team: Team
    attempt: int = Field(default=1, ge=1)
    error: str
    retryable: bool
    duration_ms: float = Field(ge=0)


@REGISTRY.event
class StepFailed(Event):
    """v2: the error carries a machine-readable code, so the supervisor's retry policy need not parse text."""

    event_type = "StepFailed"
    producer = "team"
    schema_version: Literal[2] = 2

    run_id: str
    step_id: str
    team: Team
    attempt: int = Field(default=1, ge=1)
    error: StepError
    retryable: bool
    duration_ms: float = Field(ge=0)


@REGISTRY.upcaster("StepFailed", from_version=1)
def upcast_step_failed_v1(data: dict[str, Any]) -> dict[str, Any]:
    code = "retryable_error" if data["retryable"] else "error"
    return {**data, "error": {"code": code, "message": data["error"]}}
