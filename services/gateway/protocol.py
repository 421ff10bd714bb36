"""What a client may send over the WebSocket: JSON objects discriminated by `type`.

Parsing never raises anything but `FrameError`, whose `code` and `message` go back to the client
as an `error` message; the socket stays open, so a client can fix its frame and go on.
"""

from __future__ import annotations

import json
import re
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, StringConstraints, TypeAdapter, ValidationError

from contracts.gateway import MAX_QUERY_CHARS

RunId = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=100)]


class Frame(BaseModel):
    # Unknown keys are ignored: clients written for the LangGraph design Jipsa replaced send a few we
    # have no use for. Strict: a frame says what it means, so "yes" is no boolean and "10" or true no
    # position (lax pydantic would coerce them).
    model_config = ConfigDict(frozen=True, extra="ignore", strict=True)


class QueryFrame(Frame):
    type: Literal["query"]
    query: Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=MAX_QUERY_CHARS)]
    require_approval: bool = False


class InterruptResponseFrame(Frame):
    """The person's answer to a `plan_ready` that `requires_approval`; `modify` carries the edited todos."""

    type: Literal["interrupt_response"]
    run_id: RunId | None = None  # older clients omit it: the session's one waiting run is meant
    action: Literal["approve", "modify", "reject"]
    modified_todos: list[dict[str, Any]] | None = Field(default=None, max_length=50)
    reason: str | None = Field(default=None, max_length=500)


class TodoSkipFrame(Frame):
    type: Literal["todo_skip"]
    run_id: RunId | None = None  # older clients omit it: the session's run holding the todo is meant
    todo_id: str = Field(min_length=1, max_length=64)


class InputResponseFrame(Frame):
    """The person's answers to `input_request`: field -> what they wrote (the step reads them itself)."""

    type: Literal["input_response"]
    run_id: RunId
    step_id: str = Field(min_length=1, max_length=64)
    answers: dict[
        Annotated[str, StringConstraints(min_length=1, max_length=64)],
        Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=2000)],
    ] = Field(min_length=1, max_length=50)


class CancelFrame(Frame):
    type: Literal["cancel"]
    run_id: RunId
    reason: str | None = Field(default=None, max_length=500)


class ResumeFrame(Frame):
    type: Literal["resume"]
    after_position: int = Field(ge=0)


class PingFrame(Frame):
    type: Literal["ping"]


ClientFrame = Annotated[
    QueryFrame
    | InterruptResponseFrame
    | InputResponseFrame
    | TodoSkipFrame
    | CancelFrame
    | ResumeFrame
    | PingFrame,
    Field(discriminator="type"),
]
FRAME_TYPES = ("query", "interrupt_response", "input_response", "todo_skip", "cancel", "resume", "ping")
_frames: TypeAdapter[ClientFrame] = TypeAdapter(ClientFrame)


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
        return _frames.validate_python(document)
    except ValidationError as invalid:
        raise FrameError("invalid_frame", describe(invalid)) from None


def is_storable(text: str) -> bool:
    return _UNSTORABLE.search(text) is None


def storable(text: str) -> str:
    """A pydantic validator for free text bound for Postgres: refuses what it cannot hold."""
    if not is_storable(text):
        raise ValueError("text may not contain U+0000 or unpaired surrogates")
    return text


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


_UNSTORABLE = re.compile(r"[\x00\ud800-\udfff]")


def quoted(value: object, limit: int = 40) -> str:
    """A client's value named in a reply, bounded: an id of 10,000 characters is not sent back whole."""
    text = str(value)
    return repr(text if len(text) <= limit else f"{text[:limit]}…")


def describe(invalid: ValidationError) -> str:
    """Which fields are wrong and why, without echoing the client's (possibly huge) values back."""
    problems = []
    for error in invalid.errors(include_url=False, include_input=False):
        where = ".".join(str(part) for part in error["loc"][1:]) or "frame"
        problems.append(f"{where}: {error['msg']}")
    return "; ".join(problems)
