"""StepFailed v1 (free-text error) is read as v2 (coded error) without touching the stored v1 payload."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from contracts import REGISTRY
from contracts.export import load_examples
from contracts.teams import StepFailed, StepFailedV1
from contracts.values import StepError

pytestmark = pytest.mark.contract


@pytest.mark.parametrize("stored", load_examples(StepFailedV1), ids=lambda payload: payload["step_id"])
def test_step_failed_v1_is_read_as_v2(stored: dict[str, Any]) -> None:
    before = copy.deepcopy(stored)

    event = REGISTRY.parse("StepFailed", 1, stored)

    assert isinstance(event, StepFailed)
    assert event.schema_version == 2
    expected_code = "retryable_error" if stored["retryable"] else "error"
    assert event.error == StepError(code=expected_code, message=stored["error"])
    unchanged = {k: v for k, v in stored.items() if k not in ("error", "schema_version")}
    assert event.model_dump(mode="json", exclude={"error", "schema_version"}) == unchanged
    assert stored == before, "upcasting must not rewrite the stored payload"


@pytest.mark.parametrize("stored", load_examples(StepFailed), ids=lambda payload: payload["step_id"])
def test_step_failed_v2_is_read_as_it_is(stored: dict[str, Any]) -> None:
    assert REGISTRY.parse("StepFailed", 2, stored) == StepFailed.model_validate(stored)
