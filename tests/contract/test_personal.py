"""The fields contracts/personal.py names as a person's own: each names fields its event has, and every
example of every event, with them erased, is still a valid event (the folds read erased events)."""

from __future__ import annotations

from typing import Any

import pytest
from cryptography.hazmat.primitives.ciphers.aead import AESGCM

from contracts import REGISTRY, Event, new_envelope
from contracts.export import contract_name, load_examples
from contracts.personal import ERASED, PERSONAL_FIELDS
from services.platform.sealing import SEALED, Keyring, erase, open_data, seal

pytestmark = pytest.mark.contract

EXAMPLES = [
    pytest.param(model, payload, id=f"{contract_name(model)}#{i}")
    for model in REGISTRY.models()
    if model.event_type in PERSONAL_FIELDS
    for i, payload in enumerate(load_examples(model), start=1)
]


def test_every_personal_path_starts_at_a_field_of_its_event() -> None:
    for event_type, paths in PERSONAL_FIELDS.items():
        fields = {name for m in REGISTRY.models() if m.event_type == event_type for name in m.model_fields}
        assert fields, f"no event {event_type}"
        for path in paths:
            assert path.split(".")[0] in fields, f"{event_type}: {path}"


@pytest.mark.parametrize(("model", "payload"), EXAMPLES)
def test_an_erased_example_is_a_valid_event(model: type[Event], payload: dict[str, Any]) -> None:
    data = model.model_validate(payload).model_dump(mode="json")
    erased, taken = erase(data, [p.split(".") for p in PERSONAL_FIELDS[model.event_type]])
    assert taken or model.event_type not in {"QueryReceived", "PlanReady"}
    model.model_validate(erased)
    assert data == model.model_validate(payload).model_dump(mode="json"), "erasing edited its input"


@pytest.mark.parametrize(("model", "payload"), EXAMPLES)
def test_a_sealed_example_opens_as_written_and_as_erased_once_its_key_is_gone(
    model: type[Event], payload: dict[str, Any]
) -> None:
    event = model.model_validate(payload)
    run_id = payload.get("run_id", "r1")
    envelope = new_envelope(event, stream_id=f"run-{run_id}", correlation_id=run_id, person_id="p1")
    keyring = Keyring()
    keyring.hold(run_id, "p1", AESGCM.generate_key(256))
    stored = seal(envelope, keyring.cipher(run_id))
    assert open_data(stored.data, run_id, keyring) == envelope.data
    keyring.forget_person("p1")
    erased = open_data(stored.data, run_id, keyring)
    assert SEALED not in erased
    model.model_validate(erased)
    if model.event_type == "QueryReceived":
        assert erased["query"] == ERASED
