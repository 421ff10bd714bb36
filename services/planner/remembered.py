"""The facts the person stated before, added to a plan: every step's entities get those the current
turn does not state (services/housing/conversation.py decides which), and each step is told which came
from earlier, and which of those from an earlier conversation, so its answer can say so. What the plan
asks is still read from the turn alone.

Before is the session's earlier turns for a session of nobody; for a person's session, what Jipsa
remembers of the person (services/housing/memory.py), which holds the session's turns too, and none
while the person has turned remembering off.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from contracts.planner import PlanReady
from contracts.steps import inputs_for_plan, plan_inputs
from contracts.values import Intent, PlanStep
from services.housing.conversation import facts_stated, with_earlier_facts
from services.housing.memory import Memory, recalled_facts


@dataclass(frozen=True)
class Remembered:
    """The facts to answer with, and the fields among them said in an earlier conversation."""

    facts: dict[str, int] = field(default_factory=dict)
    recalled: frozenset[str] = frozenset()


def facts_of(earlier: Iterable[PlanReady]) -> Remembered:
    """The facts of the session's earlier runs, oldest first, as each was read when it was planned."""
    return Remembered(facts_stated(plan.intent.entities for plan in earlier))


def facts_of_person(memory: Memory, session_id: str | None) -> Remembered:
    """The facts remembered of the person; those first said in another session are recalled."""
    items = recalled_facts(memory)
    recalled = frozenset(name for name, item in items.items() if item.session_id != session_id)
    return Remembered(
        {name: item.amount for name, item in items.items() if item.amount is not None}, recalled
    )


def intent_remembering(intent: Intent, remembered: Remembered) -> Intent:
    """The intent's entities with the earlier facts, so the next turn's fold finds them here too."""
    entities, _ = with_earlier_facts(intent.entities, remembered.facts)
    return intent.model_copy(update={"entities": entities})


def steps_remembering(steps: list[PlanStep], remembered: Remembered) -> list[PlanStep]:
    return [_step_remembering(step, remembered) for step in steps] if remembered.facts else steps


def _step_remembering(step: PlanStep, remembered: Remembered) -> PlanStep:
    inputs = plan_inputs(step.inputs)
    entities, taken = with_earlier_facts(inputs.entities, remembered.facts)
    if not taken:
        return step
    recalled = [name for name in taken if name in remembered.recalled]
    update = {"entities": entities, "remembered": taken, "recalled": recalled}
    return step.model_copy(update={"inputs": inputs_for_plan(inputs.model_copy(update=update))})
