"""The operator page's figures from plain data: minutes without runs are shown as such, a step's latency
is per attempt and counted once, LLM failures are the calls a fallback had to answer for."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from services.gateway.operator.figures import llm_by_call_point, runs_per_minute, slowest_runs, step_latency
from services.gateway.operator.reads import LlmCall
from services.platform.run_outcomes import RunEvent

pytestmark = pytest.mark.unit
NOW = datetime(2026, 11, 25, 10, 30, 42, tzinfo=UTC)


def at(minute: int, second: int = 0) -> datetime:
    return NOW.replace(minute=minute, second=second)


def test_runs_per_minute_has_every_minute_of_the_window_oldest_first() -> None:
    buckets = runs_per_minute([at(30, 1), at(30, 40), at(28, 59), at(20)], NOW, 5)
    assert [(b["minute"][11:16], b["runs"]) for b in buckets] == [
        ("10:26", 0),
        ("10:27", 0),
        ("10:28", 1),
        ("10:29", 0),
        ("10:30", 2),
    ]  # the run at 10:20 is outside the five minutes


def step(position: int, kind: str, at_s: float, step_id: str, attempt: int, team: str = "search") -> RunEvent:
    return RunEvent(position=position, type=kind, at=at_s, team=team, step_id=step_id, attempt=attempt)


def test_step_latency_pairs_each_attempt_with_its_answer_and_counts_a_late_second_answer_once() -> None:
    retried = [
        step(1, "StepStarted", 100.0, "market", 1),
        step(2, "StepFailed", 100.5, "market", 1),
        step(3, "StepStarted", 101.0, "market", 2),
        step(4, "StepCompleted", 101.1, "market", 2),
        step(5, "StepCompleted", 109.0, "market", 2),  # a redelivered answer: the step was answered already
    ]
    analysed = [
        step(6, "StepStarted", 200.0, "risk", 1, "analysis"),
        step(7, "StepCompleted", 200.25, "risk", 1),
    ]
    figures = {f["team"]: f for f in step_latency({"run-a": retried, "run-b": analysed})}

    assert (figures["search"]["steps"], figures["search"]["failed"]) == (2, 1)
    assert round(figures["search"]["p50_ms"]) == 300 and round(figures["search"]["p95_ms"]) == 480
    assert figures["analysis"] == {
        "team": "analysis",
        "steps": 1,
        "failed": 0,
        "p50_ms": 250.0,
        "p95_ms": 250.0,
    }


def test_llm_calls_by_call_point_count_failures_and_fallbacks_apart() -> None:
    calls = [
        LlmCall("planning", "ok", False, 400),
        LlmCall("planning", "timeout", True, 5000),
        LlmCall("response_synthesis", "invalid_output", True, 900),
        LlmCall("response_synthesis", "not_configured", True, 0),  # rules mode: a fallback, not a failure
    ]
    assert [
        (c["call_point"], c["calls"], c["failures"], c["fallbacks"]) for c in llm_by_call_point(calls)
    ] == [
        ("planning", 2, 1, 1),
        ("response_synthesis", 2, 1, 2),
    ]


def test_the_slowest_runs_are_the_finished_ones_longest_first() -> None:
    runs = [
        {"run_id": "quick", "query": "안녕", "status": "completed", "created_at": at(1), "total_ms": 40.0},
        {"run_id": "open", "query": "시세", "status": "running", "created_at": at(2), "total_ms": None},
        {"run_id": "slow", "query": "위험도", "status": "failed", "created_at": at(3), "total_ms": 9000.0},
    ]
    slowest = slowest_runs(runs, {"quick": "guidance", "slow": "failed", "open": "none"}, count=5)
    assert [(r["run_id"], r["outcome"]) for r in slowest] == [("slow", "failed"), ("quick", "guidance")]
