"""The first sentence of a rent-increase answer (check-rent-increase), for questions as people ask them:
each called as the analysis service calls it, with the entities the planner reads from the question, and
its figures checked by hand against the article they rest on. Amounts in 만원."""

from __future__ import annotations

import pytest

from services.analysis.case import Case
from services.analysis.lease.rent_increase import rent_increase
from services.analysis.rules.rulebook import CORPUS
from services.analysis.rules.statutes import StatuteBook
from services.housing.entities import extract_entities
from tests.unit.step_results import RULES, cited, figure, lease_with_base_rate

pytestmark = pytest.mark.unit
STATUTES = StatuteBook.load(CORPUS, laws={"주택임대차보호법", "주택임대차보호법 시행령"})


def answer(query: str, rules=RULES.lease, **inputs):
    entities = extract_entities(query)
    return rent_increase(Case(query, entities, inputs), rules, STATUTES)


# 1. 5% 상한 (주택임대차보호법 제7조②, 시행령 제8조①: 약정한 차임등의 20분의 1)


def test_a_ten_percent_raise_on_a_jeonse_of_50000_names_the_total_asked_and_the_cap() -> None:
    # Asked: 50,000 × 1.10 = 55,000 (5억 5,000만원, +5,000 = 10%); cap: 50,000 × 1.05 = 52,500
    # (5억 2,500만원, +2,500); 55,000 − 52,500 = 2,500 may be refused (제7조②, 시행령 제8조①).
    result = answer("전세 5억 살고 있는데 재계약하면서 집주인이 10% 올려달래요ㅠ 이거 줘야 되는 건가요?")
    assert result.headline == (
        "5,000만원 인상(10.0%)은 법정 상한 5%를 넘어 요구할 수 없고, "
        "보증금은 요구한 5억 5,000만원이 아니라 최대 5억 2,500만원(2,500만원 인상)까지입니다."
    )
    assert figure(result, "요구 인상률 (보증금)").value == 10.0
    assert figure(result, "법정 상한 보증금").value == 52500
    assert figure(result, "상한 초과분 (보증금)").value == 2500
    assert {"주택임대차보호법/제7조", "주택임대차보호법_시행령/제8조"} <= cited(result)


def test_a_rent_raised_by_10_on_80_exceeds_the_cap_and_the_deposit_stays() -> None:
    # 월세 80 → 80 + 10 = 90: 10 ÷ 80 = 12.5% > 5%; cap 80 × 1.05 = 84만원 (4만원까지만 인상);
    # 90 − 84 = 6 may be refused (제7조②, 시행령 제8조①). 보증금 2,000 is not asked to change, and the
    # "5%" of "5% 넘는거 아닌가요?" is the cap asked about, not an increase of the deposit.
    result = answer(
        "보증금 2천에 월세 80 내고 있는데 집주인이 월세 10만원 올린대요;; 5% 넘는거 아닌가요? "
        "얼마까지만 올릴 수 있는지 알려주세요"
    )
    assert result.headline == (
        "10만원 인상(12.5%)은 법정 상한 5%를 넘어 요구할 수 없고, "
        "월차임은 요구한 90만원이 아니라 최대 84만원(4만원 인상)까지입니다."
    )
    assert figure(result, "요구 인상률 (월차임)").value == 12.5
    assert figure(result, "법정 상한 월차임").value == 84
    assert figure(result, "상한 초과분 (월차임)").value == 6
    assert not any("(보증금)" in f.label or "상한 보증금" in f.label for f in result.figures)
    assert "보증금 2,000만원은 인상 요구가 없어 그대로입니다." in result.findings


def test_a_percent_raises_the_kind_named_before_it() -> None:
    # 월세 50 × 1.10 = 55: 10% > 5%; cap 50 × 1.05 = 52.5만원; the deposit 1,000 is not raised.
    result = answer("보증금 1000에 월세 50인데 월세 10% 올린대요")
    assert figure(result, "법정 상한 월차임").value == 52.5
    assert "요구한 55만원이 아니라 최대 525,000원" in result.headline
    assert not any(f.label.startswith("요구 인상률 (보증금)") for f in result.figures)


