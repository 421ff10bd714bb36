"""`python -m tests.bench.legal`: legal search start-up, query latency and dev-set quality.

Start-up is measured the way the service starts: the corpus terms come stored (here from the terms memo
of the data folder, in the service from `legal_terms`; the first run on a machine fills the memo, which
takes Kiwi ~30 s, and says so), the BM25 index is built from them, and Kiwi is loaded for questions
(the service does that in the background). `BENCH_LEGAL_COLD=1` also times analysing the whole corpus,
what every start-up did before the terms were stored. Latency is over every dev question, repeated
BENCH_LEGAL_ROUNDS times (default 5); quality figures are those of `python -m tests.eval.legal`.

Then dense retrieval as the service runs it by default: the in-process e5 model loaded and the shipped
corpus vectors attached (the start-up they add), the process's resident memory before and after (the
model's cost), and a legal question's search time with it: the query embedding (one thread, as the
service runs it) plus the fused search.
"""

from __future__ import annotations

import asyncio
import os
import statistics
import time
from pathlib import Path

from services.platform.e5 import LocalE5
from services.search.legal.dense import DenseConfig, DenseIndex, ShippedVectors
from services.search.legal.e5 import SHIPPED
from services.search.legal.search import LegalIndex
from services.search.legal.terms import FIELDS, corpus_terms, field_texts
from services.search.legal.tokens import Analyzer
from services.search.seed import terms_memo
from tests.eval.legal import LAW_SET, corpus_articles, evaluate, read_jsonl

ROUNDS = int(os.environ.get("BENCH_LEGAL_ROUNDS", "5"))
COLD = os.environ.get("BENCH_LEGAL_COLD") == "1"


def _timed(f, *args):
    began = time.perf_counter()
    return f(*args), time.perf_counter() - began


def bench_legal() -> dict[str, float]:
    articles, analyzer = corpus_articles(), Analyzer()
    memo = terms_memo()
    memo_was_warm = memo.path(analyzer.version).exists()
    terms, terms_s = _timed(corpus_terms, articles, analyzer, memo)
    index, build_s = _timed(LegalIndex, articles, analyzer, None, terms)
    _, kiwi_s = _timed(analyzer.warm_up)
    figures = {
        "terms_from_memo_s" if memo_was_warm else "terms_analysed_to_fill_memo_s": terms_s,
        "index_build_from_terms_s": build_s,
        "startup_s (terms + build)": terms_s + build_s,
        "kiwi_load_for_questions_s": kiwi_s,
    }
    if COLD:
        texts = [field_texts(a)[f] for f in FIELDS for a in articles]
        figures["cold_corpus_analysis_s"] = _timed(analyzer.terms_many, texts)[1]
    questions = [q["question"] for q in read_jsonl(LAW_SET)]
    latencies = []
    for _ in range(ROUNDS):
        for question in questions:
            _, seconds = _timed(index.search, question)
            latencies.append(seconds * 1000)
    report = evaluate(index)
    return (
        figures
        | dense_figures(index, questions)
        | {
            "query_p50_ms": statistics.median(latencies),
            "query_p95_ms": statistics.quantiles(latencies, n=20)[-1],
            "top1": report.top1,
            "top3": report.top3,
            "top5": report.top5,
            "mrr": report.mrr,
            "article_recall5_strict": report.recall5_strict,
            "article_recall5_lenient": report.recall5_lenient,
        }
    )


def resident_mb() -> float:
    """This process's resident memory (VmRSS), in MB."""
    line = next(x for x in Path("/proc/self/status").read_text().splitlines() if x.startswith("VmRSS:"))
    return int(line.split()[1]) / 1024


def dense_figures(index: LegalIndex, questions: list[str]) -> dict[str, float]:
    before = resident_mb()
    e5, load_s = _timed(LocalE5)
    began = time.perf_counter()
    shipped = ShippedVectors.load(SHIPPED)
    assert shipped is not None and shipped.covers(index.articles, e5.model), (
        "run python -m services.search.legal.e5"
    )
    index.attach_dense(DenseIndex(shipped.in_order(index.articles), e5, DenseConfig()))
    attach_s = time.perf_counter() - began
    embedding, searching = [], []
    for _ in range(ROUNDS):
        for question in questions:
            vector, seconds = _timed(lambda q: asyncio.run(e5.query(q)), question)
            embedding.append(seconds * 1000)
            searching.append(_timed(index.search, question, None, 5, vector)[1] * 1000)
    total = [e + s for e, s in zip(embedding, searching, strict=True)]
    return {
        "rss_mb_index_only": before,
        "rss_mb_with_e5": resident_mb(),
        "e5_load_s": load_s,
        "shipped_vectors_attach_s": attach_s,
        "query_embedding_p50_ms": statistics.median(embedding),
        "fused_search_p50_ms": statistics.median(searching),
        "legal_question_p50_ms (embedding + search)": statistics.median(total),
        "legal_question_p95_ms": statistics.quantiles(total, n=20)[-1],
    }


def main() -> None:
    print("legal search")
    for name, value in bench_legal().items():
        print(f"  {name:<32} {value:>10.3f}")


if __name__ == "__main__":
    main()
