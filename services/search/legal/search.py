"""Legal search over the statute articles: exact citations first, then BM25 over analysed terms.

Built once at service start (Kiwi analyses the whole corpus in a few seconds), then every query is
pure in-memory work well under the step's budget. Ranking, in order:
1. articles the question cites exactly ("주택임대차보호법 제7조"), in the order cited;
2. BM25 over three fields, summed with weights: law title (a law-level prior: a question that names
   or paraphrases a law should stay inside it), article title, article text; each score is then
   scaled by a prior per kind of article (부칙 and decree details answer fewer questions than the
   statute's own articles).
The weights were chosen on the dev set as a method (`python -m tests.eval.legal`), never per question.
3. when the index has corpus embeddings (dense.py, only with an embedding endpoint) and the question's
   vector came back in time: reciprocal-rank fusion of the BM25 ranking and the cosine ranking, so
   neither scale has to be calibrated against the other; without them the lexical ranking stands alone.

The corpus terms normally come stored (terms.py): building the index is then BM25 arithmetic, about a
second, and Kiwi is loaded only for the first question's analysis (a few ms a question after that).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

import numpy as np

from services.search.legal.articles import Article
from services.search.legal.bm25 import BM25
from services.search.legal.citations import CitationParser, CitationRef
from services.search.legal.dense import DenseIndex
from services.search.legal.excerpt import excerpt
from services.search.legal.general import GeneralArticles, asked_rules
from services.search.legal.terms import FIELDS, FieldTerms, field_texts
from services.search.legal.tokens import Analyzer

DOC_TYPES = ("법률", "시행령", "시행규칙", "대법원규칙")


@dataclass(frozen=True)
class SearchConfig:
    """Chosen on the dev set; neighbouring settings score within a question or two of these, so the
    choice is a plateau, not a fit. The law title weighs most because most questions paraphrase the
    law they are about; morphemes outweigh bigrams, which mainly rescue compounds Kiwi splits oddly.
    A prior by document type (법률 over 시행령/시행규칙) was measured and did not help: left flat."""

    k1: float = 1.2
    b: float = 0.75
    law_title_weight: float = 1.5
    article_title_weight: float = 0.75
    text_weight: float = 1.0
    morpheme_weight: float = 1.0  # the two views of tokens.py, each its own BM25 (own lengths)
    bigram_weight: float = 0.5
    doc_type_prior: dict[str, float] = field(default_factory=dict)
    supplementary_prior: float = 0.5  # 부칙 (시행일, 경과조치) rarely answers a question
    excerpt_chars: int = 480
    # Reciprocal-rank fusion with the dense ranking (multilingual-e5-small, dense.py): k = 60 is the usual
    # constant (Cormack et al. 2009); each ranking contributes whole (every article BM25 scored, every
    # allowed one by cosine). Cut at its top 100, a ranking gave nothing to an article it put at 120, which
    # then fell behind one the other ranking alone put high: uncut, statutes dev Recall@5 49 -> 50 of 59
    # (the same at any depth from 150 up), the other sets unchanged. The dense weight was tuned on the dev
    # sets only (docs/legal-search.md): 0.25 to 3.0 measured, 1.0-1.5 best on article Recall@5.
    rrf_k: float = 60.0
    lexical_weight: float = 1.0
    dense_weight: float = 1.5


@dataclass(frozen=True)
class LegalFilters:
    """Restrictions a step may ask for; laws may be short names (임대차보호법) or a family's statute."""

    laws: tuple[str, ...] = ()
    doc_types: tuple[str, ...] = ()
    tenant_protection_only: bool = False
    include_deleted: bool = False


@dataclass(frozen=True)
class LegalHit:
    article: Article
    score: float
    why: str
    shown_text: str
    matched_terms: tuple[str, ...] = ()
    exact_citation: bool = False


