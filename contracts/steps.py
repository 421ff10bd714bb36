"""What a dispatched step carries to its team (`StepStarted.inputs`), and how the dicts of the first
wire shape (StepStarted v1, StepCompleted v1, and `PlanStep.inputs` in the plan events) read as the
typed models.

The planner writes a plan step's inputs as `StepInputs` dumped to a dict (`PlanStep.inputs` stays a
dict: PlanReady, PlanApprovalRequested and PlanApproved publish it so, and a person's modified plan
comes back through the gateway in that shape); the supervisor reads them back with `plan_inputs` when it
dispatches the step, and from there on they travel typed.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import date
from typing import Any

from pydantic import BaseModel, Field, ValidationError

from contracts.entities import DealType, QueryEntities
from contracts.results import StepResult
from contracts.values import Frozen, StepFocus


class SearchOptions(Frozen):
    """What narrows a search step beyond the question's entities. Nothing requires them: the planner
    sets none today, the search team reads them when a step has them, and fills `keywords` itself from
    the model for a step without a focus."""

    keywords: list[str] = Field(
        default=[], description="search terms a legal search leads with when its task names no topic"
    )
    laws: list[str] = Field(default=[], description="statutes to search, by title or short name")
    doc_types: list[str] = Field(default=[], description="법률, 시행령, 시행규칙 ...")
    tenant_protection_only: bool = Field(default=False, description="only articles that protect a tenant")
    walk_max_min: int | None = Field(default=None, description="longest walk to a station, minutes")
    completion_year_min: int | None = Field(default=None, description="earliest completion (준공) year")
    completion_year_max: int | None = Field(default=None, description="latest completion year")
    households_min: int | None = Field(default=None, description="fewest households (세대수) in a complex")
    households_max: int | None = Field(default=None, description="most households in a complex")
    limit: int | None = Field(default=None, description="listings per page (the team caps it)")
    offset: int | None = Field(default=None, description="listings skipped, for the next page")
    window_months: int | None = Field(
        default=None, description="months of contract prices market figures read"
    )


class StepInputs(Frozen):
    """The question a step works on and what the planner and the supervisor added for it."""

    query: str = Field(default="", description="the question as the person wrote it")
    focus: list[StepFocus] = Field(default=[], description="what the step is for: its tools start from it")
    entities: QueryEntities = Field(default=QueryEntities(), description="what the question names")
    previous_query: str | None = Field(
        default=None, description="the question a follow-up continues ('그럼 서초구는?' after it)"
    )
    also_deal_types: list[DealType] = Field(
        default=[],
        description="deal types a market search fetches besides the one asked: a jeonse-risk analysis "
        "needs 매매 prices for the 전세가율",
    )
    answers: dict[str, str] = Field(
        default={}, description="the person's answers to the step's questions, field -> text as written"
    )
    replies: list[str] = Field(
        default=[],
        description="what the person typed when answering the step's questions in a sentence, oldest first: "
        "read after the query, so a correction made while answering ('보증금은 2억이에요') wins",
    )
    remembered: list[str] = Field(
        default=[],
        description="the entities fields the person stated in an earlier turn of the session, not in this "
        "one ('월세 40 내요' then '50으로 올린대요'): the answer says they come from earlier",
    )
    recalled: list[str] = Field(
        default=[],
        description="those of `remembered` the person stated in an earlier conversation (another session), "
        "which Jipsa remembers of them: the answer says '지난번에 말씀하신'",
    )
    said_on: date | None = Field(
        default=None,
        description="the day in Korea the person asked (QueryReceived's time): dates said relative to it "
        "('내일', '다음 달 말') are read against it, so a replay reads the same dates",
    )
    search: SearchOptions = SearchOptions()


def plan_inputs(inputs: Mapping[str, Any]) -> StepInputs:
    """A plan step's inputs (`PlanStep.inputs`) as the typed model, read like a v1 StepStarted's."""
    return StepInputs.model_validate(inputs_from_v1(inputs))


def inputs_for_plan(inputs: StepInputs) -> dict[str, Any]:
    """The typed inputs as a plan step carries them: what was set, nothing left at its default."""
    return inputs.model_dump(mode="json", exclude_defaults=True)


def inputs_from_v1(inputs: Mapping[str, Any]) -> dict[str, Any]:
    """A v1 inputs dict as StepInputs: its keys that read as StepInputs fields, and those that read as
    SearchOptions (v1 kept a search's options beside the query) under `search`. Any other key is left
    out: no reader of this build looks at it, and the stored v1 payload still holds it."""
    fields, rest = split_fields(StepInputs, inputs)
    options, _ = split_fields(SearchOptions, rest)
    return {**fields, "search": {**fields.get("search", {}), **options}} if options else fields


def result_from_v1(result: Mapping[str, Any]) -> dict[str, Any]:
    """A v1 result dict as StepResult: what teams wrote (a StepResult dumped) reads unchanged; any key that
    is not a StepResult field, or does not read as one, is kept under `data`, which is open by design."""
    fields, rest = split_fields(StepResult, result)
    if not rest:
        return fields
    return {**fields, "data": {**rest, **fields.get("data", {})}}


def split_fields(model: type[BaseModel], data: Mapping[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """`data` split into the entries that read as `model`'s fields, each alone, and the rest. Data made
    of fields only is first read whole, once: these models validate no field against another, so the
    whole reads exactly when each entry does (per entry, it was a model validation each)."""
    if data.keys() <= model.model_fields.keys() and _reads_all(model, data):
        return dict(data), {}
    fields: dict[str, Any] = {}
    rest: dict[str, Any] = {}
    for key, value in data.items():
        (fields if key in model.model_fields and _reads(model, key, value) else rest)[key] = value
    return fields, rest


def _reads(model: type[BaseModel], key: str, value: Any) -> bool:
    return _reads_all(model, {key: value})


def _reads_all(model: type[BaseModel], data: Mapping[str, Any]) -> bool:
    try:
        model.model_validate(data)
    except ValidationError:
        return False
    return True
