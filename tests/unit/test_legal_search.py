"""Tokenisation, BM25 ranking, exact citations, filters and excerpts on a tiny corpus."""

import pytest

from services.search.legal.articles import Article
from services.search.legal.bm25 import BM25
from services.search.legal.excerpt import excerpt
from services.search.legal.search import LegalFilters, LegalIndex
from services.search.legal.tokens import Analyzer, bigrams

pytestmark = pytest.mark.unit


def art(aid: str, law: str, number: str, title: str, text: str, doc_type: str = "법률", **kw) -> Article:
    return Article(aid, law, doc_type, "2023-07-19", number, title, f"{number}({title}) {text}", **kw)


CORPUS = [
    art(
        "주택임대차보호법/제7조",
        "주택임대차보호법",
        "제7조",
        "차임 등의 증감청구권",
        "증액청구는 약정한 차임이나 보증금의 20분의 1의 금액을 초과하지 못한다.",
        is_tenant_protection=True,
    ),
    art(
        "주택임대차보호법/제6조의3",
        "주택임대차보호법",
        "제6조의3",
        "계약갱신 요구 등",
        "임차인이 계약갱신을 요구할 경우 임대인은 정당한 사유 없이 거절하지 못한다.",
        is_tenant_protection=True,
    ),
    art(
        "주택임대차보호법/제3조의4",
        "주택임대차보호법",
        "제3조의4",
        "삭제",
        "삭제 <2013. 8. 13.>",
        is_deleted=True,
    ),
    art(
        "주택임대차보호법_시행령/제8조",
        "주택임대차보호법 시행령",
        "제8조",
        "차임 등 증액청구의 기준",
        "증액청구는 약정한 차임 등의 20분의 1의 금액을 초과하지 못한다.",
        doc_type="시행령",
    ),
    art(
        "공인중개사법/제33조",
        "공인중개사법",
        "제33조",
        "금지행위",
        "개업공인중개사등은 중개대상물의 매매를 업으로 하는 행위를 하여서는 아니 된다.",
    ),
    art(
        "공인중개사법/제25조@시행2026-02-15",
        "공인중개사법",
        "제25조",
        "중개대상물의 확인ㆍ설명",
        "개업공인중개사는 중개대상물의 상태를 설명하여야 한다.",
    ),
]


@pytest.fixture(scope="module")
def index() -> LegalIndex:
    return LegalIndex(CORPUS, Analyzer())


def test_terms_are_morphemes_and_bigrams() -> None:
    terms = Analyzer().terms("임차인이 보증금을")
    assert {"m:임차인", "m:보증금"} <= set(terms)
    assert {"b:임차", "b:차인", "b:보증"} <= set(terms)
    assert not any(t in terms for t in ("m:이", "m:을"))  # particles carry no content


def test_bigrams_stay_inside_hangul_runs() -> None:
    assert bigrams("법 제7조(차임)") == ["b:법", "b:제", "b:조", "b:차임"]
    assert bigrams("") == []


def test_bm25_prefers_rarer_and_denser_matches() -> None:
    bm25 = BM25([["a", "b"], ["a", "a", "c"], ["c", "d", "e", "f", "g", "h"]])
    scores = bm25.scores(["a"])
    assert scores[1] > scores[0] > scores[2] == 0
    assert bm25.scores(["zzz"]).sum() == 0


def test_question_finds_the_article(index: LegalIndex) -> None:
    hits = index.search("차임 증액 청구 상한이 얼마인가요?")
    assert hits[0].article.article_id in {"주택임대차보호법/제7조", "주택임대차보호법_시행령/제8조"}
    assert "matched" in hits[0].why and hits[0].score > 0


def test_exact_citation_ranks_first_even_against_the_words(index: LegalIndex) -> None:
    hits = index.search("임대차보호법 6조의3 차임 증액 청구")
    assert hits[0].article.article_id == "주택임대차보호법/제6조의3"
    assert hits[0].exact_citation and "exact citation" in hits[0].why


def test_decree_citation_without_law(index: LegalIndex) -> None:
    assert index.search("시행령 제8조")[0].article.article_id == "주택임대차보호법_시행령/제8조"


def test_filters(index: LegalIndex) -> None:
    query = "증액청구 차임 보증금 중개대상물"
    only_decree = index.search(query, LegalFilters(doc_types=("시행령",)))
    assert {h.article.doc_type for h in only_decree} == {"시행령"}
    brokers = index.search(query, LegalFilters(laws=("중개사법",)))
    assert {h.article.law_title for h in brokers} == {"공인중개사법"}
    tenant = index.search(query, LegalFilters(tenant_protection_only=True))
    assert tenant and all(h.article.is_tenant_protection for h in tenant)
    family = index.search(query, LegalFilters(laws=("주택임대차보호법",)))
    assert "주택임대차보호법 시행령" in {h.article.law_title for h in family}


def test_deleted_and_future_versions_are_left_out(index: LegalIndex) -> None:
    ids = {h.article.article_id for h in index.search("삭제 중개대상물 상태 설명", limit=10)}
    assert "주택임대차보호법/제3조의4" not in ids
    assert "공인중개사법/제25조@시행2026-02-15" not in ids
    with_deleted = index.search("삭제", LegalFilters(include_deleted=True))
    assert "주택임대차보호법/제3조의4" in {h.article.article_id for h in with_deleted}


def test_nothing_matches(index: LegalIndex) -> None:
    assert index.search("") == []
    assert index.search("qwerty") == []


def test_excerpt_keeps_the_matching_paragraph_within_budget() -> None:
    body = "\n".join(
        [f"제1조(목적) {'가' * 100}", *(f"{n} {'나' * 150}" for n in "②③④"), "⑤ 보증금 반환 " + "다" * 50]
    )
    shown = excerpt(body, ["보증금"], limit=300)
    assert "⑤ 보증금 반환" in shown and shown.startswith("…") and len(shown) <= 302
    assert excerpt("짧은 조문", ["조문"]) == "짧은 조문"