class LegalIndex:
    """BM25 over stored terms (`terms`, per field and article, as terms.py gives them; an article
    without them is analysed here), plus optional corpus embeddings attached later (`attach_dense`)."""

    def __init__(
        self,
        articles: Sequence[Article],
        analyzer: Analyzer,
        config: SearchConfig | None = None,
        terms: FieldTerms | None = None,
    ) -> None:
        self.articles = list(articles)
        self.analyzer, self.config = analyzer, config or SearchConfig()
        self.dense: DenseIndex | None = None
        self.citations = CitationParser({a.law_title for a in self.articles})
        c = self.config
        weights = {
            "law_title": c.law_title_weight,
            "article_title": c.article_title_weight,
            "body": c.text_weight,
        }
        views = (("m:", c.morpheme_weight), ("b:", c.bigram_weight))
        field_terms = self._complete(terms or {})
        self._fields = [
            (BM25(_view(field_terms[f], prefix), k1=c.k1, b=c.b), weights[f] * vw)
            for f in FIELDS
            for prefix, vw in views
            if weights[f] and vw
        ]
        self._prior = np.array([self._article_prior(a) for a in self.articles])
        self.general = GeneralArticles(self.articles)
        self._by_id = {a.article_id: a for a in self.articles}
        self._by_number: dict[tuple[str, str], list[int]] = {}
        for i, a in enumerate(self.articles):
            if not a.is_supplementary and not a.is_future_version:
                self._by_number.setdefault((a.law_title, a.article_number), []).append(i)

    def _complete(self, terms: FieldTerms) -> dict[str, list[list[str]]]:
        """The given terms, with whatever is missing analysed now (all of it when none were given)."""
        complete = {}
        self.analysed_at_build = 0  # how many field texts had no stored terms (logged at start)
        for f in FIELDS:
            given = terms.get(f) or [None] * len(self.articles)
            missing = [i for i, t in enumerate(given) if t is None]
            self.analysed_at_build += len(missing)
            analysed = self.analyzer.terms_many(field_texts(self.articles[i])[f] for i in missing)
            filled = dict(zip(missing, analysed, strict=True))
            complete[f] = [t if t is not None else filled[i] for i, t in enumerate(given)]
        return complete

    def article(self, article_id: str) -> Article | None:
        """An article by its corpus id (주택임대차보호법/제7조), in the version in force."""
        return self._by_id.get(article_id)

    def attach_dense(self, dense: DenseIndex) -> None:
        """Corpus embeddings, once computed (a background task at start): from then on questions are
        fused. One reference assignment, so a search in flight sees either the old or the new state."""
        if len(dense.vectors) != len(self.articles):
            raise ValueError(f"{len(dense.vectors)} vectors for {len(self.articles)} articles")
        self.dense = dense

    async def query_vector(self, query: str) -> np.ndarray | None:
        """The question's embedding when the index has dense vectors and the endpoint answers in time."""
        return None if self.dense is None else await self.dense.query_vector(query)

    def _article_prior(self, a: Article) -> float:
        prior = self.config.doc_type_prior.get(a.doc_type, 1.0)
        return prior * (self.config.supplementary_prior if a.is_supplementary else 1.0)

    def search(
        self,
        query: str,
        filters: LegalFilters | None = None,
        limit: int = 5,
        query_vector: np.ndarray | None = None,
    ) -> list[LegalHit]:
        filters = filters or LegalFilters()
        allowed = self._allowed(filters)
        refs = self.citations.parse(query)
        cited = [i for ref in refs for i in self._cited(ref) if allowed[i]]
        laws_named = self.citations.laws_named(query)
        terms = self.analyzer.terms(" ".join([query, *laws_named, *_statute_words(query) * 2]))
        scores = self._scores(terms)
        lexical = _ranking(scores, allowed, positive=True)
        dense = self._dense_ranking(query_vector, allowed)
        if dense is not None:
            scores = self._fused(lexical, dense)
            ranked = [int(i) for i in np.argsort(-scores, kind="stable") if scores[i] > 0]
        else:
            ranked = lexical
        order = self.general.placed(list(dict.fromkeys([*cited, *ranked])), query, limit, allowed)
        query_words = _words(terms)
        dense_rank = {i: r for r, i in enumerate(dense or [], 1)}
        return [self._hit(i, scores[i], query_words, refs, i in cited, dense_rank.get(i)) for i in order]

    def _scores(self, terms: list[str]) -> np.ndarray:
        total = sum(w * bm25.scores(terms) for bm25, w in self._fields)
        return np.asarray(total) * self._prior

    def _dense_ranking(self, query_vector: np.ndarray | None, allowed: np.ndarray) -> list[int] | None:
        if query_vector is None or self.dense is None:
            return None
        return _ranking(self.dense.scores(query_vector), allowed, positive=False)

    def _fused(self, lexical: list[int], dense: list[int]) -> np.ndarray:
        """Reciprocal-rank fusion: each ranking adds weight / (k + rank) to the articles it ranks."""
        c = self.config
        fused = np.zeros(len(self.articles))
        for ranking, weight in ((lexical, c.lexical_weight), (dense, c.dense_weight)):
            if ranking:
                fused[np.array(ranking)] += weight / (c.rrf_k + np.arange(1, len(ranking) + 1))
        return fused

    def _allowed(self, f: LegalFilters) -> np.ndarray:
        laws = self._resolve_laws(f.laws)
        return np.array(
            [
                (f.include_deleted or not a.is_deleted)
                and not a.is_future_version
                and (not laws or a.law_title in laws or a.family in laws)
                and (not f.doc_types or a.doc_type in f.doc_types)
                and (not f.tenant_protection_only or bool(a.is_tenant_protection))
                for a in self.articles
            ],
            dtype=bool,
        )

    def _resolve_laws(self, laws: Iterable[str]) -> set[str]:
        resolved: set[str] = set()
        for law in laws:
            resolved.update(self.citations.laws_named(law) or [law])
        return resolved

    def _cited(self, ref: CitationRef) -> list[int]:
        if ref.law_title:
            return self._by_number.get((ref.law_title, ref.article_number), [])
        return [
            i
            for (title, number), ids in self._by_number.items()
            if number == ref.article_number
            for i in ids
            if ref.doc_type is None or self.articles[i].doc_type == ref.doc_type
        ]

    def _hit(
        self,
        i: int,
        score: float,
        words: list[str],
        refs: list[CitationRef],
        cited: bool,
        dense_rank: int | None = None,
    ) -> LegalHit:
        a = self.articles[i]
        matched = tuple(w for w in words if w in a.text or w in a.law_title or w in (a.article_title or ""))
        reasons = []
        if cited:
            ref = next(r for r in refs if r.article_number == a.article_number)
            reasons.append(f"exact citation: {ref}")
        if matched:
            reasons.append("matched: " + ", ".join(matched[:8]))
        if dense_rank is not None and dense_rank <= 10:
            reasons.append(f"semantic rank {dense_rank}")
        return LegalHit(
            article=a,
            score=float(score),
            why="; ".join(reasons) or "lexical similarity",
            shown_text=excerpt(a.body, matched, self.config.excerpt_chars),
            matched_terms=matched,
            exact_citation=cited,
        )


