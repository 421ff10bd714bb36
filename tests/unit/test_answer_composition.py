"""What a person reads first: the answer's first sentence answers, the articles behind it are quoted at the
paragraph that says it (three at most, the rest named), and nothing is said twice."""

from __future__ import annotations

import json

import pytest

from contracts import new_envelope
from contracts.gateway import QueryReceived
from contracts.planner import PlanReady
from contracts.supervisor import StepStarted
from contracts.teams import StepCompleted
from contracts.values import Intent, IntentType, PlanStep, Team
from services.housing.statutes import CORPUS, asked_for, quote
from services.supervisor.response import compose
from services.supervisor.run import fold

pytestmark = pytest.mark.unit

LEGAL = PlanStep(step_id="search-legal", team=Team.SEARCH, task="조항 검색", inputs={"focus": ["legal"]})
MARKET = PlanStep(step_id="search-market", team=Team.SEARCH, task="시세 조회", inputs={"focus": ["market"]})
CHECK = PlanStep(step_id="check", team=Team.ANALYSIS, task="증액 한도 계산", depends_on=["search-legal"])
CAVEAT = "호가는 2025-10-08 매물 스냅샷 기준입니다."


def article(number: str, paragraph: int | None = None, said: str | None = None) -> dict:
    return {
        "article_id": f"주택임대차보호법/{number}",
        "law": "주택임대차보호법",
        "article": number,
        "paragraph": paragraph,
        "quote": said,
    }


def answer_of(intent: IntentType, *done: tuple[PlanStep, dict]) -> str:
    events = [
        QueryReceived(run_id="r", query="질문"),
        PlanReady(
            run_id="r", intent=Intent(type=intent, confidence=0.9), steps=[s for s, _ in done], mode="rules"
        ),
    ]
    for s, r in done:
        events += [
            StepStarted(run_id="r", step_id=s.step_id, team=s.team, task=s.task, timeout_s=10),
            StepCompleted(run_id="r", step_id=s.step_id, team=s.team, summary="ok", result=r, duration_ms=1),
        ]
    return compose(fold("r", [new_envelope(e, stream_id="run-r", correlation_id="r") for e in events])).answer


def test_the_computed_verdict_leads_and_the_articles_follow_quoted_at_their_paragraph() -> None:
    legal = {"headline": "주택임대차보호법 제7조②에 따르면 “증액청구는 20분의 1을 초과하지 못한다.”",
             "citations": [article("제7조", 2, "증액청구는 20분의 1을 초과하지 못한다.")]}  # fmt: skip
    verdict = "4,000만원 인상(13.3%)은 상한 5%를 넘어 요구할 수 없습니다."
    cap = {"label": "법정 상한 보증금", "value": 31500, "unit": "만원"}
    check = {"headline": verdict, "findings": ["1년 이내 재증액 불가"], "figures": [cap]}
    answer = answer_of(IntentType.LEGAL_CONSULT, (LEGAL, legal), (CHECK, check))
    assert answer.startswith(verdict)
    assert "주택임대차보호법 제7조②: “증액청구는 20분의 1을 초과하지 못한다.”" in answer
    assert answer.count("20분의 1을 초과하지 못한다") == 1  # the search's headline is the quote below


def test_at_most_three_articles_are_quoted_and_two_more_named() -> None:
    numbers = ["제3조", "제4조", "제6조", "제6조의3", "제7조", "제8조"]
    legal = {"headline": "제3조에 따르면", "citations": [article(n, 1, f"{n}의 문장") for n in numbers]}
    answer = answer_of(IntentType.LEGAL_CONSULT, (LEGAL, legal))
    assert sum(f"{n}①" in answer for n in numbers) == 5
    assert [n for n in numbers if f"“{n}의 문장”" in answer] == ["제3조", "제4조", "제6조"]
    assert "제8조" not in answer


def test_a_line_two_steps_both_produced_is_said_once() -> None:
    market = {"headline": "강남구 전세 중앙값 10억원", "findings": [CAVEAT]}
    legal = {"headline": "제7조에 따르면", "findings": [CAVEAT]}
    answer = answer_of(IntentType.MARKET_INQUIRY, (LEGAL, legal), (MARKET, market))
    assert answer.startswith("강남구 전세 중앙값 10억원") and answer.count(CAVEAT) == 1


def test_a_quote_is_the_sentence_of_the_article_that_speaks_of_the_question() -> None:
    rows = (json.loads(line) for line in CORPUS.open(encoding="utf-8"))
    text = {row["id"]: row["text"] for row in rows}
    said = quote(text["주택임대차보호법/제7조"], ["증액", "보증금", "초과"])
    assert said.paragraph == 2
    assert said.text == "제1항에 따른 증액청구는 약정한 차임이나 보증금의 20분의 1의 금액을 초과하지 못한다."
    listed = quote(text["부동산_거래신고_등에_관한_법률/제3조"], ["신고", "매매계약"])
    assert "30일 이내" in listed.text and listed.text.endswith("… 부동산의 매매계약")  # the rule and its item
    assert len(quote(text["공인중개사법_시행규칙/제20조"], ["거래금액"], limit=120).text) <= 120


