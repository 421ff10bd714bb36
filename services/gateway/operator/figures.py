"""The operator page's figures, as pure functions over what reads.py read: runs per minute, runs
by outcome (services/platform/run_outcomes.py, the reading chaos and load count by), step latency by
team, LLM calls by call point, and the slowest runs.
"""

from __future__ import annotations

import statistics
from collections import Counter
from collections.abc import Iterable, Sequence
from datetime import datetime, timedelta
from typing import Any

from services.gateway.operator.reads import LlmCall
from services.platform.run_outcomes import OUTCOMES, RunEvent, outcome_of

STEP_ANSWERS = ("StepCompleted", "StepFailed")
# What a model's answer could not be used for: the call failed and the rules answered instead.
LLM_FAILURES = ("invalid_output", "error", "timeout")


def runs_per_minute(created: Iterable[datetime], now: datetime, minutes: int) -> list[dict[str, Any]]:
    """Runs asked in each of the last `minutes` whole minutes up to `now`, oldest first (empty ones too)."""
    last = now.replace(second=0, microsecond=0)
    counts = Counter(at.replace(second=0, microsecond=0) for at in created)
    starts = [last - timedelta(minutes=back) for back in range(minutes - 1, -1, -1)]
    return [{"minute": start.isoformat(), "runs": counts.get(start, 0)} for start in starts]


def outcomes_of(by_run: dict[str, list[RunEvent]]) -> dict[str, str]:
    return {run_id: outcome_of(events) for run_id, events in by_run.items()}


def outcome_counts(outcomes: dict[str, str]) -> dict[str, int]:
    counted = Counter(outcomes.values())
    return {outcome: counted.get(outcome, 0) for outcome in OUTCOMES}


def step_latency(by_run: dict[str, list[RunEvent]]) -> list[dict[str, Any]]:
    """Per team: the steps answered, how many failed, and p50/p95 from StepStarted to its answer (ms), by
    the store's clock: the time a person waited on the step, queueing and delivery included."""
    latencies: dict[str, list[float]] = {}
    failed: Counter[str] = Counter()
    for events in by_run.values():
        started = {(e.step_id, e.attempt): e for e in events if e.type == "StepStarted"}
        for answer in (e for e in events if e.type in STEP_ANSWERS):
            start = started.pop((answer.step_id, answer.attempt), None)  # a late second answer counts once
            if start is None or start.team is None:
                continue
            latencies.setdefault(start.team, []).append((answer.at - start.at) * 1000)
            failed[start.team] += answer.type == "StepFailed"
    return [
        {"team": team, "steps": len(values), "failed": failed[team], **_p50_p95(values)}
        for team, values in sorted(latencies.items())
    ]


def llm_by_call_point(calls: Iterable[LlmCall]) -> list[dict[str, Any]]:
    grouped: dict[str, list[LlmCall]] = {}
    for call in calls:
        grouped.setdefault(call.call_point, []).append(call)
    return [
        {
            "call_point": point,
            "calls": len(made),
            "failures": sum(c.outcome in LLM_FAILURES for c in made),
            "fallbacks": sum(c.fallback_used for c in made),
            "p50_ms": _p50_p95([c.latency_ms for c in made])["p50_ms"],
        }
        for point, made in sorted(grouped.items())
    ]


def slowest_runs(
    runs: Iterable[dict[str, Any]], outcomes: dict[str, str], count: int
) -> list[dict[str, Any]]:
    """The finished runs that took longest from question to final event (the projection's total_ms)."""
    finished = sorted((r for r in runs if r["total_ms"] is not None), key=lambda r: -r["total_ms"])
    return [
        {
            "run_id": r["run_id"],
            "query": r["query"],
            "status": r["status"],
            "outcome": outcomes.get(r["run_id"]),
            "created_at": r["created_at"].isoformat(),
            "total_ms": r["total_ms"],
        }
        for r in finished[:count]
    ]


def _p50_p95(values: Sequence[float]) -> dict[str, float]:
    """Inclusive quantiles, as chaos and load report theirs; one value is its own p50 and p95."""
    if len(values) == 1:
        return {"p50_ms": values[0], "p95_ms": values[0]}
    cuts = statistics.quantiles(values, n=100, method="inclusive")
    return {"p50_ms": cuts[49], "p95_ms": cuts[94]}
