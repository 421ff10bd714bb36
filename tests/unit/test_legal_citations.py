"""Exact citations in many written forms, and things that only look like one."""

import pytest

from services.search.legal.citations import CitationParser

pytestmark = pytest.mark.unit

TITLES = [
    "주택임대차보호법",
    "주택임대차보호법 시행령",
    "공인중개사법",
    "공인중개사법 시행규칙",
    "부동산 거래신고 등에 관한 법률",
    "부동산 거래신고 등에 관한 법률 시행령",
]
parser = CitationParser(TITLES)


@pytest.mark.parametrize(
    ("text", "law", "doc_type", "number"),
    [
        ("주택임대차보호법 제7조", "주택임대차보호법", None, "제7조"),
        ("임대차보호법 6조의3", "주택임대차보호법", None, "제6조의3"),
        ("주택임대차보호법제6조의 3에 따르면", "주택임대차보호법", None, "제6조의3"),
        ("주임법 제 3 조", "주택임대차보호법", None, "제3조"),
        ("주택임대차보호법 시행령 제8조", "주택임대차보호법 시행령", None, "제8조"),
        ("시행령 제8조는 뭐야", None, "시행령", "제8조"),
        ("시행규칙 제2조", None, "시행규칙", "제2조"),
        ("거래신고법 제3조", "부동산 거래신고 등에 관한 법률", None, "제3조"),
        ("부동산거래신고법 시행령 제3조", "부동산 거래신고 등에 관한 법률 시행령", None, "제3조"),
        ("중개사법 33조", "공인중개사법", None, "제33조"),
        ("제7조의2 내용", None, None, "제7조의2"),
    ],
)
def test_citation_forms(text: str, law: str | None, doc_type: str | None, number: str) -> None:
    (ref,) = parser.parse(text)
    assert (ref.law_title, ref.doc_type, ref.article_number) == (law, doc_type, number)


@pytest.mark.parametrize(
    "text",
    [
        "전세금 5% 인상 제한이 언제까지인가요?",
        "예산이 5조 원이라면",  # money, not an article
        "7조",  # a bare number + 조 with no law before it
        "상가건물 임대차보호법 제10조",  # a law the corpus lacks, not 주택임대차보호법
        "민법 제618조",
        "",
    ],
)
def test_not_citations(text: str) -> None:
    assert parser.parse(text) == []


def test_a_decree_the_corpus_lacks_is_not_resolved() -> None:
    assert parser.parse("공인중개사법 시행령 제5조") == []


def test_several_citations_in_order() -> None:
    refs = parser.parse("주택임대차보호법 제6조의3과 같은 법 시행령 제8조, 그리고 중개사법 제25조")
    assert [str(r) for r in refs] == ["주택임대차보호법 제6조의3", "시행령 제8조", "공인중개사법 제25조"]


def test_laws_named_resolves_short_names() -> None:
    assert parser.laws_named("임대차보호법과 거래신고법") == [
        "주택임대차보호법",
        "부동산 거래신고 등에 관한 법률",
    ]


def test_a_pasted_contract_numbering_its_clauses_cites_nothing() -> None:
    contract = "제1조 보증금은 3억원으로 한다. 제2조 기간은 2년. 제3조 임차인은 갱신요구권을 행사하지 않는다."
    assert parser.parse(contract) == []
    cited = parser.parse(f"주택임대차보호법 제10조에 비추어 봐줘: {contract}")
    assert [str(r) for r in cited] == ["주택임대차보호법 제10조"]
