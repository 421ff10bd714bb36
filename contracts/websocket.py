"""The gateway's WebSocket protocol (`/ws/{session_id}`): every frame a client may send and every message
the server sends, JSON objects discriminated by `type`.

The gateway parses frames with these models and builds every message it sends from them, so what goes
over the socket is what `python -m contracts.export` publishes (contracts/schemas/websocket/) and cannot
drift from it. Messages carry the run they are about (`run_id`) and the event position they reflect
(`position`, which a client resumes after); a message about the socket itself has neither.
"""

from __future__ import annotations

import json
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, StringConstraints, TypeAdapter, ValidationError

from contracts.gateway import MAX_QUERY_CHARS
from contracts.results import Question
from contracts.values import Citation, DocumentRef, IntentType, StepStatus, Strategy, Team

# --- client -> server

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
CLIENT_FRAMES: TypeAdapter[ClientFrame] = TypeAdapter(ClientFrame)
FRAME_TYPES = ("query", "interrupt_response", "input_response", "todo_skip", "cancel", "resume", "ping")


def describe(invalid: ValidationError) -> str:
    """Which fields of a frame are wrong and why, without echoing the (possibly huge) values back: the
    `invalid_frame` error's message, which a client can also give before sending."""
    problems = []
    for error in invalid.errors(include_url=False, include_input=False):
        where = ".".join(str(part) for part in error["loc"][1:]) or "frame"
        problems.append(f"{where}: {error['msg']}")
    return "; ".join(problems)


# --- server -> client

IsoTime = Annotated[str, Field(json_schema_extra={"format": "date-time"})]
ApprovalAction = Literal["approve", "modify", "reject"]


class Message(BaseModel):
    # Every field is sent, defaults included (so the published schema requires them), and nothing else:
    # a key the schema does not name fails the gateway's own tests.
    model_config = ConfigDict(frozen=True, extra="forbid", json_schema_serialization_defaults_required=True)

    type: str
    run_id: str | None = Field(description="the run this is about; null for a message about the socket")
    position: int | None = Field(
        description="the event position this reflects, which a client resumes after; null for a reply"
    )


class ReplyMessage(Message):
    """A message that reflects no event of the log (it is not position-checked, nor replayed)."""

    position: None = None


class ConnectedMessage(Message):
    """The first message on a socket: the log's head, from which it goes on live unless it resumes."""

    type: Literal["connected"] = "connected"
    run_id: None = None
    position: int
    session_id: str
    head: int


class PongMessage(ReplyMessage):
    type: Literal["pong"] = "pong"
    run_id: None = None


# The one `error` code that refuses nothing: the run in flight waits for the store and goes on when it is
# back, so a client keeps listening (any other code is a refusal).
STORE_UNAVAILABLE_CODE = "store_unavailable"


class ErrorMessage(ReplyMessage):
    """A refused frame or request (the socket stays usable), or `store_unavailable`: the run in flight
    waits for the store and goes on, nothing was refused."""

    type: Literal["error"] = "error"
    run_id: str | None = None
    code: str
    message: str


class PlanningStartMessage(Message):
    type: Literal["planning_start"] = "planning_start"
    run_id: str
    position: int
    query: str
    require_approval: bool


class TodoStep(BaseModel):
    """A step of the run's todo, as the projection holds it."""

    model_config = ConfigDict(frozen=True, extra="forbid", json_schema_serialization_defaults_required=True)

    step_id: str
    team: Team
    task: str
    depends_on: list[str]
    status: StepStatus
    attempt: int
    started_at: IsoTime | None
    completed_at: IsoTime | None
    duration_ms: float | None
    summary: str | None
    error: str | None


class Approval(BaseModel):
    """How to answer a plan that waits for the person (`interrupt_response`)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    message: str
    actions: list[ApprovalAction]


class PlanReadyMessage(Message):
    """The plan; with `requires_approval` the run waits for the person's `interrupt_response`."""

    type: Literal["plan_ready"] = "plan_ready"
    run_id: str
    position: int
    intent: IntentType | None
    confidence: float | None
    keywords: list[str]
    entities: dict[str, Any]
    strategy: Strategy | None
    execution_steps: list[TodoStep]
    estimated_total_time: float | None = Field(description="seconds")
    mode: Literal["llm", "rules"] | None
    requires_approval: bool
    approval: Approval | None


class ExecutionStartMessage(Message):
    type: Literal["execution_start"] = "execution_start"
    run_id: str
    position: int
    execution_steps: list[TodoStep]
    progress_pct: int = Field(ge=0, le=100)


class InputReceived(BaseModel):
    """A form answered: from the form, or read from the message the person typed (`message`)."""

    model_config = ConfigDict(frozen=True, extra="forbid", json_schema_serialization_defaults_required=True)

    step_id: str
    answers: dict[str, str]
    message: str | None


class TodoUpdatedMessage(Message):
    type: Literal["todo_updated"] = "todo_updated"
    run_id: str
    position: int
    execution_steps: list[TodoStep]
    progress_pct: int = Field(ge=0, le=100)
    # Only when the update is a form answered; absent otherwise, as clients test for the key.
    input_received: InputReceived | None = Field(default=None, exclude_if=lambda value: value is None)


class InputRequestMessage(Message):
    """The run waits for the person's answers (`input_response`, or a message that carries them)."""

    type: Literal["input_request"] = "input_request"
    run_id: str
    position: int
    step_id: str
    questions: list[Question]
    message: str


class AnswerData(BaseModel):
    """What an answer rests on; `metadata` says why a run ended without one (`code`, `reason`, `by`)."""

    model_config = ConfigDict(frozen=True, extra="forbid", json_schema_serialization_defaults_required=True)

    listings: list[dict[str, Any]] = []
    citations: list[Citation] = []
    insights: list[str] = []
    documents: list[DocumentRef] = []
    failed_steps: list[str] = []
    metadata: dict[str, Any] = {}


class FinalResponse(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    type: Literal["answer", "guidance", "error"]
    content: str = Field(description="the answer, in Markdown")
    data: AnswerData


class FinalResponseMessage(Message):
    """Every run ends with one: its answer, a guidance, or why it could not go on."""

    type: Literal["final_response"] = "final_response"
    run_id: str
    position: int
    response: FinalResponse


ServerMessage = Annotated[
    ConnectedMessage
    | PongMessage
    | ErrorMessage
    | PlanningStartMessage
    | PlanReadyMessage
    | ExecutionStartMessage
    | TodoUpdatedMessage
    | InputRequestMessage
    | FinalResponseMessage,
    Field(discriminator="type"),
]
SERVER_MESSAGES: TypeAdapter[ServerMessage] = TypeAdapter(ServerMessage)


class OffProtocol(ValueError):
    """A message that is not exactly what the published protocol describes."""


def read_message(raw: str | bytes) -> ServerMessage:
    """A message as a client receives it, held to the published protocol: strictly parsed (a number sent
    as a string, a key not published: pydantic's ValidationError), then sent again as the gateway would
    send it, which must give the same JSON (a published key left out: OffProtocol)."""
    message = SERVER_MESSAGES.validate_json(raw, strict=True)
    if sent(message) != json.loads(raw):
        raise OffProtocol(f"a `{message.type}` message differs from its schema: {raw!r:.300}")
    return message


def sent(message: Message) -> dict[str, Any]:
    """The message as the socket sends it (JSON-ready)."""
    return message.model_dump(mode="json")
