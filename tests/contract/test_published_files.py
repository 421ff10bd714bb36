"""The checked-in schemas and AsyncAPI are what the models produce, and never break what was published."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from contracts import REGISTRY, export, new_envelope, subject_for
from contracts.compat import breaking_changes
from contracts.export import (
    SCHEMAS_DIR,
    exported_files,
    load_examples,
    published_models,
    relative,
    stale_files,
)

pytestmark = pytest.mark.contract


def test_checked_in_files_are_what_the_models_export() -> None:
    stale = [relative(path) for path in stale_files(exported_files())]
    assert stale == [], (
        f"{stale} differ from the models: run `python -m contracts.export` and check in the result"
    )


@pytest.mark.parametrize("path", sorted(SCHEMAS_DIR.glob("*.json")), ids=lambda path: path.name)
def test_a_published_schema_still_reads_its_version(path: Path) -> None:
    model = published_models().get(path)
    assert model is not None, (
        f"{path.name} is published but no model reads it: stored events would be unreadable"
    )
    changes = breaking_changes(json.loads(path.read_text("utf-8")), model.model_json_schema())
    assert changes == [], (
        f"{path.name} changed incompatibly; publish a new schema_version with an upcaster instead"
    )


def test_every_subject_is_a_channel_with_an_example() -> None:
    """The AsyncAPI channels are exactly the subjects the examples go out on (StepStarted: one per team)."""
    example_subjects = {
        subject_for(new_envelope(model.model_validate(payload), stream_id="run-x", correlation_id="x"))
        for model in REGISTRY.models()
        for payload in load_examples(model)
    }
    channels = json.loads(export.ASYNCAPI_PATH.read_text("utf-8"))["channels"]
    assert example_subjects == {channel["address"] for channel in channels.values()}


def services_on(address: str, action: str) -> set[str]:
    operations = json.loads(export.ASYNCAPI_PATH.read_text("utf-8"))["operations"]
    return {
        op["tags"][0]["name"]
        for op in operations.values()
        if op["channel"]["$ref"] == f"#/channels/{address}" and op["action"] == action
    }


@pytest.mark.parametrize(
    ("address", "producer", "consumers"),
    [
        ("jipsa.v1.QueryReceived", "gateway", {"planner"}),
        ("jipsa.v1.PlanReady", "planner", {"supervisor"}),
        ("jipsa.v2.StepFailed", "team", {"supervisor"}),
        ("jipsa.v1.StepFailed", "team", {"supervisor"}),
        ("jipsa.v1.StepStarted.search", "supervisor", {"search"}),
        ("jipsa.v1.StepStarted.analysis", "supervisor", {"analysis"}),
        ("jipsa.v1.StepStarted.document", "supervisor", {"document"}),
        ("jipsa.v1.LlmCallRecorded", "llm", set()),
    ],
)
def test_asyncapi_names_producer_and_consumers(address: str, producer: str, consumers: set[str]) -> None:
    assert services_on(address, "send") == {producer}
    assert services_on(address, "receive") == consumers | {"projector", "publisher"}


def test_every_consumer_entry_names_a_registered_subject() -> None:
    tails = {
        address.split(".", 2)[2]
        for address in json.loads(export.ASYNCAPI_PATH.read_text("utf-8"))["channels"]
    }
    assert set(export.CONSUMERS) <= tails


@pytest.fixture
def contracts_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Point the export at an empty contracts folder, so it can be run and tampered with freely."""
    folder = tmp_path / "contracts"
    monkeypatch.setattr(export, "CONTRACTS_DIR", folder)
    monkeypatch.setattr(export, "SCHEMAS_DIR", folder / "schemas")
    monkeypatch.setattr(export, "ASYNCAPI_PATH", folder / "asyncapi.json")
    folder.mkdir()
    assert export.main([]) == 0
    return folder


def test_check_passes_after_an_export(contracts_dir: Path) -> None:
    assert export.main(["--check"]) == 0


def test_check_names_a_file_that_differs(contracts_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (contracts_dir / "asyncapi.json").write_text("{}\n", "utf-8")
    assert export.main(["--check"]) == 1
    assert (
        "contracts/asyncapi.json differs from the models; run `python -m contracts.export`"
        in capsys.readouterr().err
    )


def test_export_refuses_to_overwrite_a_published_schema_incompatibly(
    contracts_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    published = contracts_dir / "schemas" / "QueryReceived.v1.json"
    schema = json.loads(published.read_text("utf-8"))
    schema["properties"]["channel"] = {
        "type": "string"
    }  # as if v1 had been published with a field since removed
    published.write_text(json.dumps(schema), "utf-8")

    assert export.main([]) == 1
    assert json.loads(published.read_text("utf-8")) == schema
    assert (
        "contracts/schemas/QueryReceived.v1.json: QueryReceived.channel: property removed"
        in capsys.readouterr().err
    )


def test_export_refuses_when_a_published_version_lost_its_model(
    contracts_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (contracts_dir / "schemas" / "QueryReceived.v0.json").write_text("{}\n", "utf-8")
    assert export.main(["--check"]) == 1
    assert (
        "QueryReceived.v0.json: published, but no registered model reads this version"
        in capsys.readouterr().err
    )