# People ask in everyday words; statutes use their own. 전세금 in a question is a lease deposit
# (보증금 of 주택임대차보호법), while the statute word 전세금 belongs to 전세권 registration (부동산등기법).
# Each everyday word here is absent (or next to absent) from the statutes' text.
EVERYDAY_TO_STATUTE = {
    "전세금": "임대차 보증금",
    "전세": "임대차",
    "월세": "차임",
    "집주인": "임대인",
    "세입자": "임차인",
    "인상": "증액",
    "깎": "감액",
    "복비": "중개보수",
    "중개수수료": "중개보수",
    "엘리베이터": "승강기",
    "수리": "수선",
    "등기부": "등기사항",
    "등기필증": "등기필정보",
    "등기권리증": "등기필정보",
    "집문서": "등기필정보",
    "전입신고": "주민등록",
    "퇴거": "해지",
    "주택사업자": "사업주체",
    "처벌": "벌칙",
    "실거래": "부동산 거래 신고",
    "다운계약": "거래가격 거짓 신고",
    "업계약": "거래가격 거짓 신고",
    "돌려받": "반환",
    "돌려주": "반환",
    "넘어오": "승계",
    "넘겨받": "승계",
    "물려받": "승계",
    "가계약": "계약금",
    "파기": "해제",
    "복덕방": "중개사무소",
    "중개업소": "중개사무소",
    "중개소": "중개사무소",
    "반환보증": "보증금 보증",
    "집값": "주택가격",
    "갱신청구권": "계약갱신 요구",
    "반전세": "보증금 차임",
    "관리소장": "관리사무소장",
    "동대표": "동별 대표자",
    "입대의": "입주자대표회의",
    "특공": "특별공급",
    "장충금": "장기수선충당금",
}
# What a question asks for, said the everyday way: "…이 될 수 없는 사람" asks for the disqualifications
# (결격사유). ("몇 년 안에" read as 기간 was measured and ranked 임대차기간 over the deadlines asked for.)
# A general rule asked for (목적, 정의: general.py) adds its title's word.
# Selling a home won by 청약 or 분양 before moving in is its resale (전매).
EVERYDAY_ASKS = (
    (re.compile(r"될\s*수\s*없|되지\s*못|못\s*되"), "결격"),
    (re.compile(r"(?:당첨|분양|입주\s*전|분양권).{0,20}(?:팔|매도|넘기|넘겨|양도)"), "전매"),
)


def _statute_words(query: str) -> list[str]:
    words = [statute for everyday, statute in EVERYDAY_TO_STATUTE.items() if everyday in query]
    words += [statute for asked, statute in EVERYDAY_ASKS if asked.search(query)]
    return words + [r.name for r in asked_rules(query) if r.first and r.name not in query]


def _ranking(scores: np.ndarray, allowed: np.ndarray, positive: bool) -> list[int]:
    """Allowed articles, best first (ties in corpus order); with `positive`, only those that scored."""
    order = np.argsort(-scores, kind="stable")
    keep = allowed[order] & (scores[order] > 0) if positive else allowed[order]
    return order[keep].tolist()


def _view(documents: list[list[str]], prefix: str) -> list[list[str]]:
    return [[t for t in terms if t.startswith(prefix)] for terms in documents]


def _words(terms: Iterable[str]) -> list[str]:
    """The query's morphemes as readable words (bigrams are an indexing device, not a reason)."""
    return list(dict.fromkeys(t[2:] for t in terms if t.startswith("m:") and len(t) > 3))
