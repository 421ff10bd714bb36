"""How a run is answered once every step has settled: the rules answer (response.py), rewritten by the
run's one `response_synthesis` call when an endpoint is configured and the rewrite stays grounded."""

from __future__ import annotations

import asyncio
import json
import logging
from collections import OrderedDict
from collections.abc import Sequence

from contracts import Event
from contracts.telemetry import LlmCallRecorded
from services.platform.grounding import lines_within
from services.platform.llm import LlmClient
from services.supervisor.handlers import Respond
from services.supervisor.response import compose, grounded, synthesis_inputs
from services.supervisor.run import RunState

log = logging.getLogger("jipsa.supervisor")
RECENT_ANSWERS = 256  # runs whose answer a second decision of the same run can reuse


async def respond_by_rules(state: RunState) -> Sequence[Event]:
    return [compose(state)]


def respond_with(llm: LlmClient) -> Respond:
    """The rules answer, rewritten by the run's one `response_synthesis` call when it stays grounded.

    The rewrite may add key insights, risks and next steps drawn from the analyses' results (in
    this call rather than one of their own, which would add a model round trip to every answer). An
    answer that cites an article no step produced is not used; a line that quotes a number no step
    produced is dropped from it; an answer left with nothing is not used. Whatever is not used leaves
    the rules answer unchanged.

    Two triggers of one run (its last two steps finishing together) can both decide to answer before
    either records it; the loser's append is rolled back and it decides again. So that the model is
    not asked twice, a run whose steps settled the same way gets the answer already asked for (kept
    for the last RECENT_ANSWERS runs of this process)."""
    answers: OrderedDict[tuple[object, ...], asyncio.Future[list[Event]]] = OrderedDict()

    async def respond(state: RunState) -> Sequence[Event]:
        key = (state.run_id, *sorted((i, s.status, s.attempt) for i, s in state.steps.items()))
        if key not in answers:
            answers[key] = asyncio.ensure_future(_synthesise(llm, state))
            while len(answers) > RECENT_ANSWERS:
                answers.popitem(last=False)
        asked = answers[key]
        try:
            return list(await asyncio.shield(asked))
        except Exception:
            if answers.get(key) is asked:
                del answers[key]
            raise

    return respond


async def _synthesise(llm: LlmClient, state: RunState) -> list[Event]:
    by_rules = compose(state)
    if by_rules.response_type != "answer":
        return [by_rules]
    inputs = synthesis_inputs(state)
    result = await llm.text("response_synthesis", inputs, run_id=state.run_id, fallback=lambda: "")
    if not result.used_llm:
        return [result.record, by_rules]
    if not grounded(result.value, state):
        return [_unused(result.record, "ungrounded citation"), by_rules]
    source = json.dumps(inputs["step_results"], ensure_ascii=False)
    answer, dropped = lines_within(result.value, source)
    if dropped:
        log.info(
            "run %s: %d answer line(s) quoting numbers no step produced dropped", state.run_id, len(dropped)
        )
    if not answer:
        return [_unused(result.record, "no line grounded in the results"), by_rules]
    return [result.record, by_rules.model_copy(update={"answer": answer})]


def _unused(record: LlmCallRecorded, why: str) -> LlmCallRecorded:
    return record.model_copy(update={"outcome": "invalid_output", "fallback_used": True, "error": why})
