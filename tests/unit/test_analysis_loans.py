"""The loan simulator against hand-worked examples, and lending.toml against the search team's loan data."""

from __future__ import annotations

import json
from datetime import date

import pytest

from contracts.steps import StepInputs
from contracts.values import StepFocus as F
from services.analysis.case import Case
from services.analysis.loans.loan_limit import Borrower, loan_limit
from services.analysis.loans.loan_simulation import loan_simulation
from services.analysis.loans.repayment import level_payment, schedule, yearly
from services.analysis.profile import read_profile
from services.analysis.rules.rulebook import REPO_ROOT, RuleBook
from services.analysis.tools import ANALYSIS_TEAM
from services.housing.entities import extract_entities
from services.platform.team import StepWork
from services.platform.team_of_tools import choose_by_rules
from tests.unit.step_results import read_case

pytestmark = pytest.mark.unit
RULES = RuleBook.load()
LENDING = RULES.lending


def simulate(query: str, as_of: str = "2026-01-10", **inputs):
    """The simulator on the planner's reading of the question, with `inputs` as the applicant's facts."""
    case = Case(query, extract_entities(query), {"as_of": as_of, **inputs})
    return loan_simulation(case, LENDING, RULES.regions)


def figure(result, label: str):
    return next(f for f in result.figures if f.label == label)


def test_three_repayment_methods_by_hand() -> None:
    # 3억, 4%, 30년: r = 0.04/12, level = 30000·r/(1−(1+r)^−360) = 143.22;
    # 원금균등 first month 30000/360 + 30000·r = 83.33 + 100 = 183.33, total interest P·r·(n+1)/2 = 18,050;
    # 만기일시 interest only 100 a month, 36,000 over 30 years.
    assert level_payment(30000, 0.04, 360) == pytest.approx(143.2246, abs=1e-3)
    principal = schedule(30000, 0.04, 360, "equal_principal")
    assert principal[0].payment == pytest.approx(183.333, abs=1e-3)
    assert sum(m.interest for m in principal) == pytest.approx(18050, abs=1e-6)
    bullet = schedule(30000, 0.04, 360, "bullet")
    assert bullet[0].payment == pytest.approx(100) and bullet[-1].principal == pytest.approx(30000)
    assert level_payment(1200, 0.0, 12) == 100  # no interest: principal ÷ months


def test_yearly_schedule_sums_to_the_loan() -> None:
    years = yearly(schedule(12000, 0.05, 120, "equal_payment"))
    assert len(years) == 10 and years[-1].balance == pytest.approx(0, abs=1e-6)
    assert sum(y.principal for y in years) == pytest.approx(12000)


def test_dsr_binds_with_the_stress_rate_in_seoul() -> None:
    # 2026-01-10, 서울 (규제지역 since 2025-10-16), 무주택, 8억, 연봉 6천,
    # 기존 대출 월 50만원, 참고 금리 4%, 30년.
    # LTV 40% = 32,000; DSR: (6000×0.4 − 600) ÷ (12 × level(1, 4%+3%p, 360) = 0.079836) = 22,546; cap 6억.
    result = simulate("연봉 6천에 기존 대출 월 50만원, 무주택인데 서울 8억 아파트 대출 한도는?")
    assert figure(result, "한도 (LTV 40%)").value == 32000
    assert figure(result, "한도 (DSR 40%)").value == pytest.approx(22546, abs=1)
    assert figure(result, "한도 (주담대 최대 한도 6억)").value == 60000
    assert figure(result, "대출 가능 금액").value == pytest.approx(22546, abs=1)
    assert "결정 요인: DSR 40%" in result.headline and not result.questions
    assert "3.00%p" in figure(result, "한도 (DSR 40%)").basis
    assert all(f.basis for f in result.figures)


def test_rules_not_in_force_are_not_applied() -> None:
    # 2024-05-01: 마포구 was not regulated (only 강남3구·용산), LTV 70%; stress DSR phase 1 = 0.375%p.
    b = Borrower(10000, 0, 50000, "capital", "no_home", 0.04, 30)
    limit = loan_limit(b, LENDING, date(2024, 5, 1))
    names = {c.name: c.limit_manwon for c in limit.constraints}
    assert names["LTV 70%"] == 35000 and len(names) == 2  # no 6억 cap before 2025-06-28
    assert limit.binding.name == "LTV 70%"
    assert "0.38%p" in next(c.basis for c in limit.constraints if c.name.startswith("DSR"))


def test_multi_home_in_the_capital_area_gets_nothing_after_june_2025() -> None:
    b = Borrower(20000, 0, 80000, "capital", "multi_home", 0.04, 30)
    assert loan_limit(b, LENDING, date(2025, 8, 1)).amount_manwon == 0
    assert loan_limit(b, LENDING, date(2025, 5, 1)).amount_manwon == 48000  # 60% before


