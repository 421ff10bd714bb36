"""BM25 over a few thousand short documents, with per-posting weights computed once at build time.

With k1 and b fixed, a posting's contribution `idf * tf*(k1+1) / (tf + k1*(1-b+b*len/avglen))` does not
depend on the query, so the index stores it; a query is then a sum of a few numpy arrays, well under
a millisecond for the statute corpus. Several fields (law title, article title, text) are separate
indexes whose scores are summed with weights: each field keeps its own length normalisation, which a
concatenated document would blur (a long article would drown its own title).
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Posting:
    docs: np.ndarray  # document numbers holding the term
    weights: np.ndarray  # the term's BM25 contribution to each


class BM25:
    def __init__(self, documents: Sequence[Sequence[str]], *, k1: float = 1.2, b: float = 0.75) -> None:
        self.size = len(documents)
        lengths = np.array([len(d) for d in documents], dtype=np.float64)
        norm = k1 * (1 - b + b * lengths / max(lengths.mean(), 1.0))
        by_term: dict[str, tuple[list[int], list[float]]] = {}
        for doc, terms in enumerate(documents):
            for term, count in Counter(terms).items():
                docs, tfs = by_term.setdefault(term, ([], []))
                docs.append(doc)
                tfs.append(count)
        self.postings: dict[str, Posting] = {}
        for term, (docs, tfs) in by_term.items():
            idx, tf = np.array(docs), np.array(tfs, dtype=np.float64)
            weights = self.idf(len(docs)) * tf * (k1 + 1) / (tf + norm[idx])
            self.postings[term] = Posting(idx, weights)

    def idf(self, df: int) -> float:
        """Lucene's non-negative idf: a term in every document scores zero, never below."""
        return math.log(1 + (self.size - df + 0.5) / (df + 0.5))

    def scores(self, query: Sequence[str]) -> np.ndarray:
        """One score per document; a term repeated in the query counts once per occurrence."""
        total = np.zeros(self.size)
        for term in query:
            posting = self.postings.get(term)
            if posting is not None:
                total[posting.docs] += posting.weights
        return total
