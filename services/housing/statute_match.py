"""How much a question is about the statutes: evidence for routing, from the statutes themselves.

A question about a rule ("공인중개사 자격시험의 응시 자격 요건은?", "표준지공시지가는 언제 공시되나요?")
names the things the statutes are organised by: a law's title and its articles' headings
(공인중개사법 / 제4조의3 응시자격의 제한; 부동산 가격공시에 관한 법률 / 제3조 표준지공시지가의 조사ㆍ평가).
A market or loan question names places, kinds of homes and prices, which no heading is about. So the
evidence is the best match between the question and one heading (its law's title and the article's
title): the inverse document frequency, over the article texts, of the character bigrams they share.
Bigrams, because Korean glues particles to words (자격시험의, 자격시험에) and compounds split differently
(부동산등기 / 등기부등본); idf, because a bigram every article has (하는, 있는) proves nothing while
공시, 중개, 등기 prove a lot.

No phrasing list is involved: the vocabulary is the shipped corpus, so a law added to it is routed to
without a change here.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from dataclasses import dataclass
from functools import cache

from services.housing.statutes import StatuteArticle, articles_in_force

_HANGUL_RUN = re.compile(r"[가-힣]+")


@dataclass(frozen=True)
class StatuteMatch:
    score: float  # idf mass of the question's bigrams found in the best heading (0 when none)
    article_id: str | None
    law: str | None


def bigrams(text: str) -> list[str]:
    """Character bigrams inside each run of Hangul, in order, repeated ones once."""
    grams = (run[i : i + 2] for run in _HANGUL_RUN.findall(text) for i in range(len(run) - 1))
    return list(dict.fromkeys(grams))


class StatuteHeadings:
    """The headings (law title + article title) of the articles in force, and the idf of bigrams over
    their texts."""

    def __init__(self, articles: tuple[StatuteArticle, ...]) -> None:
        self._articles = articles
        self._postings: dict[str, list[int]] = {}  # bigram -> the headings that have it
        for i, a in enumerate(articles):
            for gram in set(bigrams(f"{a.law} {a.title or ''}")):
                self._postings.setdefault(gram, []).append(i)
        in_texts = Counter(gram for a in articles for gram in set(bigrams(a.text)))
        total = len(articles)
        self._idf = {gram: math.log((total + 1) / (n + 0.5)) for gram, n in in_texts.items()}
        self._unseen_idf = math.log((total + 1) / 0.5)

    def match(self, question: str) -> StatuteMatch:
        scores: dict[int, float] = {}
        for gram in bigrams(question):
            weight = self._idf.get(gram, self._unseen_idf)
            for i in self._postings.get(gram, ()):
                scores[i] = scores.get(i, 0.0) + weight
        if not scores:
            return StatuteMatch(0.0, None, None)
        best = min(scores, key=lambda i: (-scores[i], i))  # ties: the heading first in the corpus
        return StatuteMatch(round(scores[best], 2), self._articles[best].article_id, self._articles[best].law)


@cache
def statute_headings() -> StatuteHeadings:
    """The shipped corpus's headings, built once per process (a few tens of milliseconds)."""
    return StatuteHeadings(articles_in_force())
