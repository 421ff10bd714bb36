"""The scenario scorer (tests/eval): how it reads figures and first sentences, and each expectation on
hand-written answers, one that meets it and one that does not."""

from __future__ import annotations

from typing import Any

import pytest

from tests.eval.expectations import CHECKS, Context, Conversation, Turn, check_conversation, scored_text
from tests.eval.reading import figures_near, find_figures, first_sentence

pytestmark = pytest.mark.unit


# ---------------------------------------------------------------- reading figures


@pytest.mark.parametrize(
    ("text", "manwon"),
    [
        ("3억 1,500만원", [31500]),
        ("3억1500만", [31500]),
        ("3억 5천", [35000]),  # after 억 a bare 천 is 천만
        ("1천5백만원", [1500]),
        ("5천500만원", [5500]),
        ("31,500만원", [31500]),
        ("1.5억", [15000]),
        ("75만 원", [75]),
        ("315,000,000원", [31500]),
        ("₩315,000,000", [31500]),
        ("26억 5천만원과 6억 9천", [265000, 69000]),
        ("주택임대차보호법 제7조", []),  # 조 is never money
        ("| 헬리오시티 | 69,000~265,000 |", []),  # no money unit, not read
    ],
)
def test_money_is_read_in_manwon(text: str, manwon: list[float]) -> None:
    assert [v for v, _, _ in find_figures(text, "manwon")] == manwon


@pytest.mark.parametrize(
    ("text", "unit", "values"),
    [
        ("요청하신 증액은 11.9%로 5 퍼센트를 넘습니다", "pct", [11.9, 5]),
        ("전월 대비 -2.5 % 하락, 10프로", "pct", [-2.5, 10]),
        ("56개 단지, 255건, 3곳, 12단지", "count", [56, 255, 3, 12]),
        ("6개월 뒤 건물 2건축", "count", []),
    ],
)
def test_percentages_and_counts(text: str, unit: str, values: list[float]) -> None:
    assert [v for v, _, _ in find_figures(text, unit)] == values


def test_with_keywords_only_figures_within_sixty_characters_count() -> None:
    near = "최대 4억 4,100만원까지 올릴 수 있습니다"
    far = "상한" + " " * 61 + "5억"
    assert figures_near(near, "manwon", ["최대"]) == [44100]
    assert figures_near(far, "manwon", ["상한"]) == []
    assert figures_near(far, "manwon", []) == [50000]


# ---------------------------------------------------------------- the first sentence


@pytest.mark.parametrize(
    ("content", "sentence"),
    [
        (
            "## 결론\n\n**5천만원 인상은 요구할 수 없습니다.** 상한은 5%입니다.",
            "5천만원 인상은 요구할 수 없습니다.",
        ),
        ("전세가율은 90.0%로 매우 위험합니다. 이유는", "전세가율은 90.0%로 매우 위험합니다."),
        ("- [제7조](http://x) 기준 최대 4억 4,100만원\n다음 줄", "제7조 기준 최대 4억 4,100만원"),
        ("---\n| 항목 | 값 |\n|---|---|\n| 최저 | 1억 |", "항목 값"),
        ("", ""),
    ],
)
def test_first_sentence_skips_headings_and_strips_markdown(content: str, sentence: str) -> None:
    assert first_sentence(content) == sentence


# ---------------------------------------------------------------- expectations on hand-written turns


def answered(
    content: str = "",
    *,
    query: str = "질문",
    kind: str = "answer",
    intent: str | None = "LEGAL_CONSULT",
    teams: tuple[str, ...] = ("search",),
    statuses: tuple[str, ...] = ("completed",),
    citations: tuple[dict[str, str], ...] = (),
    documents: tuple[str, ...] = (),
    document: tuple[int | None, str] | None = None,
    events: list[dict[str, Any]] | None = None,
    socket: int = 1,
) -> Turn:
    steps = [
        {"step_id": f"s{i}", "team": t, "depends_on": [], "status": "pending"} for i, t in enumerate(teams)
    ]
    plan = {"type": "plan_ready", "run_id": "r1", "intent": intent, "execution_steps": steps}
    todo = {"type": "todo_updated", "run_id": "r1", "execution_steps": [{"status": s} for s in statuses]}
    data = {
        "citations": list(citations),
        "documents": [{"artifact_id": d, "name": f"{d}.docx"} for d in documents],
    }
    final = {
        "type": "final_response",
        "run_id": "r1",
        "response": {"type": kind, "content": content, "data": data},
    }
    return Turn(
        query=query,
        messages=[plan, todo, final],
        run_id="r1",
        socket=socket,
        events=[{"type": "StepCompleted"}] if events is None else events,
        document=document,
    )


def asking(message: str, *labels: str) -> Turn:
    request = {
        "type": "input_request",
        "run_id": "r1",
        "message": message,
        "questions": [{"field": f"f{i}", "label": label} for i, label in enumerate(labels)],
    }
    return Turn(query="계약서 써줘", messages=[request], run_id="r1", socket=1, events=[])


def failures(name: str, want: Any, turn: Turn, *, earlier: list[Turn] = (), **session: Any) -> list[str]:
    conversation = Conversation([*earlier, turn], **session)
    return CHECKS[name](want, Context(turn, len(earlier), conversation))


