"""What the person said before, kept: the facts folded from a session's earlier readings, merged into a
turn that does not state them (the turn's own words always win), and said to come from earlier."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from contracts.entities import QueryEntities
from contracts.steps import StepInputs, plan_inputs
from contracts.values import Intent, IntentType
from services.document.common.draft import turns_said
from services.housing.conversation import (
    corrected_by,
    demanded_of,
    facts_stated,
    noted,
    said_before,
    with_earlier_facts,
)
from services.housing.entities import extract_entities
from services.housing.money import format_manwon
from services.planner.followup import PriorTurn
from services.planner.plan_rules import plan_by_rules
from services.planner.remembered import Remembered, intent_remembering, steps_remembering
from services.platform.team import StepWork

pytestmark = pytest.mark.unit

MONEY = st.integers(min_value=1, max_value=500_000)


def test_a_lease_stated_in_one_turn_answers_a_raise_asked_in_the_next() -> None:
    facts = facts_stated([extract_entities("지금 반전세로 보증금 1억에 월세 40 내고 살아요")])
    asked = extract_entities("집주인이 월세를 50으로 올린대요, 이거 돼요?")
    merged, taken = with_earlier_facts(asked, facts)
    assert (merged.deposit_manwon, merged.monthly_rent_manwon) == (10000, 40)
    assert merged.requested_monthly_rent_manwon == 50
    assert taken == ["deposit_manwon", "monthly_rent_manwon"]
    assert said_before(merged, taken) == "앞서 말씀하신 보증금 1억원, 월세 40만원 기준입니다."


def test_facts_of_several_turns_add_up_and_a_search_budget_is_no_fact() -> None:
    facts = facts_stated(
        extract_entities(t)
        for t in (
            "저는 연봉 4천이고 무주택 세입자예요",
            "강남구 전세 3억 이하 아파트 찾아줘",
            "전세 3억6천 살고 있어요",
        )
    )
    assert facts == {"income_manwon": 4000, "house_count": 0, "deposit_manwon": 36000}


@given(old_deposit=MONEY, old_rent=MONEY, new_rent=MONEY)
def test_a_newer_turn_that_states_its_lease_replaces_the_whole_lease(old_deposit, old_rent, new_rent) -> None:
    """'보증금 1억에 월세 40', then '월세는 60이에요': the old deposit never sits beside the new rent."""
    facts = facts_stated(
        [
            QueryEntities(deposit_manwon=old_deposit, monthly_rent_manwon=old_rent),
            QueryEntities(monthly_rent_manwon=new_rent),
        ]
    )
    assert facts == {"monthly_rent_manwon": new_rent}


@given(earlier=MONEY, now=MONEY, income=MONEY)
def test_the_current_turn_always_wins(earlier, now, income) -> None:
    facts = {"deposit_manwon": earlier, "monthly_rent_manwon": 40, "income_manwon": income}
    merged, taken = with_earlier_facts(QueryEntities(deposit_manwon=now), facts)
    assert merged.deposit_manwon == now and merged.monthly_rent_manwon is None
    assert (merged.income_manwon, taken) == (income, ["income_manwon"])


@given(deposit=MONEY, income=MONEY)
def test_a_turn_that_states_everything_takes_nothing_from_before(deposit, income) -> None:
    current = QueryEntities(deposit_manwon=deposit, income_manwon=income, sale_price_manwon=90000)
    merged, taken = with_earlier_facts(
        current, {"deposit_manwon": 1, "income_manwon": 2, "sale_price_manwon": 3}
    )
    assert (merged, taken) == (current, [])


def test_every_step_of_the_plan_gets_the_facts_and_knows_they_came_from_before() -> None:
    facts = facts_stated([extract_entities("저 지금 송파구 아파트에 전세 3억6천 살고 있어요")])
    plan = plan_by_rules("재계약 때 집주인이 최대 얼마까지 올릴 수 있어요?")
    steps = steps_remembering(plan.steps, Remembered(facts))
    assert "check-rent-increase" in [s.step_id for s in steps]
    for step in steps:
        inputs = plan_inputs(step.inputs)
        assert (inputs.entities.deposit_manwon, inputs.remembered) == (36000, ["deposit_manwon"])
    intent = intent_remembering(plan.intent, Remembered(facts))
    assert facts_stated([intent.entities]) == facts  # the next turn finds them


def test_without_earlier_facts_the_plan_is_unchanged() -> None:
    plan = plan_by_rules("강남구 전세 시세 알려줘")
    assert steps_remembering(plan.steps, Remembered()) == plan.steps
    intent = Intent(type=IntentType.MARKET_INQUIRY, confidence=0.9)
    assert intent_remembering(intent, Remembered()).entities == QueryEntities()


def test_a_reply_typed_while_answering_is_read_after_the_query() -> None:
    inputs = StepInputs(
        query="임대차계약서 작성해 주세요. 보증금 3억",
        previous_query="송파구 전세 알아보고 있어요",
        replies=["주소는 서울 송파구 올림픽로 300이요", "아 그리고 보증금은 2억이에요"],
    )
    step = StepWork(
        run_id="r", step_id="lease", task="계약서", inputs=inputs, dependency_results={}, attempt=2
    )
    newest, before = turns_said(step)
    assert newest == "아 그리고 보증금은 2억이에요"
    assert before == [
        "송파구 전세 알아보고 있어요",
        "임대차계약서 작성해 주세요. 보증금 3억",
        "주소는 서울 송파구 올림픽로 300이요",
    ]


DEMANDED_AS = st.sampled_from(
    ["{}으로 올려달래요", "{}로 올린대요", "{} 달래요", "{}로 하재요", "{} 받겠대요"]
)  # fmt: skip


@given(st.integers(100, 50_000), st.integers(5, 300), st.floats(1.0, 1.6), DEMANDED_AS)
def test_a_figure_demanded_with_no_word_of_which_is_the_lease_figure_it_is_near(
    deposit: int, rent: int, raised: float, said: str
) -> None:
    """'80으로 올려달래요' after '보증금 1000에 70': a new rent of 80; near a deposit, a deposit."""
    earlier = QueryEntities(deposit_manwon=deposit, monthly_rent_manwon=rent)
    new_rent, new_deposit = round(rent * raised), round(deposit * raised)
    if new_rent * 3 < deposit:  # far enough apart that the nearer one is the one meant
        text = said.format(new_rent)
        asked = demanded_of(f"이번에 갱신하는데 {text}", earlier)
        assert asked == {"requested_monthly_rent_manwon": new_rent}
    if deposit >= rent * 3:
        text = said.format(new_deposit)
        assert demanded_of(text, earlier) == {"requested_deposit_manwon": new_deposit}


def test_a_demand_alone_after_a_lease_plans_the_raise_check_with_that_lease() -> None:
    stated = plan_by_rules("지금 월세 보증금 1000에 70 내고 있어요")
    previous = PriorTurn("지금 월세 보증금 1000에 70 내고 있어요", stated.intent)
    plan = plan_by_rules("이번에 갱신하는데 80으로 올려달래요", previous)
    (check,) = [s for s in plan.steps if s.step_id == "check-rent-increase"]
    entities = plan_inputs(check.inputs).entities
    assert (entities.deposit_manwon, entities.monthly_rent_manwon) == (1000, 70)
    assert entities.requested_monthly_rent_manwon == 80
    assert demanded_of("2년 더 살고 싶어요", QueryEntities(monthly_rent_manwon=70)) == {}


@pytest.mark.parametrize(
    ("said", "facts", "noted_text"),
    [
        ("아 그리고 저는 1주택자예요", {"house_count": 1}, "말씀하신 1주택을 기억해"),
        ("저 만 29살이고 무주택이에요", {"house_count": 0, "age": 29}, "말씀하신 무주택, 만 29세를 기억해"),
        (
            "결혼한 지 2년 됐고 아이 1명 있어요",
            {"marriage_years": 2, "children": 1},
            "혼인 2년차, 자녀 1명을",
        ),
    ],
)
def test_the_household_told_is_a_fact_kept_for_the_next_turn(
    said: str, facts: dict[str, int], noted_text: str
) -> None:
    reading = extract_entities(said)
    assert facts_stated([reading]) == facts
    assert noted_text in (noted(reading) or "")


def test_a_rule_about_ages_is_no_age_of_the_person() -> None:
    assert extract_entities("만 34세 이하 청년 전세대출 조건").age is None


def test_a_homes_count_said_earlier_reaches_the_tax_question() -> None:
    # "1주택자예요", then "9억 아파트 사면 취득세는?": the second turn is read with one home owned
    merged, taken = with_earlier_facts(extract_entities("9억 아파트 사면 취득세는?"), {"house_count": 1})
    assert merged.house_count == 1 and taken == ["house_count"]
    assert said_before(merged, taken) == "앞서 말씀하신 1주택 기준입니다."


def _said(manwon: int, form: int) -> str:
    """An amount as people write it: '2억 2,000만원', '2억 2천', '22000만원'."""
    eok, rest = divmod(manwon, 10_000)
    if form == 0 or not eok or rest % 1000:
        return format_manwon(manwon)
    if form == 1:
        return f"{eok}억 {rest // 1000}천" if rest else f"{eok}억"
    return f"{manwon}만원"


@given(
    deposit=st.integers(min_value=1_000, max_value=100_000).map(lambda d: d // 1000 * 1000),
    rent=st.sampled_from([None, 30, 60, 120]),
    change=st.sampled_from([0.8, 0.9, 1.1, 1.25]),
    form=st.integers(0, 2),
    opening=st.sampled_from(["아 아니다 ", "아 잘못 말했어요, ", "정정할게요 ", ""]),
    ending=st.sampled_from(["이에요", "이요", "입니다"]),
)
def test_a_bare_figure_told_after_the_lease_corrects_the_deposit_and_keeps_the_rent(
    deposit: int, rent: int | None, change: float, form: int, opening: str, ending: str
) -> None:
    """'전세 보증금 2억에 살아요', then '아 아니다 2억 2천이에요': the deposit is 2억 2천 from then on."""
    lease = QueryEntities(deposit_manwon=deposit, monthly_rent_manwon=rent)
    corrected = round(deposit * change / 1000) * 1000
    told = extract_entities(f"{opening}{_said(corrected, form)}{ending}")
    assert corrected_by(told, lease) == {"deposit_manwon": corrected} | (
        {"monthly_rent_manwon": rent} if rent else {}
    )


def test_a_correction_is_told_not_asked_and_the_next_turn_uses_it() -> None:
    stated = plan_by_rules("전세 보증금 2억에 살고 있어요")
    correction = plan_by_rules(
        "아 아니다 2억 2천이에요", PriorTurn("전세 보증금 2억에 살고 있어요", stated.intent)
    )
    assert (correction.intent.type, correction.steps) == (IntentType.UNCLEAR, [])
    assert (
        noted(correction.intent.entities)
        == "말씀하신 보증금 2억 2,000만원을 기억해 두고 다음 질문에 쓰겠습니다."
    )
    facts = facts_stated(p.intent.entities for p in (stated, correction))
    assert facts == {"deposit_manwon": 22_000}


def test_a_figure_with_its_own_name_or_without_a_fact_before_corrects_nothing() -> None:
    lease = QueryEntities(deposit_manwon=20_000)
    assert corrected_by(extract_entities("월세 60이에요"), lease) == {}  # names what it is: a fact of its own
    assert corrected_by(extract_entities("2억 2천이에요"), QueryEntities()) == {}
    assert corrected_by(extract_entities("2억이나 3억 정도요"), lease) == {}  # two figures: no correction
