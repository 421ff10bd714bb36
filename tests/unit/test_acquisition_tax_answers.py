"""취득세 asked for (compute-acquisition-tax): the tax and 지방교육세 on the price, for the homes the buyer
holds after the purchase, checked by hand against infra/seed/rules/tax.toml (지방세법 제11조①8호,
제13조의2, 제151조). Amounts in 만원."""

from __future__ import annotations

import pytest

from services.analysis.case import Case
from services.analysis.deal.acquisition_tax import acquisition_tax_answer
from services.housing.entities import extract_entities
from services.planner.plan_rules import plan_by_rules
from tests.unit.step_results import RULES, figure

pytestmark = pytest.mark.unit


def answer(query: str):
    entities = extract_entities(query)
    return acquisition_tax_answer(Case(query, entities, {"as_of": "2026-11-25"}), RULES)


def test_a_first_home_over_9억_pays_3_percent_and_a_tenth_of_it_in_education_tax() -> None:
    # 150,000 × 3% = 4,500; 지방교육세 4,500 × 10% = 450; total 4,950 (제11조①8호, 제151조①1호)
    result = answer("매매가 15억 아파트 취득세 얼마예요? 무주택이에요")
    assert result.headline.startswith("15억원 주택을 사서 1주택이 되면 취득세는 3%인 4,500만원")
    assert figure(result, "취득세 + 지방교육세").value == 4950


def test_between_6억_and_9억_the_rate_is_the_laws_line() -> None:
    # 70,000: (7 × 2/3 − 3)% = 1.6667%; 70,000 × 1.6667% = 1,166.69; 교육세 116.67; total 1,283.36
    result = answer("7억 아파트 생애최초로 사면 취득세는요?")
    assert figure(result, "취득세").value == pytest.approx(1166.69, abs=0.01)
    assert figure(result, "취득세 + 지방교육세").value == pytest.approx(1283.36, abs=0.01)


def test_a_second_home_in_seoul_is_surcharged_8_percent() -> None:
    # one home kept, one more bought in 서울 (조정대상지역): 2주택 중과 8% (제13조의2①2호): 80,000 × 8% =
    # 6,400; 지방교육세 at 0.4% of the price = 320; total 6,720
    result = answer("서울에 집 한 채 있는데 8억짜리 하나 더 사면 취득세 얼마나 내요?")
    assert "2주택이 되면 취득세는 8%인 6,400만원" in result.headline
    assert figure(result, "취득세 + 지방교육세").value == 6720


def test_without_a_price_the_price_is_asked_and_nothing_is_invented() -> None:
    result = answer("취득세 얼마나 나와요?")
    assert [q.field for q in result.questions] == ["price_manwon"] and not result.figures


def test_a_tax_question_plans_the_tax_alone() -> None:
    # no statute search (지방세법 is not among the statutes) and no market dump for a price the person gave
    assert [s.step_id for s in plan_by_rules("매매가 15억 아파트 취득세 얼마예요?").steps] == [
        "compute-acquisition-tax"
    ]