CAP = "최대 4억 4,100만원까지입니다. 요청하신 5,000만원은 11.9%로 5% 상한을 넘습니다."
VERDICT_FIRST = "5천 인상은 요구할 수 없고 최대 4억 4,100만원입니다. 제7조 …"
ARTICLES_FIRST = (
    "## 관련 조문\n주택임대차보호법 제7조는 증액을 제한합니다. 최대 4억 4,100만원까지 요구할 수 없습니다."
)
DOCUMENT = answered(documents=("d1",), document=(200, "임차인 한지훈\n금 삼억 오천만원"))
FORM = asking("더 알려 주세요", "임차주택 소재지", "계약 기간")
CASES = [
    ("intent_in", ["LEGAL_CONSULT"], answered(), answered(intent="IRRELEVANT")),
    ("intent_not_in", ["IRRELEVANT"], answered(), answered(intent="IRRELEVANT")),
    ("teams_include", ["search"], answered(), answered(teams=("analysis",))),
    ("teams_exclude", ["document"], answered(), answered(teams=("document",))),
    ("min_steps", 1, answered(), answered(teams=())),
    ("max_steps", 0, answered(teams=()), answered()),
    ("response_type", "guidance", answered(kind="guidance"), answered()),
    ("must_mention", ["제7조"], answered("주택임대차보호법 제 7 조"), answered("제6조")),
    ("must_mention_any", [["5%", "20분의 1"]], answered("20분의 1"), answered("10%")),
    ("must_not_mention", ["postgres://"], answered("안내"), answered("postgres://db")),
    ("must_match", [r"제3조(?!의)"], answered("제3조①"), answered("제3조의2")),
    ("must_not_match", [r"<script>"], answered("안전"), answered("<script>alert(1)</script>")),
    ("mentions_at_least", {"n": 2, "of": ["엘스", "리센츠"]}, answered("엘스, 리센츠"), answered("리센츠")),
    ("numbers_within", {"manwon@최대 maximum": [44100, 44100]}, answered(CAP), answered("최대 4억 5천")),
    ("numbers_within", {"pct requested increase": [11.5, 12]}, answered(CAP), answered("5% 상한")),
    ("numbers_max", {"pct@전세가율": 90}, answered("전세가율 90%"), answered("전세가율 95%")),
    ("no_leak", True, answered("보증금은 돌려받을 수 있습니다"), answered("KeyError: 'deposit'")),
    ("no_leak", True, answered("안내"), answered('File "/app/x.py", line 3')),
    ("steps_completed", True, answered(), answered(statuses=("pending",), events=[])),
    ("no_step_started", True, answered(statuses=("pending",), events=[]), answered()),
    ("document_created", True, DOCUMENT, answered()),
    ("document_created", True, DOCUMENT, answered(documents=("d1",), document=(404, ""))),
    ("document_contains", ["한지훈", "삼억오천만"], DOCUMENT, answered(document=(200, "임차인 한지훈"))),
    ("no_document", True, answered(), DOCUMENT),
    ("asks_for", [["주소", "소재지"], ["기간"]], FORM, asking("더 알려 주세요", "임차주택 소재지")),
    ("events_readable", True, answered(), answered(events=[])),
    ("first_sentence", {"mention_any": [["없"]], "numbers_within": {"manwon": [44100, 44100]}},
     answered(VERDICT_FIRST), answered(ARTICLES_FIRST)),
]  # fmt: skip


@pytest.mark.parametrize(("name", "want", "meets", "misses"), CASES, ids=[c[0] for c in CASES])
def test_each_expectation_passes_a_right_answer_and_fails_a_wrong_one(
    name: str, want: Any, meets: Turn, misses: Turn
) -> None:
    assert failures(name, want, meets) == []
    assert failures(name, want, misses) != []


def test_a_figure_echoed_from_the_question_is_not_an_answer() -> None:
    query = "전세 4억2천인데 5천 더 올려달래요. 5천500만원이면요?"
    echo = answered("5천500만원 인상은 안 됩니다.", query=query)
    computed = answered("최대 4억 4,100만원입니다.", query=query)
    want = {"manwon": [5500, 44100]}
    assert failures("numbers_within", want, echo) != []
    assert failures("numbers_within", want, computed) == []


def test_the_scored_text_is_content_citations_and_documents_not_the_quoted_statute() -> None:
    cite = {
        "law": "주택임대차보호법",
        "article": "제7조",
        "title": "차임 등의 증감청구권",
        "text": "20분의 1",
    }
    turn = answered("인상은 5%까지입니다.", citations=(cite,), documents=("lease",))
    assert (
        scored_text(turn) == "인상은 5%까지입니다.\n주택임대차보호법 제7조 차임 등의 증감청구권\nlease.docx"
    )
    assert failures("must_mention", ["20분의 1"], turn) != []


def test_session_checks_read_the_whole_conversation() -> None:
    first, second = answered(intent="MARKET_INQUIRY"), answered("리센츠 전세", intent="MARKET_INQUIRY")
    second.run_id = "r2"
    assert failures("same_socket", True, second, earlier=[first]) == []
    second.socket = 2
    assert failures("same_socket", True, second, earlier=[first]) != []
    want = {"intent_same": True, "new": ["리센츠"]}
    assert failures("same_session_context", want, second, earlier=[first], session_runs=["r1", "r2"]) == []
    assert failures("same_session_context", want, second, earlier=[first], session_runs=["r2"]) != []
    assert failures("alive", True, second, healthy=True) == []
    assert failures("alive", True, second, healthy=False) != []


def test_a_scenario_checks_each_turn_and_its_expect_on_the_last() -> None:
    scenario = {
        "turns": [{"query": "a", "expect": {"response_type": "input_required"}}, {"query": "b"}],
        "expect": {"must_mention": ["완료"], "nonsense": 1},
    }
    unanswered = Turn(query="b", problems=["no answer within 90 s"])
    assert check_conversation(scenario, Conversation([asking("주소?", "주소"), answered("완료")])) == [
        "t2: unknown expectation nonsense"
    ]
    assert check_conversation(scenario, Conversation([answered(), unanswered])) == [
        "t1: response type answer not in ['input_required']",
        "t2: no answer within 90 s",
    ]
