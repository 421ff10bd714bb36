"""Every event has a versioned subject, is frozen, refuses unknown fields, and unknown events are refused."""

from __future__ import annotations

import typing
from collections.abc import Iterator
from typing import Any

import pytest
from pydantic import BaseModel, ValidationError

from contracts import REGISTRY, Event, UnknownEventType, new_envelope, subject_for
from contracts.export import contract_name, load_examples
from contracts.subjects import filter_for

pytestmark = pytest.mark.contract

MODELS = pytest.mark.parametrize("model", REGISTRY.models(), ids=contract_name)


def first_example(model: type[Event]) -> Event:
    return model.model_validate(load_examples(model)[0])


def nested_models(annotation: Any) -> Iterator[type[BaseModel]]:
    """The value models inside a field's type, e.g. PlanStep in `list[PlanStep] | None`."""
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        yield annotation
        for field in annotation.model_fields.values():
            yield from nested_models(field.annotation)
    for argument in typing.get_args(annotation):
        yield from nested_models(argument)


@MODELS
def test_every_event_has_a_subject_under_the_namespace(model: type[Event]) -> None:
    envelope = new_envelope(first_example(model), stream_id="run-x", correlation_id="x")
    version = envelope.schema_version
    assert subject_for(envelope, "tenant7").startswith(f"tenant7.v{version}.{model.event_type}")
    assert subject_for(envelope).startswith(f"jipsa.v{version}.{model.event_type}")


@pytest.mark.parametrize("payload", load_examples(REGISTRY.model("StepStarted", 1)), ids=lambda p: p["team"])
def test_step_started_is_routed_by_team(payload: dict[str, Any]) -> None:
    event = REGISTRY.model("StepStarted", 1).model_validate(payload)
    envelope = new_envelope(event, stream_id="run-x", correlation_id="x")
    assert subject_for(envelope) == f"jipsa.v1.StepStarted.{payload['team']}"
    assert filter_for("StepStarted", routing=payload["team"]) == f"jipsa.*.StepStarted.{payload['team']}"


@MODELS
def test_an_event_is_frozen(model: type[Event]) -> None:
    event = first_example(model)
    with pytest.raises(ValidationError, match="frozen"):
        event.run_id = "another-run"  # type: ignore[misc]


@MODELS
def test_an_event_refuses_unknown_fields(model: type[Event]) -> None:
    with pytest.raises(ValidationError, match="Extra inputs are not permitted"):
        model.model_validate({**load_examples(model)[0], "unexpected": "값"})


@MODELS
def test_every_value_inside_an_event_is_frozen_and_strict(model: type[Event]) -> None:
    for value_model in nested_models(model):
        assert value_model.model_config.get("frozen"), f"{value_model.__name__} is not frozen"
        assert value_model.model_config.get("extra") == "forbid", (
            f"{value_model.__name__} accepts unknown fields"
        )


@pytest.mark.parametrize(
    ("event_type", "version"), [("NoSuchEvent", 1), ("StepFailed", 3), ("QueryReceived", 0)]
)
def test_an_unknown_type_or_version_is_refused(event_type: str, version: int) -> None:
    with pytest.raises(UnknownEventType):
        REGISTRY.parse(event_type, version, {"run_id": "x"})
