"""multilingual-e5-small inside the search process (services/platform/e5.py, shared with the planner): the
default embedder of dense legal retrieval.

`python -m services.search.legal.e5` computes the corpus vectors once and writes them beside the seed
corpus (SHIPPED), with this model's id; run it again after the corpus or the model changes (a start-up
with a stale file embeds what changed, and only that, into `legal_embeddings`).
"""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np

from services.platform.e5 import LocalE5
from services.platform.e5 import load_local_e5 as load_platform_e5
from services.search.legal.articles import corpus_articles
from services.search.legal.dense import DenseConfig, ShippedVectors

SHIPPED = Path(__file__).resolve().parents[3] / "infra" / "seed" / "legal" / "embeddings.npz"


def load_local_e5(threads: int = 1) -> LocalE5 | None:
    """The model, or None (logged) when it cannot load: legal search then ranks by BM25 alone."""
    return load_platform_e5(threads, "legal search answers by BM25 alone")


def main() -> None:
    """Write SHIPPED from the seed corpus (12 minutes on two threads of the shared 2-core machine)."""
    articles, config, model = corpus_articles(), DenseConfig(), LocalE5(threads=2)
    began = time.perf_counter()
    passages = [config.passage(a) for a in articles]
    vectors = np.concatenate(
        [
            model.embed_now(passages[i : i + config.batch], False)
            for i in range(0, len(passages), config.batch)
        ]
    )
    ShippedVectors.save(SHIPPED, model.model, articles, vectors, config)
    print(f"{len(articles)} vectors of {model.model} in {time.perf_counter() - began:.0f} s -> {SHIPPED}")


if __name__ == "__main__":
    main()