def test_zero_income_gives_zero_and_says_why() -> None:
    result = simulate("소득 없음 대출 없음 무주택 부산 6억 아파트 대출 한도")
    assert figure(result, "대출 가능 금액").value == 0
    assert "소득이 없어" in result.headline
    assert any("소득이 없으면" in f for f in result.findings)


def test_missing_inputs_are_asked_not_assumed() -> None:
    result = simulate("대출 한도 얼마나 나와요?")
    assert {q.field for q in result.questions} == {
        "income_manwon", "price_manwon", "existing_debt_monthly_manwon", "house_count", "region",
    }  # fmt: skip
    assert not result.figures


def test_a_loan_amount_alone_gives_payments_without_questions() -> None:
    result = simulate("대출 3억 금리 4% 30년 만기 월 상환액")
    assert figure(result, "원리금균등 월 상환액").value == 143.2
    assert figure(result, "원금균등 첫 달 상환액").value == 183.3
    assert figure(result, "만기일시 월 상환액").value == 100.0
    assert not result.questions


def test_term_is_capped_in_the_capital_area() -> None:
    result = simulate("연봉 1억 기존 대출 없음 무주택 서울 10억 아파트 40년 만기 대출 한도")
    assert result.data["loan_simulation"]["term_years"] == 30
    assert any("30년 이내" in f for f in result.findings)


def test_a_named_programme_applies_its_cap_and_price_ceiling() -> None:
    result = simulate("디딤돌 대출 한도: 연봉 5천 기존 대출 없음 무주택 부산 6억 아파트")
    assert figure(result, "대출 가능 금액").value == 0  # 6억 > 디딤돌 주택가격 상한 5억
    cheaper = simulate("디딤돌 대출 한도: 연봉 5천 기존 대출 없음 무주택 부산 4억 아파트")
    assert figure(cheaper, "대출 가능 금액").value == 25000


def test_the_profile_takes_amounts_by_the_words_around_them() -> None:
    p = read_profile(read_case("연봉 6천에 기존 대출 월 50만원, 8억짜리 아파트 5억 대출"))
    assert (p.income_manwon, p.debt_monthly_manwon, p.price_manwon, p.loan_manwon) == (6000, 50, 80000, 50000)
    p = read_profile(
        read_case(
            "신용대출 3천, 순자산 3억, 보유세 연 300만원, 관리비 20만원, 연봉 8천 부채 없음 10억 아파트"
        )
    )
    assert (p.debt_balance_manwon, p.assets_manwon, p.holding_annual_manwon) == (3000, 30000, 300)
    assert p.price_manwon == 100000  # a fee is not a price, and a debt said to be absent names nothing


@pytest.mark.parametrize(
    ("query", "tool"),
    [
        ("연봉 6천이면 대출 한도 얼마?", "loan_simulation"),
        ("DSR 계산해줘", "loan_simulation"),
        ("LTV 몇 프로야", "loan_simulation"),
        ("3억 빌리면 월 상환액은?", "loan_simulation"),
        ("이 아파트 투자 수익률", "roi"),
        ("청년 주거 지원 정책 알려줘", "policy"),
        ("신혼부부 혜택 뭐 있어", "policy"),
    ],
)
def test_keyword_fallback_routes_to_the_new_tools(query: str, tool: str) -> None:
    step = StepWork("run-1", "a1", "분석", StepInputs(query=query), {}, 1)
    assert tool in choose_by_rules(ANALYSIS_TEAM, step).names


def test_lending_rules_agree_with_the_search_teams_loan_data() -> None:
    loans = json.loads((REPO_ROOT / "infra/seed/loans/loan_programs.json").read_text(encoding="utf-8"))
    entries = {e["id"]: e for e in loans["entries"]}
    dsr = next(x["value"] for x in entries["dsr_borrower"]["limits"] if x.get("applies_to") == "은행")
    assert LENDING.dsr.max_ratio * 100 == dsr
    for programme in LENDING.programme:
        limits = entries[programme.id]["limits"]
        assert programme.cap_manwon in [x["value"] for x in limits if x["label"] == "대출한도"]
        assert programme.price_cap_manwon == next(x["value"] for x in limits if x["label"] == "주택가격 상한")
    stress = next(x for x in entries["stress_dsr_3"]["limits"] if "2025-10-16" in (x.get("applies_to") or ""))
    assert LENDING.stress_for("regulated", date(2025, 10, 16)).add_on * 100 == pytest.approx(stress["value"])