@pytest.mark.parametrize(
    ("question", "gives", "not_gives"),
    [
        ("표준지공시지가 이의신청 기간은 언제까지인가요?", "30일 이내", "그 밖의 사항"),
        ("하자보수는 몇 년 안에 청구해야 하나요?", "10년간", "청구"),
        ("분양신고 없이 분양하면 어떤 처벌을 받나요?", "3년 이하의 징역", "분양신고"),
        ("조정위원회는 몇 명으로 구성되나요?", "5명 이상", "위원"),
        ("중개보수는 얼마까지 받을 수 있나요?", "500만원", "중개보수"),
    ],
)
def test_what_a_question_asks_for_is_read_and_recognised_in_a_sentence(
    question: str, gives: str, not_gives: str
) -> None:
    wanted = asked_for(question)
    assert wanted is not None and wanted.search(gives) and not wanted.search(not_gives)


def test_a_question_asking_for_no_figure_asks_for_nothing_in_particular() -> None:
    assert asked_for("임차권등기명령은 어떤 경우에 신청하나요?") is None


def test_asked_for_a_figure_the_quote_is_the_sentence_that_gives_it_in_any_paragraph() -> None:
    rows = (json.loads(line) for line in CORPUS.open(encoding="utf-8"))
    text = {row["id"]: row["text"] for row in rows}
    words = ["주택", "임대차", "분쟁", "조정", "위원회", "구성"]
    # Paragraph ③ (a long list of who may sit) says most about the words; ① gives the headcount.
    plain = quote(text["주택임대차보호법/제16조"], words)
    asked = quote(text["주택임대차보호법/제16조"], words, wanted=asked_for("몇 명으로 구성되나요?"))
    assert plain.paragraph == 3
    assert asked.paragraph == 1 and "5명 이상 30명 이하" in asked.text


def test_an_analysis_that_computed_nothing_does_not_lead() -> None:
    market = {"headline": "강남구 전세 호가는 10곳 중 3억원부터 9억원까지입니다."}
    nothing = {"headline": "비교할 단지가 0곳뿐이라 적정성을 판단하지 않았습니다."}
    answer = answer_of(IntentType.MARKET_INQUIRY, (MARKET, market), (CHECK, nothing))
    assert answer.startswith("강남구 전세 호가는 10곳 중")


def test_a_contract_to_review_is_answered_by_its_review_before_figures_computed_beside_it() -> None:
    review_step = PlanStep(
        step_id="review", team=Team.ANALYSIS, task="계약서 검토", inputs={"focus": ["contract_review"]}
    )
    review = {
        "headline": "임차인에게 불리하거나 위험한 부분이 2건(심각 1건) 있습니다.",
        "findings": ["[심각] 계약갱신요구권 포기: 무효입니다(제10조)."],
    }
    increase = {
        "headline": "4,000만원 인상(10.0%)은 법정 상한 5%를 넘어 요구할 수 없습니다.",
        "figures": [{"label": "법정 상한 보증금", "value": 42000, "unit": "만원"}],
    }
    answer = answer_of(IntentType.CONTRACT_REVIEW, (CHECK, increase), (review_step, review))
    assert answer.startswith("임차인에게 불리하거나 위험한 부분이 2건")
    assert "4,000만원 인상(10.0%)" in answer  # the computed figure still follows


def test_a_verdict_on_what_was_asked_leads_before_a_figure_computed_beside_it() -> None:
    """ "신혼부부인데 버팀목 되나요?": whether the named programme is open leads; the DSR cap follows."""
    loans = PlanStep(step_id="search-loan", team=Team.SEARCH, task="대출 조회", inputs={"focus": ["loan"]})
    simulate = PlanStep(step_id="simulate-loan", team=Team.ANALYSIS, task="대출 계산")
    verdict = "신혼부부 전용 버팀목 전세자금대출은 말씀하신 내용으로 막히는 요건은 없습니다."
    dsr = {"headline": "DSR 원리금 상한은 2,600만원입니다.", "figures": [{"label": "DSR", "value": 2600}]}
    answer = answer_of(
        IntentType.LOAN_CONSULT, (loans, {"headline": verdict, "verdict": True}), (simulate, dsr)
    )
    assert answer.startswith(verdict)
    plain = answer_of(IntentType.LOAN_CONSULT, (loans, {"headline": verdict}), (simulate, dsr))
    assert plain.startswith("DSR")  # without the mark, the computed figure leads as before


def test_the_document_asked_for_leads_before_the_articles_searched_beside_it() -> None:
    """'월세 계약서 작성해줘 …': the contract written answers; a legal search beside it does not lead."""
    draft = PlanStep(step_id="draft-lease", team=Team.DOCUMENT, task="작성", depends_on=["search-legal"])
    legal = {"headline": "민간임대주택법 시행령 제35조①에 따르면 …", "citations": [article("제6조", 1)]}
    written = "주택임대차 표준계약서를 작성했습니다: 보증금 금 천만원정(₩10,000,000)"
    document = {"artifact_id": "d1", "name": "주택임대차계약서.docx", "media_type": "application/docx",
                "sha256": "0" * 64}  # fmt: skip
    made = {"headline": written, "documents": [document]}
    answer = answer_of(IntentType.CONTRACT_CREATION, (LEGAL, legal), (draft, made))
    assert answer.startswith(written)
