"""A fact with an effective period (시행 기간): loan, tax and policy rules hold from `effective_from` to
`effective_to` inclusive (None = still in force), and a rule not in force on the day asked about is never
applied."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import date
from typing import TypeVar

from pydantic import BaseModel, ConfigDict, Field, model_validator


class DatedRule(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    effective_from: date
    effective_to: date | None = None
    source: str = Field(min_length=4)
    note: str | None = None

    @model_validator(mode="after")
    def _period_runs_forward(self) -> DatedRule:
        if self.effective_to is not None and self.effective_to < self.effective_from:
            raise ValueError(f"effective_to {self.effective_to} is before {self.effective_from}")
        return self

    def in_force(self, day: date) -> bool:
        return self.effective_from <= day and (self.effective_to is None or day <= self.effective_to)


R = TypeVar("R", bound=DatedRule)


def in_force(rules: Iterable[R], day: date) -> list[R]:
    return [r for r in rules if r.in_force(day)]


def day_asked(as_of: str | None) -> date:
    """The day the rules are read for: the case's `as_of` fact when given (a test), else today."""
    return date.fromisoformat(as_of) if as_of else date.today()
