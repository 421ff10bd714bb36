"""The facts the person stated in earlier turns, added to a plan: every step's entities get those the
current turn does not state (services/housing/conversation.py decides which), and each step is told
which came from earlier so its answer can say so. What the plan asks is still read from the turn alone.
"""

from __future__ import annotations

from collections.abc import Iterable

from contracts.entities import QueryEntities
from contracts.planner import PlanReady
from contracts.steps import inputs_for_plan, plan_inputs
from contracts.values import Intent, PlanStep
from services.housing.conversation import Facts, facts_stated, with_earlier_facts


def facts_of(earlier: Iterable[PlanReady]) -> dict[str, int]:
    """The facts of the session's earlier runs, oldest first, as each was read when it was planned."""
    return facts_stated(_reading(plan.intent) for plan in earlier)


def intent_remembering(intent: Intent, facts: Facts) -> Intent:
    """The intent's entities with the earlier facts, so the next turn's fold finds them here too."""
    entities, _ = with_earlier_facts(_reading(intent), facts)
    return intent.model_copy(update={"entities": entities.model_dump(mode="json", exclude_defaults=True)})


def steps_remembering(steps: list[PlanStep], facts: Facts) -> list[PlanStep]:
    return [_step_remembering(step, facts) for step in steps] if facts else steps


def _step_remembering(step: PlanStep, facts: Facts) -> PlanStep:
    inputs = plan_inputs(step.inputs)
    entities, taken = with_earlier_facts(inputs.entities, facts)
    if not taken:
        return step
    remembering = inputs.model_copy(update={"entities": entities, "remembered": taken})
    return step.model_copy(update={"inputs": inputs_for_plan(remembering)})


def _reading(intent: Intent) -> QueryEntities:
    """An intent's entities; unreadable ones count as none."""
    try:
        return QueryEntities.model_validate(intent.entities)
    except ValueError:
        return QueryEntities()
