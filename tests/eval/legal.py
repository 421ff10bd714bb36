"""`python -m tests.eval.legal`: legal search quality and latency on the development sets.

Law level (legal_dev.jsonl): a question is answered at rank k when one of its `law_titles` (the law,
its decree and rules) is among the top k hits; prints top-1/3/5, MRR and the median query latency.
Article level (legal_dev_articles.jsonl): Recall@5 over the `ok` questions, strict (a gold article in
the top 5) and lenient (gold or acceptable), as the set's README defines them; `unanswerable`
questions are left out. The index is built from the shipped corpus file, the same rows `jipsa seed`
loads into `legal_articles`, with the terms `jipsa seed` stores in `legal_terms`: both come through the
terms memo of the data folder (.data/cache), so only the first run on a machine, or the first after
the analyser changed, waits for Kiwi to analyse the corpus.

Then the figures of the dense fusion follow the lexical ones, with the embedder the search service uses
(the in-process e5 model and its shipped corpus vectors; an endpoint's when JIPSA_EMBEDDING_URL is set,
its corpus vectors computed once per model and passage set and kept in the data folder's cache). Query
vectors are computed before timing, so the latency printed is the search's, not the embedder's.

What the person receives is `make eval`'s legal rows (its in-process search team attaches dense
retrieval as the service does; `JIPSA_SEARCH_LOCAL_EMBEDDINGS=false make eval` gives BM25 alone).
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import json
import statistics
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from services.platform.llm import DEFAULT_EMBEDDING_MODEL, LlmClient, LlmSettings
from services.search.legal.articles import corpus_articles
from services.search.legal.dense import (
    DenseConfig,
    DenseIndex,
    Embedder,
    EndpointEmbedder,
    ShippedVectors,
)
from services.search.legal.e5 import SHIPPED, load_local_e5
from services.search.legal.search import LegalIndex, SearchConfig
from services.search.legal.terms import TermsMemo, corpus_terms
from services.search.legal.tokens import Analyzer
from services.search.seed import terms_memo

ROOT = Path(__file__).resolve().parents[2]
LAW_SET = ROOT / "tests" / "data" / "eval" / "legal_dev.jsonl"
ARTICLE_SET = ROOT / "tests" / "data" / "eval" / "legal_dev_articles.jsonl"
# The labelled sets a change to legal search is developed on (never the held-out batch).
ARTICLE_SETS = (
    ARTICLE_SET,
    ROOT / "tests" / "data" / "eval" / "legal_ours.jsonl",
    ROOT / "tests" / "data" / "eval" / "legal_statutes_dev.jsonl",
)
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
    other_sets: tuple[tuple[str, float, float, int], ...] = ()  # (set, top-1, Recall@5 lenient, questions)

    def lines(self) -> list[str]:
        return [
            f"legal search on {self.questions} dev questions (law level)",
            f"  top-1 {self.top1:.3f}   top-3 {self.top3:.3f}   top-5 {self.top5:.3f}   MRR {self.mrr:.3f}",
            f"  median latency {self.median_ms:.2f} ms per query",
            f"article level, {self.article_questions} answerable ('ok') questions",
            f"  Recall@{K} strict {self.recall5_strict:.3f}   lenient {self.recall5_lenient:.3f}",
            *(
                f"{name}, {n} questions: top-1 {top1:.3f}   Recall@{K} lenient {recall:.3f}"
                for name, top1, recall, n in self.other_sets
            ),
        ]


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
    others = tuple(_top1_and_recall(index, vectors, path) for path in ARTICLE_SETS[1:])
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
        other_sets=others,
    )


def _top1_and_recall(index: LegalIndex, vectors: QueryVectors, path: Path) -> tuple[str, float, float, int]:
    top1 = found5 = 0
    rows = [q for q in read_jsonl(path) if q["status"] != "unanswerable"]
    for q in rows:
        hits = index.search(q["question"], limit=K, query_vector=vectors.get(q["question"]))
        ids = [h.article.article_id for h in hits]
        right = set(q["gold_articles"]) | set(q["acceptable_articles"])
        top1 += bool(ids and ids[0] in right)
        found5 += bool(right & set(ids))
    return path.stem, top1 / len(rows), found5 / len(rows), len(rows)


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


def dense_embedder(settings: LlmSettings) -> Embedder | None:
    """What the search service uses: the configured endpoint, else the in-process e5 model."""
    if settings.embeddings_configured:
        return EndpointEmbedder(LlmClient(settings), settings.embedding_model or DEFAULT_EMBEDDING_MODEL)
    return load_local_e5()


async def attach_vectors(index: LegalIndex, embedder: Embedder) -> QueryVectors:
    """Corpus vectors attached to the index (the shipped ones when they are this model's, else computed
    once and cached by model and passages); the vector of every question of the sets."""
    config, shipped = DenseConfig(), ShippedVectors.load(SHIPPED)
    if shipped is not None and shipped.covers(index.articles, embedder.model):
        vectors = shipped.in_order(index.articles, config)
    else:
        vectors = await _cached_corpus_vectors(index, embedder, config)
    index.attach_dense(DenseIndex(vectors, embedder, config))
    questions = list(
        dict.fromkeys(q["question"] for path in (LAW_SET, *ARTICLE_SETS) for q in read_jsonl(path))
    )
    embedded = [await embedder.query(q) for q in questions]
    if any(v is None for v in embedded):
        raise SystemExit("the embedder failed on a question")
    return dict(zip(questions, embedded, strict=True))


async def _cached_corpus_vectors(index: LegalIndex, embedder: Embedder, config: DenseConfig) -> np.ndarray:
    passages = [config.passage(a) for a in index.articles]
    key = hashlib.sha256("\n".join([embedder.model, *passages]).encode()).hexdigest()[:16]
    cache = terms_memo().directory / f"legal_vectors-{embedder.model.replace('/', '_')}-{key}.npy"
    if not cache.exists():
        chunks = [
            await embedder.passages(passages[i : i + config.batch])
            for i in range(0, len(passages), config.batch)
        ]
        if any(c is None for c in chunks):
            raise SystemExit("the embedder failed on the corpus")
        cache.parent.mkdir(parents=True, exist_ok=True)
        np.save(cache, np.concatenate(chunks))
    return np.load(cache)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.parse_args()
    began = time.perf_counter()
    index = build_index()
    print(f"index built in {time.perf_counter() - began:.1f} s ({len(index.articles)} articles)")
    for line in evaluate(index).lines():
        print(line)
    embedder = dense_embedder(LlmSettings())
    if embedder is not None:
        vectors = asyncio.run(attach_vectors(index, embedder))
        print(f"fused with {embedder.model} (dense weight {index.config.dense_weight}):")
        for line in evaluate(index, vectors).lines():
            print(line)


if __name__ == "__main__":
    main()
