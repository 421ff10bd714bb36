"""Every event version has realistic example payloads that validate and travel in an envelope."""

from __future__ import annotations

import json
from typing import Any

import pytest

from contracts import REGISTRY, Envelope, Event, new_envelope
from contracts.export import contract_name, load_examples

pytestmark = pytest.mark.contract

EXAMPLES = [
    pytest.param(model, payload, id=f"{contract_name(model)}#{i}")
    for model in REGISTRY.models()
    for i, payload in enumerate(load_examples(model), start=1)
]


@pytest.mark.parametrize("model", REGISTRY.models(), ids=contract_name)
def test_every_event_version_has_examples(model: type[Event]) -> None:
    assert load_examples(model), f"add contracts/examples/{contract_name(model)}.json"


@pytest.mark.parametrize(("model", "payload"), EXAMPLES)
def test_an_example_validates_against_its_model(model: type[Event], payload: dict[str, Any]) -> None:
    """Read as JSON, as a consumer reads it. Not compared field by field: an example written before an
    optional field was added stays a valid stored payload, like the events it stands for."""
    model.model_validate_json(json.dumps(payload))


@pytest.mark.parametrize(("model", "payload"), EXAMPLES)
def test_an_example_round_trips_through_the_envelope(model: type[Event], payload: dict[str, Any]) -> None:
    event = model.model_validate(payload)
    stream = f"run-{payload['run_id']}" if "run_id" in payload else f"person-{payload['person_id']}"
    envelope = new_envelope(event, stream_id=stream, correlation_id=payload.get("run_id", stream))

    received = Envelope.model_validate_json(envelope.model_dump_json())
    read = REGISTRY.parse(received.event_type, received.schema_version, received.data)

    assert received == envelope
    current = REGISTRY.model(model.event_type, REGISTRY.latest_version(model.event_type))
    assert type(read) is current  # an older version is read upcast, so it needs an upcaster
    if model is current:
        assert read == event
