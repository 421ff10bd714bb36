"""The general rules a specific question rests on: what a law is for (목적), what its words mean (정의),
and that a term against the protected party is void (강행규정).

"세입자 보호하는 법은 왜 만든 거예요?" or "갱신 요구를 안 하기로 하는 특약에 서명하면 나중에 못 하나요?": the
answer is a general article of the law the question is about, whatever specific article ranks first. The
law is the family of the best-ranked article; which of its articles are general is read from the corpus
(their titles, the void-term sentence), never listed per law, so a law added to the corpus has its own.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from services.search.legal.articles import Article


@dataclass(frozen=True)
class GeneralRule:
    name: str
    asked: Callable[[str], bool]  # whether the question asks for it, in a person's words
    is_rule: Callable[[Article], bool]  # whether an article of the corpus is such a rule
    first: bool  # the answer itself (목적, 정의), or the rule beside the specific article (강행규정)


# "…은 왜 만든 법이에요?", "…의 취지가 뭐예요": what the law is for.
_ASKS_PURPOSE = re.compile(
    r"(?:왜|뭘\s*하려고|무엇을\s*위해|무슨\s*목적으로?)\s*(?:만든|만들어|생긴)|(?:목적|취지)\S{0,2}\s*(?:뭐|무엇|뭔)"
)
# "민간임대주택이란 무엇인가요?", "…의 뜻": what a term means, answered by the definitions article.
_ASKS_DEFINITION = re.compile(
    r"(?:이)?란\s*(?:무엇|뭐|뭔|어떤\s*것)|(?:의|이란)\s*(?:뜻|정의|개념)|무엇을\s*말"
)
# A term of the person's contract ("특약", "계약서에 … 넣자고") that gives up or limits what they may do
# ("안 하기로", "주장하지 않는다", "포기", "못 하게"): whatever the right, a term against the tenant is void.
_CONTRACT_TERM = re.compile(r"특약|약정|계약서\S{0,3}\s*(?:조항|조건|문구|내용)?|조건을?\s*(?:넣|걸)")
_GIVES_UP = re.compile(
    r"포기|않(?:기로|는다|겠다|을\s*것)|안\s*(?:하기로|한다|하겠다)|못\s*(?:하게|한다|하기로)|없(?:기로|는\s*것으로)|불리"
)
_VOID_TERM = re.compile(r"위반(?:된|하는)\s*(?:약정|특약|계약)\S*\s*(?:으로서\s*)?.{0,20}효력이\s*없")


def _asks_void_term(question: str) -> bool:
    return bool(_CONTRACT_TERM.search(question) and _GIVES_UP.search(question))


RULES = (
    GeneralRule("목적", lambda q: bool(_ASKS_PURPOSE.search(q)), lambda a: a.article_title == "목적", True),
    GeneralRule(
        "정의",
        lambda q: bool(_ASKS_DEFINITION.search(q)),
        lambda a: (a.article_title or "").startswith("정의"),
        True,
    ),
    GeneralRule("강행규정", _asks_void_term, lambda a: bool(_VOID_TERM.search(a.body)), False),
)


def asked_rules(question: str) -> list[GeneralRule]:
    return [rule for rule in RULES if rule.asked(question)]


class GeneralArticles:
    """Each law family's general articles, by rule: the statute's own where it has one, else its decree's."""

    def __init__(self, articles: Sequence[Article]) -> None:
        self._by_family: dict[tuple[str, str], int] = {}
        for i, a in enumerate(articles):
            if a.is_supplementary or a.is_deleted or a.is_future_version:
                continue
            for rule in RULES:
                key = (a.family, rule.name)
                if rule.is_rule(a) and (key not in self._by_family or a.law_title == a.family):
                    self._by_family[key] = i
        self._articles = articles

    def of(self, family: str, rule: str) -> Article | None:
        i = self._by_family.get((family, rule))
        return None if i is None else self._articles[i]

    def placed(self, order: list[int], question: str, limit: int, allowed: np.ndarray) -> list[int]:
        """`order` (article positions, best first) with the general articles the question asks for, of the
        family of its first article and `allowed`, placed where the rule says, within the first `limit`."""
        if not order:
            return order
        family = self._articles[order[0]].family
        for rule in asked_rules(question):
            i = self._by_family.get((family, rule.name))
            if i is None or not allowed[i]:
                continue
            rest = [j for j in order if j != i]
            order = [i, *rest] if rule.first or not rest else [rest[0], i, *rest[1:]]
        return order[:limit]
