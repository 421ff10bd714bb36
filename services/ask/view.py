"""What the person has been told about their run: a fold over the gateway's messages, and the `--json`
object made from it."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass
class RunView:
    """What the person has been told about their run so far: a fold over the server's messages."""

    run_id: str | None = None
    plan: dict[str, Any] | None = None
    steps: list[dict[str, Any]] = field(default_factory=list)
    progress_pct: int = 0
    response: dict[str, Any] | None = None
    input_request: dict[str, Any] | None = None  # the questions the run waits on, if it does
    saved: list[str] = field(default_factory=list)  # where `--save` put the run's documents

    def apply(self, message: dict[str, Any]) -> None:
        kind = message["type"]
        if kind == "planning_start" and self.run_id is None:
            self.run_id = message["run_id"]
        if message.get("run_id") != self.run_id:
            return  # a message about another run of the session (another terminal's)
        if kind == "plan_ready":
            self.plan, self.steps = message, message["execution_steps"]
        elif kind in ("execution_start", "todo_updated"):
            self.steps = message["execution_steps"]
            self.progress_pct = message.get("progress_pct", self.progress_pct)
        elif kind == "input_request":
            self.input_request = message
        elif kind == "final_response":
            self.response = message["response"]

    @property
    def failed(self) -> bool:
        return self.response is not None and self.response["type"] == "error"

    @property
    def documents(self) -> list[dict[str, Any]]:
        return list(((self.response or {}).get("data") or {}).get("documents", []))


def summary(view: RunView, session_id: str, events: int) -> dict[str, Any]:
    """The `--json` object."""
    plan = view.plan or {}
    waiting = {"type": "input_required", "content": (view.input_request or {}).get("message", ""), "data": {}}
    response = view.response or (
        waiting if view.input_request else {"type": "error", "content": "", "data": {}}
    )
    data = response["data"]
    metadata = data.get("metadata", {})
    return {
        "run_id": view.run_id,
        "session_id": session_id,
        "intent": {
            "type": plan.get("intent"),
            "confidence": plan.get("confidence"),
            "entities": plan.get("entities", {}),
        },
        "plan": {
            "strategy": plan.get("strategy"),
            "steps": [
                {k: step[k] for k in ("step_id", "team", "task", "depends_on", "status")}
                for step in view.steps
            ],
        },
        "response": {
            "type": response["type"],
            "answer": response["content"],
            "citations": data.get("citations", []),
            "listings": data.get("listings", []),
            # The supervisor may group the numbers an answer rests on under "figures"; else all metadata.
            "figures": metadata.get("figures", metadata),
            "documents": data.get("documents", []),
            "saved": view.saved,
            "questions": (view.input_request or {}).get("questions", []) if view.response is None else [],
        },
        "events": events,
    }