def test_lending_rules_do_not_overlap_and_are_sane() -> None:
    for rule in [*LENDING.ltv, *LENDING.stress_dsr, *LENDING.mortgage_cap, *LENDING.term_cap]:
        assert rule.effective_to is None or rule.effective_from <= rule.effective_to
        assert rule.source.strip()
    days = [date(2023, 6, 1), date(2025, 7, 1), date(2025, 10, 16), date(2026, 6, 1)]
    for day in days:
        for zone in ("regulated", "capital", "other"):
            for buyer in ("first_home", "no_home", "one_home", "multi_home"):
                found = [r for r in LENDING.ltv if r.in_force(day) and zone in r.zones and buyer in r.buyers]
                assert len(found) <= 1, (day, zone, buyer)
    assert 0 < LENDING.reference_rate.rate < 0.1 and all(0 <= r.add_on < 0.05 for r in LENDING.stress_dsr)


async def test_the_service_runs_the_new_tools_together() -> None:
    from services.analysis.bootstrap import load_library
    from services.analysis.handlers import analyse

    query = "만 30세 연봉 6천 기존 대출 없음 무주택 서울 8억 아파트 대출 한도와 수익률, 지원 정책"
    focus = [F.LOAN_SIMULATION, F.ROI, F.POLICY]
    inputs = StepInputs(query=query, focus=focus, entities=extract_entities(query))
    out = await analyse(StepWork("run-1", "a1", "분석", inputs, {}, 1), load_library())
    ran = json.loads(out.tool_decisions[0].outcome)
    assert out.result.failed_tools == {} and all(tool["ok"] for tool in ran.values())
    assert {"loan_simulation", "roi", "policy"} <= set(out.result.data)
    assert any(f.startswith("대출 한도·상환:") for f in out.result.findings)


def test_without_income_the_collateral_side_answers_as_an_upper_bound() -> None:
    # 2026-11-25, 서울 (규제지역), 생애최초, 10억: LTV 70% = 70,000; 시가 15억 이하 최대 한도 6억 → 60,000.
    result = simulate("서울에 10억짜리 아파트 생애최초로 사려는데 주담대 최대 얼마까지 나와요?", "2026-11-25")
    assert result.headline.startswith("서울 10억원 주택(생애최초)의 주담대는 최대 6억원입니다")
    assert figure(result, "한도 (LTV 70%)").value == 70000
    assert figure(result, "대출 가능 금액").value == 60000
    assert "DSR" in result.headline  # the income can only lower it, and the answer says so
    assert {q.field for q in result.questions} == {"income_manwon", "existing_debt_monthly_manwon"}
    # 무주택, 20억: LTV 40% = 80,000; 시가 15억 초과 25억 이하 최대 한도 4억 → 40,000.
    dearer = simulate("무주택자인데 서울 20억 아파트 사면 대출 최대 얼마 받을 수 있어요?", "2026-11-25")
    assert figure(dearer, "대출 가능 금액").value == 40000 and "최대 4억원" in dearer.headline


def test_income_alone_gives_what_dsr_allows_a_year() -> None:
    # DSR 40% (lending.toml [dsr]): 6,000 × 0.40 = 2,400만원 a year, 200만원 a month.
    result = simulate("연봉 6천인데 DSR 40% 적용되면 1년에 원리금 얼마까지 갚을 수 있는 거예요?")
    assert figure(result, "DSR 연간 원리금 상한").value == 2400
    assert "최대 2,400만원(월 200만원)" in result.headline
    # a ratio the person names outranks the rule book's: 6,000 × 0.50 = 3,000; minus 월 50 × 12 = 2,400.
    theirs = simulate("연봉 6천, 기존 대출 월 50만원 갚는 중인데 DSR 50%면 1년 원리금 한도는?")
    assert figure(theirs, "DSR 연간 원리금 상한").value == 2400
    assert "DSR 50%" in figure(theirs, "DSR 연간 원리금 상한").basis


def test_buying_another_home_in_seoul_is_refused_whatever_the_price() -> None:
    # lending.toml: 수도권·규제지역 다주택(추가 구입) LTV 0% since 2025-06-28.
    result = simulate("집 한 채 이미 있는데 서울에 아파트 하나 더 사려고요. 주담대 받을 수 있나요?")
    assert "받을 수 없습니다" in result.headline and "LTV가 0%" in result.headline
    assert not result.questions  # no figure the person could add changes a 0% LTV
    assert figure(result, "LTV (서울, 다주택)").value == 0
    selling = simulate("1주택자인데 집 팔고 서울 8억 아파트로 갈아타려면 대출 얼마나 돼요?")
    assert figure(selling, "한도 (LTV 40%)").value == 32000  # 처분조건 1주택: 80,000 × 40%


def test_with_nothing_to_compute_the_answer_says_how_a_limit_is_set() -> None:
    result = simulate("LTV랑 DSR 차이가 뭐에요? 둘 다 걸리면 뭐가 대출한도를 정하는 거예요")
    assert "가장 작은 금액" in result.headline and "연소득" in result.headline
    assert result.questions and not result.figures
