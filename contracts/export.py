"""Publish the contracts as checked-in files: a JSON Schema per event version, the envelope's, AsyncAPI,
and the WebSocket protocol's frames and messages.

    python -m contracts.export           # write contracts/schemas/, contracts/asyncapi.json
    python -m contracts.export --check   # exit 1, naming the files, when they differ from the models

A published schema is what stored events were written against, so the export
never overwrites one with a schema that breaks it (see contracts.compat): a
breaking change needs a new schema_version and an upcaster instead. Deleting a
schema file by hand is the deliberate way out, for a version never deployed.
The WebSocket protocol (contracts/schemas/websocket/) has no versions: it is published as the
gateway speaks it, and the gateway's tests hold every message it sends to it.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterator
from datetime import UTC, datetime
from enum import Enum
from pathlib import Path
from typing import Any, Literal
from uuid import UUID, uuid5

from pydantic import BaseModel, TypeAdapter

from contracts import REGISTRY, Envelope, Event, run_stream
from contracts.compat import breaking_changes
from contracts.consumers import CONSUMERS, EVERY_EVENT_CONSUMERS
from contracts.people import person_stream
from contracts.subjects import DEFAULT_NAMESPACE, subject_of
from contracts.websocket import CLIENT_FRAMES, SERVER_MESSAGES

CONTRACTS_DIR = Path(__file__).parent
SCHEMAS_DIR = CONTRACTS_DIR / "schemas"
EXAMPLES_DIR = CONTRACTS_DIR / "examples"
ASYNCAPI_PATH = CONTRACTS_DIR / "asyncapi.json"

# Fixed ids and time, so the examples in asyncapi.json are the same on every export.
EXAMPLE_IDS = UUID("6f1d7c1e-2b1a-4c57-9a55-3f0b8e0c9a10")
EXAMPLE_TIME = datetime(2025, 3, 12, 9, 30, tzinfo=UTC)


def version(model: type[Event]) -> int:
    return model.model_fields["schema_version"].default


def contract_name(model: type[Event]) -> str:
    return f"{model.event_type}.v{version(model)}"


def render(document: dict[str, Any]) -> str:
    return json.dumps(document, indent=2, sort_keys=True, ensure_ascii=False) + "\n"


def relative(path: Path) -> str:
    return str(path.relative_to(CONTRACTS_DIR.parent))


def load_examples(model: type[Event]) -> list[dict[str, Any]]:
    """The checked-in example payloads of one event version (none yet for a brand-new one)."""
    path = EXAMPLES_DIR / f"{contract_name(model)}.json"
    return json.loads(path.read_text("utf-8")) if path.exists() else []


def published_models() -> dict[Path, type[BaseModel]]:
    """Which model each schema file describes: one per registered event version, plus the envelope."""
    files: dict[Path, type[BaseModel]] = {
        SCHEMAS_DIR / f"{contract_name(m)}.json": m for m in REGISTRY.models()
    }
    return {**files, SCHEMAS_DIR / "Envelope.json": Envelope}


def websocket_dir() -> Path:
    return SCHEMAS_DIR / "websocket"


def websocket_schemas() -> dict[Path, dict[str, Any]]:
    """The socket's two directions, each one schema whose `discriminator.mapping` names every type: the
    frames as the gateway accepts them, the messages as it sends them (every field present)."""
    return {
        websocket_dir() / "ClientFrame.json": protocol_schema(
            CLIENT_FRAMES, "validation", "A frame a client sends on /ws/{session_id}"
        ),
        websocket_dir() / "ServerMessage.json": protocol_schema(
            SERVER_MESSAGES, "serialization", "A message the gateway sends on /ws/{session_id}"
        ),
    }


def protocol_schema(
    adapter: TypeAdapter[Any], mode: Literal["validation", "serialization"], title: str
) -> dict[str, Any]:
    return {"title": title, **adapter.json_schema(mode=mode)}


def exported_files() -> dict[Path, str]:
    """Every file the export owns, with the text the models give it now."""
    schemas = {path: render(model.model_json_schema()) for path, model in published_models().items()}
    protocol = {path: render(schema) for path, schema in websocket_schemas().items()}
    return {**schemas, **protocol, ASYNCAPI_PATH: render(asyncapi())}


def stale_files(files: dict[Path, str]) -> list[Path]:
    return [path for path, text in files.items() if not path.exists() or path.read_text("utf-8") != text]


def refusals(files: dict[Path, str]) -> list[str]:
    """Why the export may not write: a published schema would break, or no model reads it any more."""
    published = sorted(SCHEMAS_DIR.glob("*.json"))
    breaks = [
        f"{relative(path)}: {change}; a breaking change needs a new schema_version and an upcaster"
        for path in published
        if path in files
        for change in breaking_changes(json.loads(path.read_text("utf-8")), json.loads(files[path]))
    ]
    orphans = [
        f"{relative(path)}: published, but no registered model reads this version any more"
        for path in published
        if path not in files
    ]
    return breaks + orphans


# --- AsyncAPI: one channel per concrete subject, a send operation for its producer, a receive per consumer.


def asyncapi() -> dict[str, Any]:
    models = REGISTRY.models()
    subjects = [(model, token) for model in models for token in routing_tokens(model)]
    return {
        "asyncapi": "3.0.0",
        "info": {
            "title": "Jipsa events",
            "version": "1.0.0",
            "description": (
                "Every message is an Envelope whose `data` is the event payload; the subject carries the "
                "payload's schema version. Consumers read older versions upcast to the current one."
            ),
        },
        "defaultContentType": "application/json",
        "channels": {subject(m, token): channel(m, token) for m, token in subjects},
        "operations": dict(op for m, token in subjects for op in operations(m, token)),
        "components": {
            "schemas": {
                "Envelope": embedded_schema(Envelope, "Envelope"),
                **{contract_name(m): embedded_schema(m, contract_name(m)) for m in models},
            },
            "messages": {contract_name(m): message(m) for m in models},
        },
    }


def routing_tokens(model: type[Event]) -> list[str | None]:
    """The values of the subject's last token: one subject per team for StepStarted, else just one subject."""
    if model.routing_field is None:
        return [None]
    field_type = model.model_fields[model.routing_field].annotation
    if not (isinstance(field_type, type) and issubclass(field_type, Enum)):
        raise TypeError(
            f"{model.event_type}.{model.routing_field} must be an enum so its subjects can be listed"
        )
    return [member.value for member in field_type]


