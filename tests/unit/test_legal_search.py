"""Tokenisation, stored terms, BM25 ranking, dense fusion, exact citations, filters, excerpts and the
published hits, on a tiny corpus."""

import asyncio
import contextlib
import dataclasses
from datetime import date
from types import SimpleNamespace

import numpy as np
import pytest

from contracts.search import SearchData
from contracts.steps import StepInputs
from services.housing.entities import extract_entities
from services.housing.statute_answers import answer_for
from services.platform.team import StepWork
from services.search.legal.articles import Article
from services.search.legal.bm25 import BM25
from services.search.legal.dense import (
    DenseConfig,
    DenseIndex,
    EndpointEmbedder,
    ShippedVectors,
    corpus_vectors,
    unit_rows,
)
from services.search.legal.excerpt import excerpt
from services.search.legal.search import LegalFilters, LegalIndex
from services.search.legal.terms import TermsMemo, analyse_texts, corpus_terms, text_hash
from services.search.legal.tokens import Analyzer, analysis_version, bigrams, shared_kiwi
from services.search.legal.tool import legal_result, legal_search, verdict_on_figures
from tests.fake_openai import fake_embedding

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


class CountingKiwi:
    """The real Kiwi, counting the texts it is asked to analyse."""

    def __init__(self) -> None:
        self.texts: list[str] = []

    def tokenize(self, texts):
        self.texts.extend([texts] if isinstance(texts, str) else texts)
        return shared_kiwi().tokenize(texts)


def test_an_index_from_stored_terms_analyses_only_questions(tmp_path) -> None:
    kiwi = CountingKiwi()
    terms = corpus_terms(CORPUS, Analyzer(), TermsMemo(tmp_path))
    index = LegalIndex(CORPUS, Analyzer(kiwi), terms=terms)
    assert kiwi.texts == [] and index.analysed_at_build == 0
    assert index.search("차임 증액 청구 상한")[0].article.law_title.startswith("주택임대차보호법")
    assert len(kiwi.texts) == 1  # the question


def test_missing_or_partial_terms_are_analysed_at_build() -> None:
    terms = corpus_terms(CORPUS, Analyzer())
    terms["body"][0] = None
    kiwi = CountingKiwi()
    index = LegalIndex(CORPUS, Analyzer(kiwi), terms=terms)
    assert index.analysed_at_build == 1 and kiwi.texts == [CORPUS[0].body]
    assert [h.article.article_id for h in index.search("차임 증액")] == [
        h.article.article_id for h in LegalIndex(CORPUS, Analyzer()).search("차임 증액")
    ]


def test_terms_memo_analyses_a_text_once_per_analyser_version(tmp_path) -> None:
    memo, kiwi = TermsMemo(tmp_path), CountingKiwi()
    first = analyse_texts(["임차인이 보증금을", "임대인"], Analyzer(kiwi), memo)
    again = analyse_texts(["임대인", "임차인이 보증금을"], Analyzer(kiwi), memo)
    assert kiwi.texts == ["임차인이 보증금을", "임대인"] and again == first[::-1]
    assert Analyzer(bigrams=False).version != Analyzer().version  # another version: its own entries
    assert memo.load(Analyzer(bigrams=False).version) == {}
    memo.path(Analyzer().version).write_bytes(b"not gzip")  # a damaged memo is only a slower start
    assert analyse_texts(["임대인"], Analyzer(), memo) == [first[1]]


def test_analyser_version_is_known_without_loading_kiwi() -> None:
    version = Analyzer(kiwi=None).version
    assert version.startswith("kiwipiepy-") and "+rules-" in version and version == analysis_version()


class VectorsOf:
    """An embedder of our own port: fake_openai's deterministic vectors, without HTTP."""

    model = "fake"

    def __init__(self, fail: bool = False) -> None:
        self.fail, self.asked = fail, []

    async def query(self, text: str) -> np.ndarray | None:
        self.asked.append(text)
        return None if self.fail else unit_rows([fake_embedding(text)])[0]

    async def passages(self, texts: list[str]) -> np.ndarray | None:
        self.asked.extend(texts)
        return None if self.fail else unit_rows([fake_embedding(t) for t in texts])


