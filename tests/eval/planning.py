"""Rules-mode planning measured on the development set: intent accuracy and teams covered.

Run: `.venv/bin/python -m tests.eval.planning [path.jsonl]`. A question's teams are covered when the plan
runs at least the teams it expects (extra steps are allowed: the set says what a good plan needs).
"""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass
from pathlib import Path

from services.planner.plan_rules import plan_by_rules

DEV_SET = Path(__file__).resolve().parents[1] / "data" / "eval" / "planning_dev.jsonl"


@dataclass(frozen=True)
class QuestionResult:
    id: str
    query: str
    expected_intent: str
    intent: str
    expected_teams: frozenset[str]
    teams: frozenset[str]

    @property
    def intent_ok(self) -> bool:
        return self.intent == self.expected_intent

    @property
    def teams_ok(self) -> bool:
        return self.expected_teams <= self.teams


def evaluate(path: Path = DEV_SET) -> list[QuestionResult]:
    results = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line.strip():
            continue
        row = json.loads(line)
        plan = plan_by_rules(row["query"])
        results.append(
            QuestionResult(
                id=row["id"],
                query=row["query"],
                expected_intent=row["expected_intent"],
                intent=plan.intent.type.value,
                expected_teams=frozenset(row["expected_teams"]),
                teams=frozenset(step.team.value for step in plan.steps),
            )
        )
    return results


def report(results: list[QuestionResult]) -> str:
    lines = []
    for r in results:
        mark = ("ok " if r.intent_ok else "INT") + (" ok " if r.teams_ok else " TEAM")
        teams = ",".join(sorted(r.teams)) or "-"
        lines.append(
            f"{r.id:5} {mark:8} {r.intent:18} (expected {r.expected_intent:18}) teams={teams:24} {r.query}"
        )
    n = len(results)
    intents = sum(r.intent_ok for r in results)
    teams = sum(r.teams_ok for r in results)
    lines.append(f"intent accuracy {intents}/{n}, teams covered {teams}/{n}")
    return "\n".join(lines)


if __name__ == "__main__":
    print(report(evaluate(Path(sys.argv[1]) if len(sys.argv) > 1 else DEV_SET)))