def subject(model: type[Event], token: str | None) -> str:
    data = {model.routing_field: token} if model.routing_field else {}
    return subject_of(model.event_type, version(model), data, DEFAULT_NAMESPACE)


def consumers_of(model: type[Event], token: str | None) -> tuple[str, ...]:
    key = model.event_type if token is None else f"{model.event_type}.{token}"
    return CONSUMERS.get(key, ()) + EVERY_EVENT_CONSUMERS


def channel(model: type[Event], token: str | None) -> dict[str, Any]:
    consumers = ", ".join(consumers_of(model, token))
    return {
        "address": subject(model, token),
        "description": f"Recorded by {model.producer}; read by {consumers}.",
        "messages": {contract_name(model): {"$ref": f"#/components/messages/{contract_name(model)}"}},
    }


def operations(model: type[Event], token: str | None) -> Iterator[tuple[str, dict[str, Any]]]:
    address = subject(model, token)
    roles = [(model.producer, "send"), *((consumer, "receive") for consumer in consumers_of(model, token))]
    for service, action in roles:
        yield (
            f"{service}.{action}.{address}",
            {
                "action": action,
                "channel": {"$ref": f"#/channels/{address}"},
                "messages": [{"$ref": f"#/channels/{address}/messages/{contract_name(model)}"}],
                "tags": [{"name": service}],
            },
        )


def message(model: type[Event]) -> dict[str, Any]:
    name = contract_name(model)
    return {
        "name": model.event_type,
        "title": f"{model.event_type} v{version(model)}",
        "payload": {
            "allOf": [
                {"$ref": "#/components/schemas/Envelope"},
                {
                    "properties": {
                        "event_type": {"const": model.event_type},
                        "schema_version": {"const": version(model)},
                        "data": {"$ref": f"#/components/schemas/{name}"},
                    }
                },
            ]
        },
        "examples": [
            {"name": f"{name}.{i}", "payload": example_envelope(model, payload, f"{name}.{i}")}
            for i, payload in enumerate(load_examples(model), start=1)
        ],
    }


def embedded_schema(model: type[BaseModel], component: str) -> dict[str, Any]:
    """The model's schema as it sits in the AsyncAPI document: its $refs point into its own $defs there."""
    return model.model_json_schema(ref_template=f"#/components/schemas/{component}/$defs/{{model}}")


def example_envelope(model: type[Event], payload: dict[str, Any], name: str) -> dict[str, Any]:
    """An example as it travels, with fixed ids and time so every export is the same.

    The payload is not validated here: a model change that invalidates an example is for
    the contract tests to name, not for the export to crash on.
    """
    # An event belongs to a run, and is appended to the run's stream, or else to a person's own stream.
    run_id = payload.get("run_id")
    stream = run_stream(run_id) if run_id else person_stream(payload["person_id"])
    envelope = Envelope(
        event_id=uuid5(EXAMPLE_IDS, name),
        event_type=model.event_type,
        schema_version=version(model),
        stream_id=stream,
        occurred_at=EXAMPLE_TIME,
        correlation_id=run_id or stream,
        producer=model.producer,
        data=payload,
    )
    return envelope.model_dump(mode="json")


# --- command line


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m contracts.export", description=__doc__.splitlines()[0])
    parser.add_argument(
        "--check", action="store_true", help="write nothing; exit 1 if any file is out of date"
    )
    check = parser.parse_args(argv).check
    files = exported_files()
    stale, refused = stale_files(files), refusals(files)
    for reason in refused:
        print(reason, file=sys.stderr)
    if check:
        for path in stale:
            print(
                f"{relative(path)} differs from the models; run `python -m contracts.export`", file=sys.stderr
            )
        return 1 if stale or refused else 0
    if refused:
        return 1
    for path in stale:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(files[path], "utf-8")
        print(f"wrote {relative(path)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
