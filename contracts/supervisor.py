"""Events of the supervisor: the decisions of a run."""

from __future__ import annotations

from typing import Any, Literal
from uuid import UUID

from pydantic import Field

from contracts.events import Event
from contracts.registry import REGISTRY
from contracts.results import Question, StepResult
from contracts.steps import StepInputs, inputs_from_v1, result_from_v1
from contracts.values import Citation, DocumentRef, PlanStep, Team


@REGISTRY.event
class PlanApprovalRequested(Event):
    event_type = "PlanApprovalRequested"
    producer = "supervisor"
    schema_version: Literal[1] = 1

    run_id: str
    steps: list[PlanStep]


@REGISTRY.event
class StepStartedV1(Event):
    """First published shape: inputs and dependency results were free dicts. Read through
    `upcast_step_started_v1`."""

    event_type = "StepStarted"
    producer = "supervisor"
    routing_field = "team"
    schema_version: Literal[1] = 1

    run_id: str
    step_id: str
    team: Team
    task: str
    inputs: dict[str, Any] = {}
    dependency_results: dict[str, dict[str, Any]] = {}
    attempt: int = Field(default=1, ge=1)
    timeout_s: float = Field(gt=0)


@REGISTRY.event
class StepStartedV2(Event):
    """Second published shape: the results of the steps it depends on were copied in whole, each a
    StepResult (kilobytes a dispatch, which every reader of the log parsed again). Read through
    `upcast_step_started_v2`, the copies kept."""

    event_type = "StepStarted"
    producer = "supervisor"
    routing_field = "team"
    schema_version: Literal[2] = 2

    run_id: str
    step_id: str
    team: Team
    task: str
    inputs: StepInputs = StepInputs()
    dependency_results: dict[str, StepResult] = {}
    attempt: int = Field(default=1, ge=1)
    timeout_s: float = Field(gt=0)


@REGISTRY.upcaster("StepStarted", from_version=1)
def upcast_step_started_v1(data: dict[str, Any]) -> dict[str, Any]:
    results = data.get("dependency_results", {})
    return {
        **data,
        "inputs": inputs_from_v1(data.get("inputs", {})),
        "dependency_results": {step_id: result_from_v1(r) for step_id, r in results.items()},
    }


@REGISTRY.event
class StepStarted(Event):
    """v3: a step was dispatched to its team with typed inputs (the question, its focus and entities),
    naming the results of the steps it depends on instead of copying them: `result_events` maps each
    such step to the event id of the StepCompleted that holds its result, which the team reads from
    the store before its work (services/platform/team.py: `dependency_results`).

    `copied_results` is what a StepStarted recorded as v2 carried (upcast on read, since an upcaster
    cannot read the store): a team takes the copies where there are any. The supervisor never fills it."""

    event_type = "StepStarted"
    producer = "supervisor"
    routing_field = "team"
    schema_version: Literal[3] = 3

    run_id: str
    step_id: str
    team: Team
    task: str
    inputs: StepInputs = StepInputs()
    result_events: dict[str, UUID] = Field(
        default={}, description="step id -> event id of the StepCompleted holding that step's result"
    )
    copied_results: dict[str, StepResult] = Field(
        default={}, description="results copied in whole: only in events recorded as v2"
    )
    attempt: int = Field(default=1, ge=1)
    timeout_s: float = Field(gt=0)


@REGISTRY.upcaster("StepStarted", from_version=2)
def upcast_step_started_v2(data: dict[str, Any]) -> dict[str, Any]:
    """v2's copies stay readable as they were stored; there is no StepCompleted id to name in their place."""
    copies = data.get("dependency_results", {})
    return {**{k: v for k, v in data.items() if k != "dependency_results"}, "copied_results": copies}


@REGISTRY.event
class StepSkipped(Event):
    event_type = "StepSkipped"
    producer = "supervisor"
    schema_version: Literal[1] = 1

    run_id: str
    step_id: str
    reason: str


@REGISTRY.event
class StepTimedOut(Event):
    """The supervisor gave up waiting for an attempt: it counts as a retryable failure of that attempt."""

    event_type = "StepTimedOut"
    producer = "supervisor"
    schema_version: Literal[1] = 1

    run_id: str
    step_id: str
    attempt: int = Field(ge=1)
    timeout_s: float = Field(gt=0)


@REGISTRY.event
class InputRequested(Event):
    """A step needs something only the person can give (a contract's missing fields): the run waits,
    holding no worker, until InputProvided answers it, then the step runs again with the answers."""

    event_type = "InputRequested"
    producer = "supervisor"
    schema_version: Literal[1] = 1

    run_id: str
    step_id: str
    questions: list[Question] = Field(min_length=1)
    message: str


@REGISTRY.event
class StepRetried(Event):
    event_type = "StepRetried"
    producer = "supervisor"
    schema_version: Literal[1] = 1

    run_id: str
    step_id: str
    next_attempt: int = Field(ge=2)
    delay_s: float = Field(ge=0)
    reason: str


@REGISTRY.event
class ResponseReady(Event):
    """The run's answer, built only from what its steps produced."""

    event_type = "ResponseReady"
    producer = "supervisor"
    schema_version: Literal[1] = 1

    run_id: str
    response_type: Literal["answer", "guidance", "error"]
    answer: str
    listings: list[dict[str, Any]] = []
    citations: list[Citation] = []
    insights: list[str] = []
    documents: list[DocumentRef] = []
    failed_steps: list[str] = []
    metadata: dict[str, Any] = {}


@REGISTRY.event
class RunFailed(Event):
    """A run that cannot go on has ended. `code` names the cause for operators (steps_failed,
    too_many_input_rounds, planning_failed, decision_failed, stalled, expired: services/supervisor/
    ending.py); `reason` is the Korean sentence the person is shown, saying what to do."""

    event_type = "RunFailed"
    producer = "supervisor"
    schema_version: Literal[1] = 1

    run_id: str
    code: str
    reason: str


@REGISTRY.event
class RunCancelled(Event):
    event_type = "RunCancelled"
    producer = "supervisor"
    schema_version: Literal[1] = 1

    run_id: str
    reason: str
    requested_by: Literal["person", "operator", "system"] = "person"
