"""The part of an article a person is shown: the paragraphs (항/호) that matched, within a length budget.

Articles run from one line to several thousand characters; an answer shows what it relied on, so the
excerpt keeps the best-matching line (most distinct query words), grows with its neighbours while the
budget allows, and marks every cut with an ellipsis.
"""

from __future__ import annotations

from collections.abc import Collection

ELLIPSIS = "…"


def excerpt(body: str, words: Collection[str], limit: int = 480) -> str:
    if len(body) <= limit:
        return body
    lines = body.split("\n")
    best = max(range(len(lines)), key=lambda i: (_hits(lines[i], words), -i))
    start, end = best, best + 1
    while True:
        grown = _grow(lines, start, end, limit)
        if grown == (start, end):
            break
        start, end = grown
    text = "\n".join(lines[start:end])
    if len(text) > limit:
        return _window(text, words, limit)
    return (ELLIPSIS if start > 0 else "") + text + (ELLIPSIS if end < len(lines) else "")


def _grow(lines: list[str], start: int, end: int, limit: int) -> tuple[int, int]:
    """Add the next line after, else the one before (a 항 reads on into its 호), if it fits."""
    size = sum(len(line) + 1 for line in lines[start:end])
    if end < len(lines) and size + len(lines[end]) <= limit:
        return start, end + 1
    if start > 0 and size + len(lines[start - 1]) <= limit:
        return start - 1, end
    return start, end


def _window(text: str, words: Collection[str], limit: int) -> str:
    """One long line: cut around the first matched word, a quarter of the budget before it."""
    positions = [p for p in (text.find(w) for w in words) if p >= 0]
    start = max(0, min(positions, default=0) - limit // 4)
    start = min(start, max(0, len(text) - limit))
    cut = text[start : start + limit]
    return (ELLIPSIS if start > 0 else "") + cut + (ELLIPSIS if start + limit < len(text) else "")


def _hits(line: str, words: Collection[str]) -> int:
    return sum(1 for w in words if w in line)
