"""Routing by the statutes' own vocabulary: a question about a rule reaches the legal index whichever law
it is about, and a question about prices or loans does not gain a legal step it does not need.

The questions here are not in the dev sets: they are of the same kinds, written for this test.
"""

from __future__ import annotations

import pytest

from contracts.values import IntentType
from services.housing.statute_match import bigrams, statute_headings
from services.planner.plan_rules import plan_by_rules

pytestmark = pytest.mark.unit

RULE_QUESTIONS = [
    "중개보조원은 몇 명까지 둘 수 있어요?",
    "공인중개사 등록이 취소되는 사유가 뭐예요",
    "아파트 관리비 장기수선충당금은 누가 내야 하나요",
    "입주자대표회의는 어떻게 구성되나요",
    "층간소음 때문에 윗집이랑 분쟁인데 어디에 신고하나요",
    "분양권 전매 제한 기간이 어떻게 되나요",
    "개별공시지가는 누가 결정하나요",
    "공동주택 공시가격에 이의신청하려면 어떻게 해요",
    "임대사업자가 임대료를 올릴 때 제한이 있나요",
    "등기 안 하면 과태료 있나요",
    "부동산 계약 후 신고는 며칠 안에 해야 해요?",
    "오피스텔 분양 광고에 뭘 꼭 적어야 하나요",
    "관리사무소장 자격 요건 알려줘",
    "주택조합 조합원 자격이 뭐예요",
    "임대차계약서에 표준계약서 사용이 의무인가요?",
    "공인중개사가 거래계약서를 작성할 때 지켜야 할 의무는 무엇인가요?",
]
NOT_LEGAL = [
    "강남구 아파트 전세 시세 알려주세요",
    "잠실역 근처 원룸 월세 50 이하로 찾아줘",
    "서초구 아파트 실거래가 추이 알려줘",
    "디딤돌 대출 금리 알려줘",
    "주택담보대출 금리 비교해주세요",
    "전세자금대출 한도가 얼마나 되나요?",
    "신혼부부 전세자금대출 조건 알려줘",
    "대치동 은마아파트 매매 호가",
]


@pytest.mark.parametrize("question", RULE_QUESTIONS)
def test_a_question_about_a_rule_is_planned_with_a_legal_search(question: str) -> None:
    plan = plan_by_rules(question)
    assert plan.intent.type is IntentType.LEGAL_CONSULT, plan.intent
    assert [s.step_id for s in plan.steps] == ["search-legal"]


@pytest.mark.parametrize("question", NOT_LEGAL)
def test_a_price_or_loan_question_gains_no_legal_step(question: str) -> None:
    plan = plan_by_rules(question)
    assert plan.intent.type in (IntentType.MARKET_INQUIRY, IntentType.LOAN_CONSULT)
    assert "search-legal" not in [s.step_id for s in plan.steps]


def test_a_document_asked_for_by_name_stays_a_document_however_much_law_speaks_of_it() -> None:
    plan = plan_by_rules("임대차계약서 작성해주세요")
    assert plan.intent.type is IntentType.CONTRACT_CREATION and plan.intent.confidence >= 0.85


def test_small_talk_still_needs_no_plan() -> None:
    for text in ("안녕하세요", "고마워요", "점심 메뉴 추천해줘"):
        plan = plan_by_rules(text)
        assert plan.intent.type is IntentType.IRRELEVANT and plan.steps == []


def test_the_best_heading_names_the_law_the_question_is_about() -> None:
    headings = statute_headings()
    assert headings.match("공인중개사 자격시험에 응시하려면").law.startswith("공인중개사")
    assert headings.match("표준지공시지가는 언제 공시되나요").law.startswith("부동산 가격공시")
    assert headings.match("안녕하세요").score < headings.match("층간소음 기준이 뭐예요").score


def test_bigrams_stay_inside_words_and_repeat_once() -> None:
    assert bigrams("공시지가 공시") == ["공시", "시지", "지가"]


@pytest.mark.parametrize(
    ("question", "step"),
    [
        ("서울 보증금 1억5천 원룸인데 최우선변제 얼마까지 받아요?", "compute-priority-repayment"),
        ("소액임차인이면 보증금 얼마나 보호돼요? 경기도 용인 보증금 1억", "compute-priority-repayment"),
        ("원룸 보증금 500에 월세 40인데 복비는 뭘 기준으로 계산해요?", "compute-brokerage-fee"),
        ("오피스텔 월세 중개수수료 거래금액 어떻게 잡나요 보증금 1000 월세 70", "compute-brokerage-fee"),
    ],
)
def test_a_figure_the_law_defines_is_computed_and_no_market_search_stands_in_for_it(
    question: str, step: str
) -> None:
    steps = [s.step_id for s in plan_by_rules(question).steps]
    assert step in steps and "search-legal" in steps
    assert not {"search-market", "analyze-market"} & set(steps)


@pytest.mark.parametrize(
    "question",
    [
        "전세 2억에 계약했는데 전월세 신고 꼭 해야되나요? 언제까지 해야 돼요?",  # 신고 is a noun, not …하고
        "복비 말고 중개사가 수고비로 50만원 따로 더 달래요.. 줘야 되는 건가요?",
    ],
)
def test_a_subject_the_statute_answers_book_answers_is_a_legal_question(question: str) -> None:
    plan = plan_by_rules(question)
    assert plan.intent.type is IntentType.LEGAL_CONSULT
    assert "search-legal" in [s.step_id for s in plan.steps]


def test_the_sentence_that_asks_decides_over_the_one_that_tells() -> None:
    # The first sentence tells the case (근저당, a risk word); the second asks a question of law.
    told_then_asked = "중개사가 근저당 얘기를 일부러 안 하고 계약시켰어요. 이거 공인중개사법 위반 아닌가요?"
    assert plan_by_rules(told_then_asked).intent.type is IntentType.LEGAL_CONSULT
    # Within one sentence the first task asked leads, as before.
    tasks = plan_by_rules("강남구 아파트 시세 확인하고 대출 가능 금액 계산해줘")
    assert tasks.intent.type is IntentType.MARKET_INQUIRY


def test_a_market_question_that_mentions_more_listings_stays_a_market_question() -> None:
    assert plan_by_rules("강남 부동산 매물 추가로 더 보여줘").intent.type is IntentType.MARKET_INQUIRY
