"""Dated rules read as one idea (services.housing.dated_rules), for the run's own day."""

from __future__ import annotations

from datetime import date

import pytest
from pydantic import ValidationError

from services.analysis.case import Case
from services.analysis.rules.policies import PolicyBook
from services.housing.dated_rules import DatedRule, has_ended, holds_on, in_force
from services.search.loans import default_book

pytestmark = pytest.mark.unit

OLD = DatedRule(effective_from=date(2020, 1, 1), effective_to=date(2023, 12, 31), source="고시 2020")
NEW = DatedRule(effective_from=date(2024, 1, 1), source="고시 2024")


def test_a_rule_holds_from_its_first_day_to_its_last_inclusive() -> None:
    assert holds_on(OLD, date(2020, 1, 1)) and holds_on(OLD, date(2023, 12, 31))
    assert not holds_on(OLD, date(2019, 12, 31)) and not holds_on(OLD, date(2024, 1, 1))
    assert holds_on(NEW, date(2099, 1, 1))
    assert in_force([OLD, NEW], on=date(2023, 6, 1)) == [OLD]
    assert in_force([OLD, NEW], on=date(2024, 6, 1)) == [NEW]


def test_a_rule_has_ended_only_after_its_last_day() -> None:
    assert not has_ended(OLD, date(2023, 12, 31)) and has_ended(OLD, date(2024, 1, 1))
    assert not has_ended(NEW, date(2099, 1, 1))


def test_a_period_running_backwards_is_refused() -> None:
    with pytest.raises(ValidationError, match="is before"):
        DatedRule(effective_from=date(2024, 1, 1), effective_to=date(2023, 1, 1), source="고시 2024")


def test_every_team_reads_its_books_the_same_way() -> None:
    """Loan products (search) and policy programmes (analysis) are dated rules too."""
    day = date(2024, 1, 30)
    loans = default_book().entries
    assert in_force(loans, day) == [e for e in loans if e.effective_from <= day and not has_ended(e, day)]
    programmes = PolicyBook.load().programmes
    assert in_force(programmes, day) == [p for p in programmes if holds_on(p, day)]


def test_analysis_reads_the_rules_for_the_day_the_person_asked() -> None:
    asked = date(2024, 3, 5)
    assert Case("취득세 얼마?", said_on=asked).day() == asked
    assert Case("취득세 얼마?", facts={"as_of": "2021-06-01"}, said_on=asked).day() == date(2021, 6, 1)
