"""`jipsa ask` in the terminal: the answer's Markdown rendered (tables as tables) on a terminal, the text
as written when piped, and the approval prompt that comes inside `plan_ready`."""

from __future__ import annotations

import io

import pytest
from rich.cells import cell_len
from rich.console import Console

from services.ask.screen import Screen, show_answer, waits_for_approval
from services.ask.view import RunView
from services.gateway.feed.messages import APPROVAL_PROMPT, STORE_UNAVAILABLE, store_unavailable

pytestmark = pytest.mark.unit

ANSWER = """## 강남구 아파트 전세 시세

| 항목 | 값 | 근거 |
|---|---:|---|
| 평균 전세가 | 5억 2,000만원 | 실거래 12건 |
| 전세가율 | 61.5% | KB 시세 |

**주의**: 표본이 적습니다."""
RESPONSE = {
    "type": "answer",
    "content": ANSWER,
    "data": {
        "citations": [{"law": "주택임대차보호법", "article": "제7조"}],
        "listings": [{}],
        "failed_steps": [],
    },
}


def terminal() -> Console:
    return Console(record=True, force_terminal=True, width=72, color_system=None, file=io.StringIO())


def piped() -> tuple[Console, io.StringIO]:
    out = io.StringIO()
    return Console(file=out, width=20), out


def columns(lines: list[str], cell: str, *, end: bool = False) -> set[int]:
    """The terminal column where `cell` starts (or ends) on each line holding it (wide Hangul counts 2)."""
    found = set()
    for line in lines:
        if cell in line:
            at = line.index(cell) + (len(cell) if end else 0)
            found.add(cell_len(line[:at]))
    return found


def test_a_markdown_table_in_the_answer_comes_out_as_a_table_on_a_terminal() -> None:
    console = terminal()
    show_answer(console, RESPONSE)
    lines = console.export_text().splitlines()

    text = "\n".join(lines)
    assert "|" not in text and "---" not in text and "**" not in text and "##" not in text
    assert "╭" in lines[0] and "답변 (answer)" in lines[0]  # the answer's panel
    header = next(i for i, line in enumerate(lines) if "항목" in line and "근거" in line)
    assert set(lines[header + 1].strip("│ ")) == {"─"}  # the rule under the header row
    rows = lines[header : header + 4]
    # Left-aligned columns start together, the `---:` column ends together, Hangul counted wide.
    assert len(columns(rows, "항목") | columns(rows, "평균 전세가") | columns(rows, "전세가율")) == 1
    assert len(columns(rows, "근거") | columns(rows, "실거래 12건") | columns(rows, "KB 시세")) == 1
    assert len({*columns(rows, "값", end=True), *columns(rows, "5억 2,000만원", end=True)}) == 1
    assert columns(rows, "61.5%", end=True) == columns(rows, "값", end=True)
    assert "주의: 표본이 적습니다." in text and "· 주택임대차보호법 제7조" in text and "매물 1건" in text


def test_a_piped_answer_is_the_text_as_written() -> None:
    console, out = piped()
    show_answer(console, RESPONSE)
    assert not console.is_terminal
    # Neither wrapped at the console's width nor styled: the Markdown as the answer wrote it.
    assert out.getvalue() == f"{ANSWER}\n· 주택임대차보호법 제7조\n매물 1건\n"


def plan_ready(requires_approval: bool) -> dict:
    step = {"step_id": "search", "team": "search", "task": "강남구 전세 시세 검색", "status": "pending"}
    approval = {"message": APPROVAL_PROMPT, "actions": ["approve", "modify", "reject"]}
    return {
        "type": "plan_ready",
        "run_id": "r1",
        "position": 3,
        "intent": "MARKET_INQUIRY",
        "confidence": 0.9,
        "strategy": "sequential",
        "mode": "rules",
        "execution_steps": [step],
        "requires_approval": requires_approval,
        "approval": approval if requires_approval else None,
    }


@pytest.mark.parametrize("requires_approval", [True, False])
def test_the_approval_prompt_comes_with_the_plan(requires_approval: bool) -> None:
    console = terminal()
    view, screen = RunView(run_id="r1"), Screen(console)
    message = plan_ready(requires_approval)
    view.apply(message)
    screen.show(view, message)
    screen.close()
    assert waits_for_approval(message) is requires_approval
    assert view.steps == message["execution_steps"]
    shown = "".join(console.export_text().split())  # the prompt may wrap
    assert ("".join(APPROVAL_PROMPT.split()) in shown) is requires_approval


def test_a_piped_run_shows_the_answer_on_lines_of_its_own() -> None:
    console, out = piped()
    view, screen = RunView(run_id="r1"), Screen(console)
    final = {"type": "final_response", "run_id": "r1", "position": 9, "response": RESPONSE}
    for message in (plan_ready(False), final):
        view.apply(message)
        screen.show(view, message)
    assert out.getvalue().endswith(f"0%\n{ANSWER}\n· 주택임대차보호법 제7조\n매물 1건\n")


def test_a_store_outage_is_shown_and_the_run_followed_on() -> None:
    """The gateway's `store_unavailable` error refuses nothing: the run waits and goes on."""
    console, out = piped()
    view, screen = RunView(run_id="r1"), Screen(console)
    notice = store_unavailable("r1")
    view.apply(notice)
    screen.show(view, notice)
    assert out.getvalue().split() == STORE_UNAVAILABLE.split() and view.response is None  # wrapped at 20
