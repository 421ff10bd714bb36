"""What the analysis tests read off a step result, and the rule book they compute against."""

from __future__ import annotations

from services.analysis.rules.rulebook import RuleBook

RULES = RuleBook.load()


def figure(result, label_start: str):
    return next(f for f in result.figures if f.label.startswith(label_start))


def cited(result) -> set[str]:
    return {c.article_id for c in result.citations}


def lease_with_base_rate(rate: float):
    """The lease rules with the 한국은행 기준금리 fixed, so a test's arithmetic does not move with it."""
    base = RULES.lease.base_rate.model_copy(update={"rate": rate})
    return RULES.lease.model_copy(update={"base_rate": base})
