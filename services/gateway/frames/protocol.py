"""What a client may send over the WebSocket (the frames of contracts/websocket.py), parsed.

Parsing never raises anything but `FrameError`, whose `code` and `message` go back to the client
as an `error` message; the socket stays open, so a client can fix its frame and go on.
"""

from __future__ import annotations

import json
from typing import Any

from pydantic import ValidationError

from contracts.websocket import (
    CLIENT_FRAMES,
    FRAME_TYPES,
    CancelFrame,
    ClientFrame,
    InputResponseFrame,
    InterruptResponseFrame,
    PingFrame,
    QueryFrame,
    ResumeFrame,
    TodoSkipFrame,
    describe,
)
from services.platform.storable import is_storable

# The frames themselves are the published protocol (contracts/websocket.py); the gateway names them here.
__all__ = [
    "FRAME_TYPES",
    "CancelFrame",
    "ClientFrame",
    "FrameError",
    "InputResponseFrame",
    "InterruptResponseFrame",
    "PingFrame",
    "QueryFrame",
    "ResumeFrame",
    "TodoSkipFrame",
    "describe",
    "parse_frame",
    "quoted",
]


class FrameError(ValueError):
    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code, self.message = code, message


def parse_frame(raw: str | bytes, max_bytes: int) -> ClientFrame:
    """One client frame, validated; FrameError says what is wrong with it."""
    size = len(raw.encode() if isinstance(raw, str) else raw)
    if size > max_bytes:
        raise FrameError("frame_too_large", f"a frame may be at most {max_bytes} bytes; this one is {size}")
    try:
        document = json.loads(raw)
        unstorable = _unstorable(document)
    # ValueError covers JSONDecodeError, UnicodeDecodeError, and an integer longer than Python's
    # int_max_str_digits, which json.loads refuses with a plain ValueError.
    except ValueError as bad:
        raise FrameError("invalid_json", f"not JSON: {bad}") from None
    except RecursionError:
        raise FrameError("invalid_json", "nested too deeply") from None
    if unstorable:  # Postgres text and jsonb cannot hold them; refused here rather than by the store
        raise FrameError("invalid_frame", "strings may not contain U+0000 or unpaired surrogates")
    if not isinstance(document, dict):
        raise FrameError("not_an_object", "a frame is a JSON object with a `type`")
    if document.get("type") not in FRAME_TYPES:
        raise FrameError("unknown_type", f"`type` must be one of {', '.join(FRAME_TYPES)}")
    try:
        return CLIENT_FRAMES.validate_python(document)
    except ValidationError as invalid:
        raise FrameError("invalid_frame", describe(invalid)) from None


def _unstorable(value: Any) -> bool:
    """A string Postgres cannot store: U+0000, or a surrogate JSON's \\u escapes left unpaired (a
    paired one was already decoded to its character), which is not even encodable as UTF-8."""
    if isinstance(value, str):
        return not is_storable(value)
    if isinstance(value, dict):
        return any(_unstorable(k) or _unstorable(v) for k, v in value.items())
    if isinstance(value, list):
        return any(_unstorable(item) for item in value)
    return False


def quoted(value: object, limit: int = 40) -> str:
    """A client's value named in a reply, bounded: an id of 10,000 characters is not sent back whole."""
    text = str(value)
    return repr(text if len(text) <= limit else f"{text[:limit]}…")