def dense_for(corpus, embedder) -> DenseIndex:
    config = DenseConfig()
    return DenseIndex(unit_rows([fake_embedding(config.passage(a)) for a in corpus]), embedder, config)


async def test_dense_ranking_is_fused_with_the_lexical_one(index: LegalIndex) -> None:
    fused = LegalIndex(CORPUS, Analyzer())
    fused.attach_dense(dense_for(CORPUS, VectorsOf()))
    query = "개업공인중개사 중개대상물 설명"
    vector = await fused.query_vector(query)
    assert vector is not None and abs(float(np.linalg.norm(vector)) - 1) < 1e-5
    hits = fused.search(query, limit=3, query_vector=vector)
    assert hits[0].article.article_id == "공인중개사법/제33조" and "semantic rank" in hits[0].why
    lexical = [h.article.article_id for h in index.search(query, limit=3)]
    assert [h.article.article_id for h in fused.search(query, limit=3)] == lexical  # no vector: lexical
    # Filters and exact citations hold under fusion too.
    cited = fused.search("임대차보호법 6조의3", LegalFilters(doc_types=("법률",)), query_vector=vector)
    assert cited[0].exact_citation and {h.article.doc_type for h in cited} == {"법률"}


async def test_a_failing_or_slow_embedder_leaves_the_question_lexical() -> None:
    fused = LegalIndex(CORPUS, Analyzer())
    fused.attach_dense(dense_for(CORPUS, VectorsOf(fail=True)))
    assert await fused.query_vector("보증금") is None

    class Slow(VectorsOf):
        async def query(self, text):
            await asyncio.sleep(5)

    slow = DenseIndex(np.eye(2, dtype=np.float32), Slow(), DenseConfig(query_timeout_s=0.05))
    assert await slow.query_vector("보증금") is None
    with pytest.raises(ValueError, match="2 vectors for 6 articles"):
        fused.attach_dense(slow)


async def test_endpoint_embedder_asks_with_the_e5_prefixes() -> None:
    class Client:
        asked: list[str] = []

        async def embed(self, texts: list[str]) -> list[list[float]] | None:
            self.asked.extend(texts)
            return [fake_embedding(t) for t in texts]

    client = Client()
    embedder = EndpointEmbedder(client, "multilingual-e5-small")
    assert (await embedder.query("보증금")).shape == (len(fake_embedding("x")),)
    assert (await embedder.passages(["a", "b"])).shape[0] == 2
    assert client.asked == ["query: 보증금", "passage: a", "passage: b"]


def test_shipped_vectors_are_used_only_for_their_model_and_the_articles_current_text(tmp_path) -> None:
    path = tmp_path / "embeddings.npz"
    vectors = unit_rows([fake_embedding(DenseConfig().passage(a)) for a in CORPUS])
    ShippedVectors.save(path, "e5-a", CORPUS, vectors, DenseConfig())
    shipped = ShippedVectors.load(path)
    assert shipped is not None and shipped.covers(CORPUS, "e5-a") and not shipped.covers(CORPUS, "e5-b")
    changed = [dataclasses.replace(CORPUS[0], text=CORPUS[0].text + " 개정"), *CORPUS[1:]]
    assert not shipped.covers(changed, "e5-a")
    assert ShippedVectors.load(tmp_path / "absent.npz") is None


class EmptyEmbeddingsTable:
    """What corpus_vectors asks of a connection: `legal_embeddings` rows (none here), and rows to store."""

    def __init__(self) -> None:
        self.stored: list[tuple] = []

    async def execute(self, sql: str, params: tuple) -> "EmptyEmbeddingsTable":
        return self

    async def fetchall(self) -> list:
        return []

    @contextlib.asynccontextmanager
    async def transaction(self):
        yield

    @contextlib.asynccontextmanager
    async def cursor(self):
        yield self

    async def executemany(self, sql: str, rows: list[tuple]) -> None:
        self.stored.extend(rows)


