"""What the load script counts as an error: anything but a whole answer or guidance (tests/load/run.py)."""

from __future__ import annotations

import pytest

from tests.chaos.client import RunTiming
from tests.load.run import errors_of, outcome_table, report

pytestmark = pytest.mark.unit


def timing(response_type: str | None, failed: list[str] | None = None, skipped: bool = False) -> RunTiming:
    t = RunTiming(query="강남구 아파트 전세 시세와 위험도 분석해줘", run_id="run-1")
    t.todo_steps = [{"step_id": "s1", "status": "completed"}]
    if skipped:
        t.todo_steps.append({"step_id": "s2", "status": "skipped"})
    if response_type is not None:
        t.final, t.final_type = 1.5, response_type
        t.final_frame = {
            "type": "final_response",
            "response": {"type": response_type, "data": {"failed_steps": failed or []}},
        }
    return t


def test_a_whole_answer_and_a_guidance_are_no_error() -> None:
    assert errors_of(timing("answer")) == []
    assert errors_of(timing("guidance")) == []


@pytest.mark.parametrize(
    ("made", "said"),
    [
        (timing("answer", ["s2"]), "answer with failed steps (failed steps ['s2']"),
        (timing("answer", skipped=True), "answer with failed steps (failed steps [], skipped ['s2'])"),
        (timing("error", ["s1", "s2"]), "error (failed steps ['s1', 's2']"),
        (timing(None), "no final_response"),
    ],
)
def test_a_partial_an_error_or_no_answer_is_an_error(made: RunTiming, said: str) -> None:
    assert any(e.startswith(said) for e in errors_of(made)), errors_of(made)


def test_the_table_counts_partial_and_error_answers_apart_from_whole_ones() -> None:
    timings = [
        timing("answer"),
        timing("answer"),
        timing("answer", ["s2"]),
        timing("error", ["s1"]),
        timing(None),
    ]
    table = "\n".join(outcome_table(timings))
    assert "partial answers: 1, error answers: 1, no answer: 1" in table
    assert [line.split()[-1] for line in table.splitlines()[1:4]] == ["2", "0", "1"]


def test_the_report_exits_nonzero_on_a_partial_answer(capsys) -> None:
    assert report([timing("answer")], 1.0, {}, {}, {}) == 0
    assert report([timing("answer"), timing("answer", ["s2"])], 1.0, {}, {}, {}) == 1
    printed = capsys.readouterr().out
    assert "errors: 1" in printed and "run-1" in printed
