"""`python -m tests.bench.legal`: legal search start-up, query latency and dev-set quality.

Start-up is measured the way the service starts: the corpus terms come stored (here from the terms memo
of the data folder, in the service from `legal_terms`; the first run on a machine fills the memo, which
takes Kiwi ~30 s, and says so), the BM25 index is built from them, and Kiwi is loaded for questions
(the service does that in the background). `BENCH_LEGAL_COLD=1` also times analysing the whole corpus,
what every start-up did before the terms were stored. Latency is over every dev question, repeated
BENCH_LEGAL_ROUNDS times (default 5); quality figures are those of `python -m tests.eval.legal`.
"""

from __future__ import annotations

import os
import statistics
import time

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
    return figures | {
        "query_p50_ms": statistics.median(latencies),
        "query_p95_ms": statistics.quantiles(latencies, n=20)[-1],
        "top1": report.top1,
        "top3": report.top3,
        "top5": report.top5,
        "mrr": report.mrr,
        "article_recall5_strict": report.recall5_strict,
        "article_recall5_lenient": report.recall5_lenient,
    }


def main() -> None:
    print("legal search")
    for name, value in bench_legal().items():
        print(f"  {name:<32} {value:>10.3f}")


if __name__ == "__main__":
    main()
