"""What a model writes, held to the material it was given: a line that quotes a number the material
does not contain is not kept (the supervisor's `response_synthesis`, services/supervisor/synthesis.py)."""

from __future__ import annotations

import re

NUMBER = re.compile(r"\d[\d,.]*")


def numbers_within(line: str, source: str) -> bool:
    """Every number of the line appears in the source (31,500 and 31500 being the same number)."""
    plain = source.replace(",", "")
    return all(n.replace(",", "").strip(".") in plain for n in NUMBER.findall(line))


def lines_within(text: str, source: str) -> tuple[str, list[str]]:
    """The text without its lines that quote a number the source lacks, and those lines."""
    kept: list[str] = []
    dropped: list[str] = []
    for line in text.splitlines():
        (kept if numbers_within(line, source) else dropped).append(line)
    return re.sub(r"\n{3,}", "\n\n", "\n".join(kept)).strip(), dropped
