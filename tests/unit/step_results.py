"""What the analysis tests read off a step result, and the rule book they compute against."""

from __future__ import annotations

from contracts.entities import QueryEntities
from services.analysis.case import Case
from services.analysis.rules.rulebook import RuleBook
from services.housing.entities import extract_entities

RULES = RuleBook.load()


def figure(result, label_start: str):
    return next(f for f in result.figures if f.label.startswith(label_start))


def cited(result) -> set[str]:
    return {c.article_id for c in result.citations}


def lease_with_base_rate(rate: float):
    """The lease rules with the 한국은행 기준금리 fixed, so a test's arithmetic does not move with it."""
    base = RULES.lease.base_rate.model_copy(update={"rate": rate})
    return RULES.lease.model_copy(update={"base_rate": base})


def read_case(query: str, entities: QueryEntities | None = None, *args, **kwargs) -> Case:
    """A case as the analysis team gets it: the question with the planner's reading of it, where the
    `entities` given stand in for the fields they set (a form's answers, figures carried from before)."""
    reading = extract_entities(query).model_dump()
    given = entities.model_dump(exclude_defaults=True) if entities else {}
    return Case(query, QueryEntities.model_validate({**reading, **given}), *args, **kwargs)
