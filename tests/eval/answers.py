"""The dev sets scored on what a person receives: each question asked through the running system's
WebSocket, judged on the final answer's text.

Legal (legal_dev.jsonl with the article labels of legal_dev_articles.jsonl, and our legal_ours.jsonl with
its labels in each row), per question:
- planned legal: some step of the run searched the statutes (a StepStarted with the `legal` focus, or a
  tool decision that selected `legal_search`), read from the run's events;
- law cited: the answer's text cites one of the question's `law_titles` and at most MAX_LAWS laws in all
  (citations.py says how a citation is read);
- article cited: the text cites one of the question's gold articles (strict) or one of its gold or
  acceptable articles (lenient), counted over the questions whose status is not `unanswerable`.
Planning (planning_dev.jsonl): the intent of the plan the person saw, and whether its steps include every
team the question expects.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tests.eval.citations import cited
from tests.eval.planning import QuestionResult
from tests.eval.system import Answer

EVAL_DATA = Path(__file__).resolve().parents[1] / "data" / "eval"
MAX_LAWS = 5
UNLABELLED = {"gold_articles": [], "acceptable_articles": [], "status": "unanswerable"}
CONCURRENCY = 4  # questions in flight at once: each is its own session, as separate people would be

Ask = Callable[[str], Awaitable[Answer]]


@dataclass(frozen=True)
class LegalScore:
    id: str
    question: str
    status: str
    intent: str | None
    planned_legal: bool
    laws: frozenset[str]
    law_ok: bool
    article_strict: bool
    article_lenient: bool


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


async def gather_bounded(items: list[Any], work: Callable[[Any], Awaitable[Any]]) -> list[Any]:
    gate = asyncio.Semaphore(CONCURRENCY)

    async def one(item: Any) -> Any:
        async with gate:
            return await work(item)

    return await asyncio.gather(*(one(item) for item in items))


def legal_dev() -> list[dict[str, Any]]:
    """The legal dev set, each question joined with its article labels."""
    labels = {row["id"]: row for row in read_jsonl(EVAL_DATA / "legal_dev_articles.jsonl")}
    return [
        {**UNLABELLED, **labels.get(row["id"], {}), **row}
        for row in read_jsonl(EVAL_DATA / "legal_dev.jsonl")
    ]


def legal_ours() -> list[dict[str, Any]]:
    """Our legal set: questions written from an article's text before the system was first asked them."""
    return read_jsonl(EVAL_DATA / "legal_ours.jsonl")


def legal_everyday() -> list[dict[str, Any]]:
    """Tenants' and buyers' questions in everyday words (장충금, 두 번 안 냈더니), each labelled from the
    article's text: how the answer book and the index meet words nobody wrote them from."""
    return read_jsonl(EVAL_DATA / "legal_everyday.jsonl")


def legal_statutes(batch: str) -> list[dict[str, Any]]:
    """Questions written from articles drawn across every law of the corpus (source/legal_statutes.py):
    batch "dev" to develop on, "heldout" and "heldout2" measured only when a change is done."""
    return read_jsonl(EVAL_DATA / f"legal_statutes_{batch}.jsonl")


async def legal_scores(ask: Ask, rows: list[dict[str, Any]]) -> list[LegalScore]:
    async def score(row: dict[str, Any]) -> LegalScore:
        answer = await ask(row["question"])
        label = row
        found = cited(answer.content)
        gold = set(label["gold_articles"])
        return LegalScore(
            id=row["id"],
            question=row["question"],
            status=label["status"],
            intent=answer.intent,
            planned_legal=searched_statutes(answer.events),
            laws=found.laws,
            law_ok=bool(found.laws & set(row["law_titles"])) and len(found.laws) <= MAX_LAWS,
            article_strict=bool(found.articles & gold),
            article_lenient=bool(found.articles & (gold | set(label["acceptable_articles"]))),
        )

    return await gather_bounded(rows, score)


def searched_statutes(events: list[dict[str, Any]]) -> bool:
    for event in events:
        data = event.get("data", {})
        if event.get("type") == "StepStarted" and "legal" in data.get("inputs", {}).get("focus", []):
            return True
        if event.get("type") == "ToolDecisionRecorded" and "legal_search" in data.get("selected_tools", []):
            return True
    return False


async def planning_scores(ask: Ask, path: Path = EVAL_DATA / "planning_dev.jsonl") -> list[QuestionResult]:
    async def score(row: dict[str, Any]) -> QuestionResult:
        answer = await ask(row["query"])
        return QuestionResult(
            id=row["id"],
            query=row["query"],
            expected_intent=row["expected_intent"],
            intent=answer.intent or "",
            expected_teams=frozenset(row["expected_teams"]),
            teams=frozenset(answer.teams),
        )

    return await gather_bounded(read_jsonl(path), score)
