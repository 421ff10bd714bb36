"""The words of services/housing/vocabulary.py decide alike wherever they are read: the planner's topic
and the team's tool agree on what a question asks, and where two lists were folded into one entry the
choices made stand (a tenant's own loan is no debt of the home; prices rising are no raise asked)."""

from __future__ import annotations

import re

import pytest

from services.analysis.case import Case
from services.analysis.lease.jeonse_risk import deposit_and_debt
from services.analysis.tools import BY_NAME
from services.document.lease.fields import fields_from_text
from services.housing.entities import extract_entities
from services.housing.intent_catalogue import Topic
from services.housing.vocabulary import HOME_KIND_WORDS, RENT_RAISE_WORDS
from services.planner.intents import clause_topics

pytestmark = pytest.mark.unit


@pytest.mark.parametrize(
    ("question", "topic", "tool"),
    [
        ("집주인이 월세를 10만원 올린대요", Topic.RENT_CHANGE, "rent_increase"),
        ("역전세 걱정돼요", Topic.RISK, "jeonse_risk"),
        ("이 오피스텔 수익성 어때요", Topic.INVEST, "roi"),
    ],
)
def test_the_planners_topic_and_the_analysis_tool_read_the_same_words(
    question: str, topic: Topic, tool: str
) -> None:
    assert topic in clause_topics(question, extract_entities(question))
    assert BY_NAME[tool].words.search(question)


def test_prices_rising_are_no_raise_asked() -> None:
    assert not re.search(RENT_RAISE_WORDS, "요즘 집값 많이 올라요?")


def test_a_tenants_own_loan_is_no_debt_of_the_home_in_a_contract() -> None:
    assert "mortgage" not in fields_from_text("전세대출 받아서 들어갈 거예요")
    assert fields_from_text("선순위 채권최고액 1억 있는 집이에요").get("mortgage") is True


def test_in_a_risk_question_a_loan_beside_a_second_figure_is_the_homes() -> None:
    question = "보증금 2억인데 대출 1억 있는 집 괜찮나요?"
    assert deposit_and_debt(Case(question, extract_entities(question))) == (20000.0, 10000.0)


def test_a_law_named_after_houses_names_no_kind_of_home() -> None:
    assert not re.search(HOME_KIND_WORDS, "주택임대차보호법 제7조")
    assert re.search(HOME_KIND_WORDS, "단독주택 매물")
