"""Follow-ups keep the previous question and replace only what the new text names."""

from __future__ import annotations

import pytest

from contracts.entities import DealType, QueryEntities
from contracts.values import IntentType
from services.planner.followup import PriorTurn, is_follow_up, merge_entities
from services.planner.plan_rules import plan_by_rules

pytestmark = pytest.mark.unit
I = IntentType  # noqa: E741

FIRST = "강남구 역삼동 아파트 전세 시세와 위험도 분석해줘"


def turn(text: str) -> PriorTurn:
    plan = plan_by_rules(text)
    return PriorTurn(query=plan.context_query, intent=plan.intent)


def test_a_new_district_replaces_every_place_and_keeps_the_rest() -> None:
    before = turn(FIRST)
    plan = plan_by_rules("그럼 서초구는?", before)
    entities = plan.steps[0].inputs["entities"]
    assert plan.intent.type is before.intent.type
    assert entities["gu"] == ["서초구"] and "dong" not in entities  # 역삼동 went with 강남구
    assert entities["property_types"] == ["apartment"] and entities["deal_type"] == "jeonse"
    assert [s.step_id for s in plan.steps] == [s.step_id for s in plan_by_rules(FIRST).steps]
    assert plan.steps[0].task.startswith("서초구 아파트 전세")
    assert plan.steps[0].inputs["query"] == "그럼 서초구는?"
    assert plan.steps[0].inputs["previous_query"] == FIRST
    assert plan.context_query == FIRST


@pytest.mark.parametrize(
    ("text", "field", "value"),
    [
        ("송파구는요?", "gu", ["송파구"]),
        ("월세로는?", "deal_type", "monthly"),
        ("30평대로 다시", "size_text", "30평대"),
        ("잠실역 근처는 어때요?", "stations", ["잠실역"]),
    ],
)
def test_short_follow_ups_change_one_thing(text: str, field: str, value: object) -> None:
    plan = plan_by_rules(text, turn(FIRST))
    assert plan.intent.type is I.RISK_ANALYSIS or plan.intent.type is turn(FIRST).intent.type
    assert getattr(plan.intent.entities, field) == value
    assert plan.intent.confidence < turn(FIRST).intent.confidence  # a continued reading is a little less sure


def test_a_full_new_question_is_not_a_follow_up() -> None:
    before = turn(FIRST)
    assert not is_follow_up("서초구 아파트 매매 시세 알려줘", before)
    plan = plan_by_rules("LTV 비율이 뭔가요?", before)
    assert plan.intent.type is I.LOAN_CONSULT and plan.context_query == "LTV 비율이 뭔가요?"


def test_no_follow_up_without_a_plannable_previous_question() -> None:
    assert not is_follow_up("서초구는?", None)
    assert not is_follow_up("서초구는?", turn("안녕"))
    assert plan_by_rules("서초구는?").intent.type is I.UNCLEAR


def test_a_follow_up_must_name_something() -> None:
    assert not is_follow_up("그럼?", turn(FIRST))
    assert not is_follow_up("", turn(FIRST))
    assert not is_follow_up("🙂", turn(FIRST))


def test_chains_of_follow_ups_keep_the_original_question() -> None:
    first = turn(FIRST)
    second = plan_by_rules("송파구는요?", first)
    third = plan_by_rules("월세로는?", PriorTurn(second.context_query, second.intent))
    assert third.intent.entities.gu == ["송파구"] and third.intent.entities.deal_type == "monthly"
    assert [s.step_id for s in third.steps] == [s.step_id for s in plan_by_rules(FIRST).steps]


def test_a_follow_up_asking_for_more_adds_its_steps() -> None:
    plan = plan_by_rules("그럼 대출 한도도요?", turn("강남구 아파트 매매 시세 알려줘"))
    assert plan.intent.type is I.MARKET_INQUIRY
    assert {"search-market", "search-loan"} <= {s.step_id for s in plan.steps}


def test_merge_replaces_whole_groups() -> None:
    before = QueryEntities(gu=["강남구"], dong=["역삼동"], deal_type=DealType.JEONSE, price_max_manwon=50000)
    after = merge_entities(before, QueryEntities(stations=["잠실역"], price_min_manwon=30000))
    assert (after.gu, after.dong, after.stations) == ([], [], ["잠실역"])
    assert (after.price_min_manwon, after.price_max_manwon) == (30000, None)  # the price band is one group
    assert after.deal_type is DealType.JEONSE


