"""Events the gateway records on a person's behalf."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from contracts.events import Event
from contracts.registry import REGISTRY
from contracts.values import Frozen, PlanStep

MAX_QUERY_CHARS = 2000


class QueryOptions(Frozen):
    require_approval: bool = False


@REGISTRY.event
class QueryReceived(Event):
    """A person asked a question; this starts a run."""

    event_type = "QueryReceived"
    producer = "gateway"
    schema_version: Literal[1] = 1

    run_id: str
    query: str = Field(min_length=1, max_length=MAX_QUERY_CHARS)
    options: QueryOptions = QueryOptions()


@REGISTRY.event
class PlanApproved(Event):
    """The person approved the plan, possibly with edited steps."""

    event_type = "PlanApproved"
    producer = "gateway"
    schema_version: Literal[1] = 1

    run_id: str
    modified_steps: list[PlanStep] | None = None


@REGISTRY.event
class PlanRejected(Event):
    event_type = "PlanRejected"
    producer = "gateway"
    schema_version: Literal[1] = 1

    run_id: str
    reason: str | None = None


@REGISTRY.event
class StepSkipRequested(Event):
    """The person asked to skip a todo; the supervisor decides whether it still can be (StepSkipped)."""

    event_type = "StepSkipRequested"
    producer = "gateway"
    schema_version: Literal[1] = 1

    run_id: str
    step_id: str = Field(min_length=1, max_length=64)


@REGISTRY.event
class RunCancelRequested(Event):
    """The person (or an operator) asked to stop a run; the supervisor ends it (RunCancelled)."""

    event_type = "RunCancelRequested"
    producer = "gateway"
    schema_version: Literal[1] = 1

    run_id: str
    reason: str | None = Field(default=None, max_length=500)
    requested_by: Literal["person", "operator"] = "person"


@REGISTRY.event
class InputProvided(Event):
    """The person answered a step's questions (field -> what they wrote); the supervisor re-runs it.
    `message` is what they typed when they answered in a sentence rather than the form (the answers were
    read from it)."""

    event_type = "InputProvided"
    producer = "gateway"
    schema_version: Literal[1] = 1

    run_id: str
    step_id: str = Field(min_length=1, max_length=64)
    answers: dict[str, str] = Field(min_length=1, max_length=50)
    message: str | None = Field(default=None, max_length=MAX_QUERY_CHARS)
