"""A contract pasted into a question: the planner routes it to a review, the analysis reviews it."""

from __future__ import annotations

import re

# What a pasted contract is made of: its clauses ("제3조", "특약1.", "특약:", a numbered line), its parties
# and its terms, on lines of their own. People paste a few 특약 as often as a whole contract; a question
# of law names one article ("제7조에 따르면 …") or both parties ("임대인이 임차인에게 …") in a sentence.
_CLAUSE = re.compile(r"제\s*\d+\s*조|특약\s*\d*\s*[.:：)]|^\s*\d+\s*[.)]", re.MULTILINE)
_SPECIAL_TERM = re.compile(r"특약\s*\d*\s*[.:：)]")
_TERMS = re.compile(r"보증금|기간|차임|월세")
_CLAUSE_TEXT_CHARS = 30  # a 특약 pasted with its wording, not the word in passing
_CONTRACT_LINES = 3
# A review asked for with the wording after a colon ("계약서 검토해줘: 임차인은 … 부담한다."): clauses are
# sentences in a contract's voice (…한다., …없다.) about its parties or terms.
_REVIEW_THEN_TEXT = re.compile(
    r"(?:검토|봐\s*(?:줘|주세요|주실)|확인|체크)[^:：\n]{0,12}[:：]\s*(?P<text>.+)", re.S
)
_CONTRACT_SENTENCE = re.compile(
    r"(?:임차인|임대인|보증금|차임|월세|계약).{4,}?(?:한다|된다|없다|있다|않는다|진다)\s*[.]?"
)


def looks_like_contract(text: str) -> bool:
    """The question carries the contract itself: two clauses, one 특약 with its wording, clauses pasted
    after the request ("검토해줘: 임차인은 …"), or lines that name both parties and the terms."""
    if len(_CLAUSE.findall(text)) >= 2:
        return True
    special = _SPECIAL_TERM.search(text)
    if special and len(text) - special.end() >= _CLAUSE_TEXT_CHARS:
        return True
    return _pasted_after_request(text) is not None or _names_parties_and_terms(text)


def contract_body(text: str) -> str:
    """The contract's own words: what follows the request when the wording was pasted after a colon
    ("계약서 검토해줘: 임차인은 …"), else the whole text."""
    return _pasted_after_request(text) or text


def is_whole_contract(text: str) -> bool:
    """A whole contract rather than a few 특약: its articles ("제1조 … 제2조 …"), or lines naming both
    parties and the terms. Only a whole contract can lack a clause; a few pasted 특약 are reviewed as
    they stand."""
    return len(re.findall(r"제\s*\d+\s*조", text)) >= 2 or _names_parties_and_terms(text)


def _pasted_after_request(text: str) -> str | None:
    """The clauses after "검토해줘:", when what follows the colon is in a contract's voice."""
    pasted = _REVIEW_THEN_TEXT.search(text)
    return pasted["text"].strip() if pasted and _CONTRACT_SENTENCE.search(pasted["text"]) else None


def _names_parties_and_terms(text: str) -> bool:
    """Lines of their own naming both parties and the terms: a contract pasted whole."""
    lines = [line for line in text.splitlines() if line.strip()]
    parties = "임대인" in text and "임차인" in text
    return parties and len(lines) >= _CONTRACT_LINES and bool(_TERMS.search(text))