def test_a_complex_of_the_listings_named_alone_continues_the_question() -> None:
    # "잠실엘스 전세 호가 범위" then "그럼 바로 옆 리센츠는요?": 리센츠 is a complex of the data, so the
    # second turn asks the first turn's question about it (its search reads the new text's name).
    before = turn("잠실엘스 전세 호가 범위 알려주세요")
    plan = plan_by_rules("그럼 바로 옆 리센츠는요?", before)
    assert plan.intent.type is before.intent.type is I.MARKET_INQUIRY
    assert plan.intent.entities.deal_type == "jeonse"
    assert plan.steps[0].inputs["query"] == "그럼 바로 옆 리센츠는요?"
    assert not is_follow_up("그럼 바로 옆 단지는요?", before)  # no name: nothing to continue with


@pytest.mark.parametrize("text", ["수원이면요?", "부산은요?", "그럼 인천이라면요?", "수원시면요?"])
def test_a_region_outside_seoul_named_alone_continues_the_question(text: str) -> None:
    before = turn("서울 빌라 보증금 1억 4천인데 경매 넘어가면 최우선변제 얼마 받아요?")
    assert is_follow_up(text, before)
    plan = plan_by_rules(text, before)
    assert plan.intent.type is before.intent.type
    assert "compute-priority-repayment" in [s.step_id for s in plan.steps]


def test_a_follow_up_asking_for_a_task_by_name_is_that_task_with_the_question_before_as_context() -> None:
    before = turn("전세 계약할 때 특약에 뭘 넣어야 안전해요?")
    assert before.intent.type is I.LEGAL_CONSULT
    plan = plan_by_rules("그럼 전세 계약서 써줘", before)
    assert plan.intent.type is I.CONTRACT_CREATION
    assert [s.step_id for s in plan.steps] == ["draft-lease"]
    assert plan.steps[0].inputs["previous_query"] == before.query


@pytest.mark.parametrize(
    "text", ["거기 세대수는 몇 세대예요?", "거기 몇 년에 지어졌어요?", "그 단지 지하철역까지 몇 분이에요?"]
)
def test_a_question_pointing_back_asks_about_the_complex_named_before(text: str) -> None:
    """'잠실엘스 매매 시세 알려줘', then '거기 세대수는요?': the listings hold the answer, not the statutes
    (세대수 is a word of 주택법 too)."""
    before = turn("잠실엘스 매매 시세 알려줘")
    plan = plan_by_rules(text, before)
    assert plan.intent.type is I.MARKET_INQUIRY
    assert plan.intent.entities.complexes == ["잠실엘스"]
    assert [s.step_id for s in plan.steps] == ["search-market"]


def test_what_the_listings_record_of_a_complex_named_is_a_market_question() -> None:
    assert plan_by_rules("래미안퍼스티지 세대수 몇이에요?").intent.type is I.MARKET_INQUIRY
    assert plan_by_rules("세대수 증가형 리모델링은 언제 허가받아요?").intent.type is I.LEGAL_CONSULT


def test_facts_told_after_a_question_that_reckons_with_them_answer_it_again() -> None:
    """A loan's limit said what it lacked; '신용대출 월 40씩 갚고 있고 집은 없어요' gives it, and the same
    question is answered again with it (before, a new run only noted the facts)."""
    before = turn("마포 9억 아파트 사려고 해요 연봉 8천인데 대출 얼마나 나와요?")
    plan = plan_by_rules("신용대출 월 40씩 갚고 있고 집은 없어요", before)
    assert plan.intent.type is I.LOAN_CONSULT
    assert "simulate-loan" in [s.step_id for s in plan.steps]
    assert (plan.intent.entities.income_manwon, plan.intent.entities.house_count) == (8000, 0)
    raise_asked = turn("월세 올려달라는데 얼마까지 돼요?")
    lease = plan_by_rules("지금 보증금 1000에 월세 50이에요", raise_asked)
    assert "check-rent-increase" in [s.step_id for s in lease.steps]


def test_facts_a_question_does_not_reckon_with_are_only_noted() -> None:
    plan = plan_by_rules("저 연봉 5천이에요", turn("강남구 아파트 전세 시세 알려줘"))
    assert (plan.intent.type, plan.steps) == (I.UNCLEAR, [])