async def test_corpus_vectors_embed_only_what_the_shipped_file_lacks() -> None:
    config = DenseConfig()
    vectors = unit_rows([fake_embedding(config.passage(a)) for a in CORPUS])
    keys = [(a.article_id, text_hash(config.passage(a))) for a in CORPUS]
    shipped = ShippedVectors("fake", dict(zip(keys[1:], vectors[1:], strict=True)))
    embedder, table = VectorsOf(), EmptyEmbeddingsTable()
    got = await corpus_vectors(table, CORPUS, embedder, config, shipped)
    assert got is not None and np.allclose(got, vectors, atol=1e-6)
    assert embedder.asked == [config.passage(CORPUS[0])]  # the one article the file lacked
    assert [row[:2] for row in table.stored] == [(CORPUS[0].article_id, "fake")]


async def test_legal_tool_publishes_typed_hits_and_dated_citations(index: LegalIndex) -> None:
    step = StepWork("r", "s", "법령 검색", StepInputs(query="임대차보호법 6조의3 계약갱신"), {}, attempt=1)
    result = await legal_search(SimpleNamespace(legal=index), step)
    data = SearchData.model_validate(result.data)
    assert data.legal_hits[0].article_id == "주택임대차보호법/제6조의3" and data.legal_hits[0].exact_citation
    assert data.legal_hits[0].enforcement_date == date(2023, 7, 19) and data.legal_hits[0].excerpt
    citation = result.citations[0]
    assert citation.enforcement_date == date(2023, 7, 19)
    assert citation.title == "계약갱신 요구 등" and "시행" not in citation.law + (citation.title or "")


def test_the_persons_lease_figures_decide_the_reportverdict_on_figures() -> None:
    # "보증금 5백에 월세 25": both within 시행령 제4조의3①'s lines (6,000만원, 30만원), so not reported;
    # a 전세 of 2억 has no rent and its deposit is over the line.
    def verdict(query: str, entities: dict[str, object]) -> str | None:
        reading = extract_entities(query).model_dump(mode="json", exclude_defaults=True)
        inputs = StepInputs.model_validate({"query": query, "entities": {**reading, **entities}})
        step = StepWork("r", "s", "법령 검색", inputs, {}, attempt=1)
        return verdict_on_figures(answer_for(query), step)

    small = verdict("보증금 5백에 월세 25짜리 원룸인데 임대차 신고 해야돼요?", {"deal_type": "monthly"})
    assert small is not None and small.startswith("보증금 500만원·월 차임 25만원이면 신고 대상이 아닙니다")
    jeonse = verdict("전세 2억인데 전월세 신고 해야 하나요?", {"deal_type": "jeonse"})
    assert jeonse is not None and jeonse.startswith("보증금 2억원이면 신고 대상으로, 계약일부터 30일 이내에")
    assert verdict("월세 계약하면 신고해야 하나요?", {"deal_type": "monthly"}) is None  # no figures given


def test_asked_for_a_period_the_article_among_the_top_that_gives_one_leads() -> None:
    # The records article says most about 하자보수 청구; the warranty article is the one with a period.
    records = art(
        "공동주택관리법/제38조의2",
        "공동주택관리법",
        "제38조의2",
        "하자보수청구 서류 등의 보관",
        "관리주체는 하자보수청구 서류와 하자보수 청구 내용을 보관하여야 한다.",
    )
    warranty = art(
        "공동주택관리법/제36조",
        "공동주택관리법",
        "제36조",
        "하자담보책임",
        "사업주체는 하자에 대하여 담보책임기간 10년 동안 하자보수 책임을 진다.",
    )
    index = LegalIndex([records, warranty], Analyzer())
    question = "하자보수 청구는 몇 년 안에 해야 하나요?"
    hits = index.search(question, limit=2)
    assert [h.article.article_id for h in hits][0] == "공동주택관리법/제38조의2"
    result = legal_result(hits, question=question)
    assert result.citations[0].article_id == "공동주택관리법/제36조"
    assert result.headline.startswith("공동주택관리법 제36조") and "10년" in result.headline
    plain = legal_result(hits, question="하자보수 청구 서류는 누가 보관하나요?")
    assert plain.citations[0].article_id == "공동주택관리법/제38조의2"  # nothing asked for: rank order
