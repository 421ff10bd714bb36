"""The terminal display: the plan once, a live todo table, the answer (its Markdown rendered on a
terminal, as written when piped). Silent for `--json`."""

from __future__ import annotations

from typing import Any

from rich.console import Console, Group
from rich.live import Live
from rich.markdown import Markdown
from rich.panel import Panel
from rich.progress_bar import ProgressBar
from rich.table import Table
from rich.text import Text

from contracts.websocket import STORE_UNAVAILABLE_CODE
from services.ask.view import RunView

STATUS_MARKS = {"pending": "·", "in_progress": "▶", "completed": "✔", "failed": "✘", "skipped": "↷"}


class Screen:
    """The terminal display: the plan once, a live todo table, the answer. Silent for `--json`."""

    def __init__(self, console: Console | None) -> None:
        self.console = console
        self.live: Live | None = None

    def show(self, view: RunView, message: dict[str, Any]) -> None:
        if self.console is None or message.get("run_id") != view.run_id:
            return
        kind = message["type"]
        if kind == "plan_ready":
            self.console.print(_plan_panel(message))
            if waits_for_approval(message):
                self.console.print(Text(message["approval"]["message"], style="yellow"))
            self.live = Live(_todo_table(view), console=self.console, transient=False, auto_refresh=False)
            self.live.start()
        elif kind in ("execution_start", "todo_updated") and self.live:
            self.live.update(_todo_table(view), refresh=True)
        elif kind == "input_request" or (kind == "error" and message["code"] == STORE_UNAVAILABLE_CODE):
            self.console.print(Text(message["message"], style="yellow"))
        elif kind == "final_response":
            self.close()
            show_answer(self.console, message["response"])

    def close(self) -> None:
        if self.live:
            self.live.stop()
            self.live = None
            if self.console is not None and not self.console.is_terminal:
                self.console.line()  # rich ends the table's last line only on a terminal


def _plan_panel(plan: dict[str, Any]) -> Panel:
    lines = [
        f"의도 {plan['intent']} ({plan['confidence']:.0%}) · 전략 {plan['strategy']} · {plan['mode']}",
        *[f"{i}. [{s['team']}] {s['task']}" for i, s in enumerate(plan["execution_steps"], 1)],
    ]
    return Panel(Text("\n".join(lines)), title="계획")


def _todo_table(view: RunView) -> Group:
    table = Table(show_header=True, header_style="bold")
    for column in ("", "단계", "팀", "할 일", "결과"):
        table.add_column(column)
    for step in view.steps:
        outcome = step.get("summary") or step.get("error") or ""
        mark = STATUS_MARKS.get(step["status"], "?")
        table.add_row(mark, step["step_id"], step["team"], Text(step["task"]), Text(outcome))
    return Group(table, ProgressBar(total=100, completed=view.progress_pct), Text(f"{view.progress_pct}%"))


def waits_for_approval(plan: dict[str, Any]) -> bool:
    """Whether a `plan_ready` is the run waiting for the person's approval (it then says how to answer)."""
    return plan.get("requires_approval") is True and isinstance(plan.get("approval"), dict)


def show_answer(console: Console, response: dict[str, Any]) -> None:
    """The answer: on a terminal its Markdown rendered (headings, lists, tables as tables) in a panel;
    anywhere else (a pipe, a file) the text as written, unwrapped and without styles."""
    if console.is_terminal:
        console.print(answer_panel(response))
    else:
        console.print(answer_text(response), markup=False, highlight=False, emoji=False, soft_wrap=True)


def answer_panel(response: dict[str, Any]) -> Panel:
    backing = _backing(response["data"])
    body = Group(Markdown(response["content"]), *([Text("\n".join(backing))] if backing else []))
    style = "red" if response["type"] == "error" else "green"
    return Panel(body, title=f"답변 ({response['type']})", border_style=style)


def answer_text(response: dict[str, Any]) -> str:
    return "\n".join([response["content"], *_backing(response["data"])])


def _backing(data: dict[str, Any]) -> list[str]:
    """What the answer rests on, one line each: citations, how many listings, the steps that failed."""
    lines = [f"· {c['law']} {c['article']}" for c in data.get("citations", [])]
    lines += [f"· 문서: {d['name']}" for d in data.get("documents", [])]
    if data.get("listings"):
        lines.append(f"매물 {len(data['listings'])}건")
    if data.get("failed_steps"):
        lines.append(f"실패한 단계: {', '.join(data['failed_steps'])}")
    return lines
