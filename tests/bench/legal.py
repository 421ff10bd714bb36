"""`python -m tests.bench.legal`: legal search build time, query latency and dev-set quality.

Latency is measured over every dev question, repeated BENCH_LEGAL_ROUNDS times (default 5), on the
index the service builds; quality figures are those of `python -m tests.eval.legal`.
"""

from __future__ import annotations

import os
import statistics
import time

from tests.eval.legal import LAW_SET, build_index, evaluate, read_jsonl

ROUNDS = int(os.environ.get("BENCH_LEGAL_ROUNDS", "5"))


def bench_legal() -> dict[str, float]:
    began = time.perf_counter()
    index = build_index()
    build_s = time.perf_counter() - began
    questions = [q["question"] for q in read_jsonl(LAW_SET)]
    latencies = []
    for _ in range(ROUNDS):
        for question in questions:
            t = time.perf_counter()
            index.search(question)
            latencies.append((time.perf_counter() - t) * 1000)
    report = evaluate(index)
    return {
        "index_build_s": build_s,
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
        print(f"  {name:<28} {value:>10.3f}")


if __name__ == "__main__":
    main()