def test_a_new_figure_after_the_current_one_is_the_figure_asked() -> None:
    # "3억인데 3억 5천으로 올려달래요" (entities as the planner reads them): 5,000 ÷ 30,000 = 16.7% > 5%;
    # cap 30,000 × 1.05 = 31,500 (제7조②, 시행령 제8조①).
    result = answer("전세금 3억인데 3억 5천으로 올려달래요")
    assert figure(result, "요구 인상률 (보증금)").value == 16.67
    assert "요구한 3억 5,000만원이 아니라 최대 3억 1,500만원" in result.headline


def test_an_increase_of_a_deposit_not_given_asks_for_it_and_never_takes_the_raise_for_it() -> None:
    # "보증금 4천 올려달래요": 4,000 is the raise, not the deposit. Within 5% only if the deposit is at
    # least 4,000 ÷ 5% = 80,000 (8억).
    result = answer("집주인이 보증금 4천 올려달래요")
    assert not any(f.label.startswith("법정 상한") for f in result.figures)
    assert [q.field for q in result.questions] == ["current_deposit_manwon"]
    assert any("현재 보증금이 8억원 이상이어야" in f for f in result.findings)


# 2. 1년 제한 (제7조① 후단, 시행령 제8조②: 계약 또는 증액이 있은 후 1년 이내에는 증액청구를 하지 못한다)


def test_within_a_year_of_the_renewal_even_a_five_percent_raise_may_be_refused() -> None:
    # 재계약한 지 6개월 < 12개월 (제7조① 후단, 시행령 제8조②): no increase may be asked yet, 5% or not.
    result = answer(
        "재계약한지 6개월밖에 안 됐는데 집주인이 보증금 또 올려달래요.. 이것도 5% 이내면 들어줘야 하나요?"
    )
    assert result.headline == (
        "재계약 후 6개월로 아직 1년이 지나지 않았으므로 집주인은 보증금 증액을 청구할 수 없고, "
        "5% 이내라도 거절할 수 있습니다(주택임대차보호법 제7조① 후단, 시행령 제8조②)."
    )
    assert result.questions == []
    assert {"주택임대차보호법/제7조", "주택임대차보호법_시행령/제8조"} <= cited(result)


def test_within_a_year_the_one_year_rule_comes_before_the_cap() -> None:
    # 계약한 지 8개월 < 12: barred (제8조②) though 1,000 ÷ 30,000 = 3.3% is within 5% (제8조①).
    result = answer("계약한지 8개월인데 3억에서 3억 1천으로 올려달래요")
    assert result.headline.startswith("계약 후 8개월로 아직 1년이 지나지 않았으므로")
    assert "거절할 수 있습니다" in result.headline
    assert any(f.startswith("요구한 1,000만원 인상(3.3%)") for f in result.findings)


def test_after_a_year_and_a_half_the_cap_is_what_limits_the_raise() -> None:
    # 1년 반 = 18개월 ≥ 12 (제8조②): an increase may be asked; 3 ÷ 60 = 5% is within the cap (제8조①).
    result = answer("1년 반 전에 올렸는데 월세 60을 63으로 올려달래요")
    assert result.headline.startswith("요구한 3만원 인상(5.0%)은 법정 상한 5% 이내라 요구할 수 있으며")
    assert any(f.startswith("직전 인상 후 1년 6개월: 12개월이 지났으므로") for f in result.findings)


def test_a_year_passed_with_no_figures_states_the_cap() -> None:
    result = answer("계약한 지 1년 넘었는데 보증금 올려달라면 얼마까지 올려줘야 하나요?")
    assert result.headline.startswith("계약 후 1년으로 1년이 지났으므로 증액을 청구할 수는 있지만")
    assert [q.field for q in result.questions] == ["current_deposit_manwon"]


# 3. 전월세 전환 (제7조의2, 시행령 제9조: min(연 10%, 기준금리 + 연 2%p))


