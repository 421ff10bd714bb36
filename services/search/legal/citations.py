"""Exact citations in a question: "주택임대차보호법 제7조", "임대차보호법 6조의3", "시행령 제8조".

A citation names an article (제N조, 제N조의M) and, optionally, the law and whether it is the decree
(시행령) or the rule (시행규칙). Law names are matched against the titles the corpus has and the short
names people use for them; "7조" without 제 counts only right after a law name, since a bare
number + 조 is as often money (5조 원).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

# Short names people write for the statutes of the corpus (law.go.kr's 약칭 and common usage).
ALIASES = {
    "임대차보호법": "주택임대차보호법",
    "주임법": "주택임대차보호법",
    "주택임대차법": "주택임대차보호법",
    "거래신고법": "부동산 거래신고 등에 관한 법률",
    "부동산거래신고법": "부동산 거래신고 등에 관한 법률",
    "부동산 거래신고법": "부동산 거래신고 등에 관한 법률",
    "중개사법": "공인중개사법",
    "민간임대주택법": "민간임대주택에 관한 특별법",
    "민간임대법": "민간임대주택에 관한 특별법",
    "민특법": "민간임대주택에 관한 특별법",
    "가격공시법": "부동산 가격공시에 관한 법률",
    "부동산공시법": "부동산 가격공시에 관한 법률",
    "건축물분양법": "건축물의 분양에 관한 법률",
    "등기법": "부동산등기법",
}
DECREE_TYPES = {"시행령": "시행령", "시행규칙": "시행규칙", "규칙": "시행규칙"}

_ARTICLE = r"제\s*(?P<n>\d+)\s*조(?:\s*의\s*(?P<sub>\d+))?"
_LOOSE_ARTICLE = r"(?:제\s*)?(?P<n>\d+)\s*조(?:\s*의\s*(?P<sub>\d+))?"
_NOT_MONEY = r"(?!\s*\d*\s*(?:원|억|천|만))"
_DECREE = r"(?:\s*(?P<decree>시행령|시행규칙))?"
# A law named inside another title is not that law: 상가건물 임대차보호법 is not 주택임대차보호법.
_NOT_INSIDE = r"(?<![가-힣])(?<!상가건물 )"


@dataclass(frozen=True)
class CitationRef:
    article_number: str  # 제7조, 제6조의3
    law_title: str | None = None  # the instrument: 주택임대차보호법 시행령
    doc_type: str | None = None  # 시행령 / 시행규칙 when only that was said
    span: tuple[int, int] = (0, 0)

    def __str__(self) -> str:
        where = self.law_title or self.doc_type or ""
        return f"{where} {self.article_number}".strip()


class CitationParser:
    """Built from the law titles of the corpus, so it never resolves to a law the index lacks."""

    def __init__(self, law_titles: Iterable[str]) -> None:
        self.titles = set(law_titles)
        names = {t: t for t in self.titles} | {a: c for a, c in ALIASES.items() if c in self.titles}
        self._canonical = {_squash(n): c for n, c in names.items()}
        alternatives = "|".join(_spaced(n) for n in sorted(names, key=len, reverse=True))
        self._with_law = re.compile(rf"{_NOT_INSIDE}(?P<law>{alternatives}){_DECREE}\s*{_LOOSE_ARTICLE}")
        self._decree_only = re.compile(rf"(?P<decree>시행령|시행규칙)\s*{_ARTICLE}")
        # An article right after a law the corpus lacks (민법 제618조) belongs to that law, not to ours.
        self._bare = re.compile(rf"(?<!법)(?<!법 ){_ARTICLE}{_NOT_MONEY}")
        self._law_only = re.compile(rf"{_NOT_INSIDE}(?P<law>{alternatives})")

    def parse(self, text: str) -> list[CitationRef]:
        found: list[CitationRef] = []
        taken: list[tuple[int, int]] = []
        for pattern, build in (
            (self._with_law, self._from_law),
            (self._decree_only, _from_decree),
            (self._bare, _from_bare),
        ):
            for match in pattern.finditer(text):
                if any(s < match.end() and match.start() < e for s, e in taken):
                    continue
                ref = build(match)
                taken.append(match.span())  # a law the corpus lacks is still that law's article
                if ref is not None:
                    found.append(ref)
        return sorted(_without_clause_numbering(found), key=lambda r: r.span)

    def laws_named(self, text: str) -> list[str]:
        """Canonical titles of the laws a text names, abbreviations resolved, in order of mention."""
        names = [self._canonical[_squash(m.group("law"))] for m in self._law_only.finditer(text)]
        return list(dict.fromkeys(names))

    def _from_law(self, match: re.Match[str]) -> CitationRef | None:
        law = self._canonical[_squash(match.group("law"))]
        decree = match.group("decree")
        title = f"{law} {decree}" if decree else law
        if title not in self.titles:
            return None
        return CitationRef(_article_number(match), law_title=title, span=match.span())


CLAUSE_NUMBERING = 3  # this many bare 제N조 in one text: a pasted contract numbering its own clauses


def _without_clause_numbering(found: list[CitationRef]) -> list[CitationRef]:
    """A question cites an article or two; a contract pasted for review numbers its clauses 제1조,
    제2조, 제3조 … in its own text, which would otherwise cite the first articles of every law."""
    bare = [r for r in found if r.law_title is None and r.doc_type is None]
    if len(bare) < CLAUSE_NUMBERING:
        return found
    return [r for r in found if r not in bare]


def _from_decree(match: re.Match[str]) -> CitationRef:
    doc_type = DECREE_TYPES[match.group("decree")]
    return CitationRef(_article_number(match), doc_type=doc_type, span=match.span())


def _from_bare(match: re.Match[str]) -> CitationRef:
    return CitationRef(_article_number(match), span=match.span())


def _article_number(match: re.Match[str]) -> str:
    sub = match.group("sub")
    return f"제{int(match.group('n'))}조" + (f"의{int(sub)}" if sub else "")


def _squash(name: str) -> str:
    return re.sub(r"\s+", "", name)


def _spaced(name: str) -> str:
    """A name whose spaces may be written or left out: 부동산 거래신고법 = 부동산거래신고법."""
    return r"\s*".join(re.escape(ch) for ch in _squash(name))
