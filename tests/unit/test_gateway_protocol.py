"""Client frames: what parses, what is refused with which code, and how an edited plan is read."""

from __future__ import annotations

import json

import pytest

from contracts.gateway import MAX_QUERY_CHARS
from contracts.values import PlanStep, Team
from services.gateway.frames.person_events import edited_steps
from services.gateway.frames.protocol import (
    CancelFrame,
    FrameError,
    InterruptResponseFrame,
    PingFrame,
    QueryFrame,
    ResumeFrame,
    TodoSkipFrame,
    parse_frame,
)

pytestmark = pytest.mark.unit

LIMIT = 64 * 1024


def parse(frame: object) -> object:
    return parse_frame(frame if isinstance(frame, str | bytes) else json.dumps(frame), LIMIT)


def test_valid_frames_parse_to_their_models() -> None:
    query = parse({"type": "query", "query": "  강남구 전세  ", "session_id": "ignored"})
    assert query == QueryFrame(type="query", query="강남구 전세", require_approval=False)
    assert parse({"type": "query", "query": "q", "require_approval": True}).require_approval is True
    answer = parse({"type": "interrupt_response", "run_id": "r1", "action": "modify", "modified_todos": [{}]})
    assert isinstance(answer, InterruptResponseFrame) and answer.modified_todos == [{}]
    assert parse({"type": "todo_skip", "run_id": "r1", "todo_id": "search"}) == TodoSkipFrame(
        type="todo_skip", run_id="r1", todo_id="search"
    )
    assert isinstance(parse({"type": "cancel", "run_id": "r1"}), CancelFrame)
    assert parse({"type": "resume", "after_position": 0}) == ResumeFrame(type="resume", after_position=0)
    assert isinstance(parse(b'{"type": "ping"}'), PingFrame)


@pytest.mark.parametrize(
    ("frame", "code"),
    [
        ("{", "invalid_json"),
        (b"\xff", "invalid_json"),
        ("null", "not_an_object"),
        ("[]", "not_an_object"),
        ({"type": "hello"}, "unknown_type"),
        ({"type": ["query"]}, "unknown_type"),
        ({}, "unknown_type"),
        ({"type": "query"}, "invalid_frame"),
        ({"type": "query", "query": ""}, "invalid_frame"),
        ({"type": "query", "query": " \n "}, "invalid_frame"),
        ({"type": "query", "query": "가" * (MAX_QUERY_CHARS + 1)}, "invalid_frame"),
        ({"type": "query", "query": ["a"]}, "invalid_frame"),
        ({"type": "interrupt_response", "run_id": "", "action": "approve"}, "invalid_frame"),
        ({"type": "interrupt_response", "run_id": "r", "action": "maybe"}, "invalid_frame"),
        (
            {"type": "interrupt_response", "run_id": "r", "action": "modify", "modified_todos": "x"},
            "invalid_frame",
        ),
        ({"type": "todo_skip", "run_id": "r", "todo_id": ""}, "invalid_frame"),
        ({"type": "cancel", "run_id": "  "}, "invalid_frame"),
        ({"type": "resume", "after_position": -5}, "invalid_frame"),
        ({"type": "resume", "after_position": "soon"}, "invalid_frame"),
        ("[" * 30_000 + "]" * 30_000, "invalid_json"),
        ({"type": "query", "query": "전세\x00"}, "invalid_frame"),
        ({"type": "ping", "nested": [{"\x00": 1}]}, "invalid_frame"),
        ("x" * (LIMIT + 1), "frame_too_large"),
    ],
)
def test_bad_frames_are_refused_with_a_code(frame: object, code: str) -> None:
    with pytest.raises(FrameError) as refused:
        parse(frame)
    assert refused.value.code == code and refused.value.message


def test_a_refusal_does_not_echo_the_clients_input() -> None:
    with pytest.raises(FrameError) as refused:
        parse({"type": "query", "query": "가" * (MAX_QUERY_CHARS + 1)})
    assert "가가가" not in refused.value.message and "query" in refused.value.message


SEARCH = PlanStep(
    step_id="search", team=Team.SEARCH, task="시세 검색", inputs={"focus": ["market"]}, timeout_s=20
)
ANALYSIS = PlanStep(step_id="analysis", team=Team.ANALYSIS, task="위험도 분석", depends_on=["search"])


def test_edited_todos_keep_what_the_person_cannot_see() -> None:
    todos = [
        {
            "step_id": "analysis",
            "team": "analysis",
            "task": "전세가율 분석",
            "depends_on": [],
            "status": "pending",
        },
        {"step_id": "search", "task": "강남구 시세 검색", "attempt": 1, "summary": None},
        {"step_id": "extra", "team": "search", "task": "법 조항 검색", "depends_on": ["search"]},
    ]
    steps = edited_steps([SEARCH, ANALYSIS], todos)
    assert [(s.step_id, s.task, s.depends_on) for s in steps] == [
        ("analysis", "전세가율 분석", []),
        ("search", "강남구 시세 검색", []),
        ("extra", "법 조항 검색", ["search"]),
    ]
    assert (steps[1].inputs, steps[1].timeout_s) == ({"focus": ["market"]}, 20)


@pytest.mark.parametrize(
    "todos",
    [
        None,
        [],
        [{"step_id": "search", "task": ""}],
        [{"step_id": "new", "task": "팀이 없는 단계"}],
        [{"step_id": ["search"], "task": "x"}],
        [{"step_id": "search"}, {"step_id": "search"}],
        [{"step_id": "analysis", "depends_on": ["gone"]}],
        [{"step_id": "search", "depends_on": ["analysis"]}, {"step_id": "analysis"}],
    ],
)
def test_invalid_edits_are_refused(todos: list[dict] | None) -> None:
    with pytest.raises(FrameError) as refused:
        edited_steps([SEARCH, ANALYSIS], todos)
    assert refused.value.code == "invalid_plan"


def test_the_seed_protocol_may_leave_the_run_to_the_gateway() -> None:
    """DESIGN.md section 6 writes interrupt_response and todo_skip without run_id."""
    approve = parse_frame(json.dumps({"type": "interrupt_response", "action": "approve"}), LIMIT)
    skip = parse_frame(json.dumps({"type": "todo_skip", "todo_id": "search-legal"}), LIMIT)
    assert approve.run_id is None and skip.run_id is None and skip.todo_id == "search-legal"