def test_part_of_the_deposit_turned_into_rent_is_30_a_month_at_4_5_percent() -> None:
    # infra/seed/rules/lease.toml: 기준금리 2.50% (2025-05-29, the figure the file holds on 2026-11-25);
    # min(10%, 2.5% + 2%p) = 4.5%; 8,000 × 4.5% = 360만원/년 ÷ 12 = 30만원/월. The 8,000 is what is taken
    # out of the deposit, not the deposit.
    query = "보증금에서 8천만원 빼주고 그만큼 월세로 받겠다는데 법적으로 월세 얼마까지 받을 수 있어요?"
    result = answer(query, lease_with_base_rate(0.025))
    assert result.headline == (
        "보증금 8,000만원을 월세로 전환하면 법정 전환율 상한 4.5% 기준 월 30만원까지 받을 수 있습니다"
        "(주택임대차보호법 제7조의2, 시행령 제9조)."
    )
    assert figure(result, "전월세 전환율 상한").value == 4.5
    assert figure(result, "전환 시 월차임 상한").value == 30
    assert not any(f.label.startswith("법정 상한 보증금") for f in result.figures)
    assert {"주택임대차보호법/제7조의2", "주택임대차보호법_시행령/제9조"} <= cited(result)


def test_a_conversion_beside_the_rent_paid_now_says_the_rent_it_comes_to() -> None:
    # 5,000 × 4.5% ÷ 12 = 18.75만원 (187,500원); with the 50만원 paid now, 68.75만원 (687,500원) a month.
    query = "보증금 1억에 월세 50 살다가 보증금 일부 빼고 월세 올리자는데 5천 빼면 월세 얼마까지?"
    result = answer(query, lease_with_base_rate(0.025))
    assert result.headline.endswith("지금 월세 50만원과 합하면 월 687,500원까지입니다.")


def test_the_part_taken_out_of_a_given_deposit_is_converted() -> None:
    # 30,000 − 10,000 = 20,000 left; 10,000 × 4.5% ÷ 12 = 37.5만원 (제7조의2, 시행령 제9조).
    result = answer("보증금 3억에서 1억 빼고 나머지는 월세로 돌리재요", lease_with_base_rate(0.025))
    assert figure(result, "전환 시 월차임 상한").value == 37.5
    assert "월 375,000원" in result.headline


def test_a_base_rate_written_in_the_question_is_no_increase_asked() -> None:
    result = answer("기준금리 2.5%면 보증금 1억을 월세로 돌리면 얼마?", lease_with_base_rate(0.025))
    assert not any(f.label.startswith("요구 인상률") for f in result.figures)
    assert figure(result, "전환 시 월차임 상한").value == 37.5


def test_a_conversion_asked_without_an_amount_states_todays_rate_and_the_rent_per_100m() -> None:
    # min(10%, 2.5% + 2%p) = 4.5% (시행령 제9조①②); 10,000 × 4.5% ÷ 12 = 37.5만원 a month per 1억.
    # The question is the conversion, not an increase: no 5% cap, no renewal rules, the amount to
    # convert is what is asked for, and the conversion's articles come first.
    result = answer("임차인이 보증금을 월세로 전환할 때 이자율 제한이 있나요?", lease_with_base_rate(0.025))
    assert result.headline == (
        "보증금을 월세로 돌릴 때 전환율 상한은 지금 연 4.5%입니다: 월세는 돌리는 보증금 × 4.5% ÷ 12를 "
        "넘을 수 없어, 보증금 1억원이면 월 375,000원까지입니다(주택임대차보호법 제7조의2, 시행령 제9조)."
    )
    assert [c.article_id for c in result.citations] == [
        "주택임대차보호법/제7조의2",
        "주택임대차보호법_시행령/제9조",
    ]
    assert not any("5% 상한" in f or "계약갱신요구권" in f or "묵시적" in f for f in result.findings)
    assert [q.field for q in result.questions] == ["convert_deposit_manwon"]


def test_a_raise_of_the_rent_said_with_월세로_is_an_increase_not_a_conversion() -> None:
    # 월세 50 → 60: 10 ÷ 50 = 20% > 5%; cap 50 × 1.05 = 52.5만원 (제7조②, 시행령 제8조①).
    result = answer("월세 50인데 월세로 10만원 더 올려달래요", lease_with_base_rate(0.025))
    assert figure(result, "법정 상한 월차임").value == 52.5
    assert "5%를 넘어" in result.headline
