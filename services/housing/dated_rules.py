"""Dated rules (시행 기간): loan programmes, lending limits, tax rates, brokerage fee tables, policy
programmes and regulated areas are facts that hold from a day (`effective_from`) to an optional last day
(`effective_to`, inclusive; None = still in force), each taken from a public source. One idea for every
team: a rule not in force on the day asked about is never applied, and one that ended is named as
ended, not offered.

The day is the run's own (the day the person asked, `StepInputs.said_on`), never the machine's today:
a replay next year reads the rules the run read.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import date
from typing import Protocol, TypeVar

from pydantic import BaseModel, ConfigDict, Field, model_validator


class Dated(Protocol):
    """Anything with an effective period: a rule book's row, a loan product, a policy programme."""

    @property
    def effective_from(self) -> date: ...

    @property
    def effective_to(self) -> date | None: ...


D = TypeVar("D", bound=Dated)


def holds_on(rule: Dated, day: date) -> bool:
    return rule.effective_from <= day and (rule.effective_to is None or day <= rule.effective_to)


def has_ended(rule: Dated, day: date) -> bool:
    return rule.effective_to is not None and rule.effective_to < day


def in_force(rules: Iterable[D], on: date) -> list[D]:
    """The rules that hold on the day, in their order."""
    return [r for r in rules if holds_on(r, on)]


def check_period(rule: Dated, name: str = "") -> None:
    """Raise when the period runs backwards (a data file's mistake, refused when it is loaded)."""
    if rule.effective_to is not None and rule.effective_to < rule.effective_from:
        label = f"{name}: " if name else ""
        raise ValueError(f"{label}effective_to {rule.effective_to} is before {rule.effective_from}")


class DatedRule(BaseModel):
    """A rule book's row: its period, the source it was taken from, and a note. Rule books subclass it
    with their own figures (a rate, a cap, the zones it covers)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    effective_from: date
    effective_to: date | None = None
    source: str = Field(min_length=4)
    note: str | None = None

    @model_validator(mode="after")
    def _period_runs_forward(self) -> DatedRule:
        check_period(self)
        return self

    def in_force(self, day: date) -> bool:
        return holds_on(self, day)
