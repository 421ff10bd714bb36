"""The published WebSocket protocol (contracts/schemas/websocket/) against the page that speaks it: the
page handles exactly the message types the gateway publishes, and sends only published frames."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from pydantic import ValidationError

from contracts.export import websocket_dir
from contracts.websocket import OffProtocol, PongMessage, read_message

pytestmark = pytest.mark.contract

PAGE_JS = Path(__file__).parents[2] / "services" / "gateway" / "web" / "static" / "js"


def published_types(schema: str) -> set[str]:
    document = json.loads((websocket_dir() / schema).read_text("utf-8"))
    return set(document["discriminator"]["mapping"])


def page_handlers() -> set[str]:
    """The keys of the page's HANDLERS table (conversation.js): the message types it acts on."""
    source = (PAGE_JS / "conversation.js").read_text("utf-8")
    table = re.search(r"^const HANDLERS = \{\n(.*?)^\};", source, re.M | re.S)
    assert table is not None, "conversation.js no longer has its HANDLERS table"
    return set(re.findall(r"^  (\w+)(?::|\()", table.group(1), re.M))


def page_frames() -> set[str]:
    """The `type` of every frame the page's scripts send."""
    return {
        kind
        for script in PAGE_JS.glob("*.js")
        for kind in re.findall(r"send\(\{ type: \"(\w+)\"", script.read_text("utf-8"))
    }


def test_the_page_handles_exactly_the_published_messages() -> None:
    assert page_handlers() == published_types("ServerMessage.json")


def test_the_page_sends_only_published_frames() -> None:
    sent = page_frames()
    assert sent == {"query", "interrupt_response", "input_response", "todo_skip"}  # what the page offers
    assert sent <= published_types("ClientFrame.json")


PONG = {"type": "pong", "run_id": None, "position": None}


@pytest.mark.parametrize(
    "drifted",
    [
        {**PONG, "sent_at": "12:00"},  # a key the schema does not name
        {"type": "pong", "run_id": None},  # a key the schema requires, missing
        {**PONG, "type": "pong_v2"},  # a type nobody published
        {"type": "connected", "run_id": None, "position": "7", "session_id": "s", "head": 7},  # "7" no number
    ],
)
def test_a_message_that_drifted_from_the_schema_is_refused(drifted: dict[str, object]) -> None:
    """What the gateway's tests and `jipsa ask` hold every received message to."""
    assert read_message(json.dumps(PONG)) == PongMessage()
    with pytest.raises((ValidationError, OffProtocol)):
        read_message(json.dumps(drifted))
