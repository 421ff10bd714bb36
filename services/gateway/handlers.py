"""The person's requests, handled: check that the run is theirs, build the event, append it."""

from __future__ import annotations

import asyncio

from contracts import Envelope
from contracts.results import Question
from contracts.supervisor import InputRequested, PlanApprovalRequested
from services.gateway import person_events
from services.gateway.protocol import (
    FrameError,
    InputResponseFrame,
    InterruptResponseFrame,
    QueryFrame,
    TodoSkipFrame,
)
from services.gateway.reads import Reads
from services.housing.form_answers import form_answers
from services.platform import telemetry
from services.platform.eventstore import EventStore, Recorded

APPROVAL_REQUEST_WAIT_S = 3.0


class UnknownRun(FrameError):
    """No run of this id in this session. Another session's run is reported the same way, so a session
    cannot even learn that it exists."""

    def __init__(self, run_id: str) -> None:
        super().__init__("unknown_run", f"this session has no run {run_id!r}")


class RunRequests:
    def __init__(self, store: EventStore, reads: Reads) -> None:
        self.store, self.reads = store, reads

    async def ask(self, session_id: str, frame: QueryFrame) -> Recorded:
        """A message that answers a form a run of the session waits on goes to that run, which goes on;
        any other is a new run, with its trace: the root span's context rides in QueryReceived's
        envelope, and every event the run causes inherits it."""
        if answered := await self._answer_form(session_id, frame.query):
            return answered
        envelope = person_events.query_received(frame, session_id)
        with telemetry.root_span("run", telemetry.envelope_attributes(envelope)):
            return await self._append(envelope.model_copy(update={"trace": telemetry.trace_context_now()}))

    async def _answer_form(self, session_id: str, message: str) -> Recorded | None:
        """InputProvided for the newest open form whose asked fields the message carries (read by the
        domain package); None when it carries none, as a new question does: the forms stay open."""
        for asked in await self.reads.open_forms(session_id):
            questions = [Question.model_validate(q) for q in asked.envelope.data["questions"]]
            if answers := form_answers(questions, message):
                return await self._append(
                    person_events.input_provided(asked.envelope, answers, session_id, message)
                )
        return None

    async def answer_plan(self, session_id: str, frame: InterruptResponseFrame) -> Recorded:
        run_id = frame.run_id or _the_one(
            await self.reads.runs_awaiting_approval(session_id), "a plan waiting for approval"
        )
        frame = frame.model_copy(update={"run_id": run_id})
        await self.first_event(session_id, run_id)
        asked = await self._approval_request(run_id)
        if asked is None:
            raise FrameError("not_awaiting_approval", f"run {run_id!r} has no plan waiting for approval")
        return await self._append(person_events.plan_answered(frame, session_id, asked.envelope))

    async def _approval_request(self, run_id: str) -> Recorded | None:
        """The run's PlanApprovalRequested, waiting a moment for it: the supervisor appends it right after
        PlanReady, and a client need not wait for the `plan_ready` that shows it before answering."""
        deadline = asyncio.get_running_loop().time() + APPROVAL_REQUEST_WAIT_S
        while (asked := await self.reads.latest_of_run(run_id, PlanApprovalRequested.event_type)) is None:
            if asyncio.get_running_loop().time() >= deadline:
                return None
            await asyncio.sleep(0.05)
        return asked

    async def answer_input(self, session_id: str, frame: InputResponseFrame) -> Recorded:
        await self.first_event(session_id, frame.run_id)
        asked = await self.reads.latest_of_run(frame.run_id, InputRequested.event_type)
        if asked is None or asked.envelope.data["step_id"] != frame.step_id:
            raise FrameError(
                "not_awaiting_input",
                f"step {frame.step_id!r} of run {frame.run_id!r} is not waiting for input",
            )
        answers = dict(frame.answers)
        return await self._append(person_events.input_provided(asked.envelope, answers, session_id))

    async def skip(self, session_id: str, frame: TodoSkipFrame) -> Recorded:
        holding = await self.reads.runs_holding_todo(session_id, frame.todo_id) if not frame.run_id else []
        run_id = frame.run_id or _the_one(holding, f"an unfinished todo {frame.todo_id!r}")
        frame = frame.model_copy(update={"run_id": run_id})
        cause = await self.first_event(session_id, run_id)
        return await self._append(person_events.skip_requested(frame, session_id, cause))

    async def cancel(self, session_id: str, run_id: str, reason: str | None = None) -> Recorded:
        cause = await self.first_event(session_id, run_id)
        return await self._append(person_events.cancel_requested(run_id, session_id, cause, reason))

    async def first_event(self, session_id: str, run_id: str) -> Envelope:
        """The run's QueryReceived (what a request about the run answers to), if the run is this session's."""
        first = await self.reads.first_of_run(run_id)
        if first is None or first.envelope.session_id != session_id:
            raise UnknownRun(run_id)
        return first.envelope

    async def _append(self, envelope: Envelope) -> Recorded:
        (recorded,) = await self.store.append([envelope])
        return recorded


def _the_one(run_ids: list[str], what: str) -> str:
    """The run a frame without run_id means: the only candidate, else an error that names them."""
    if len(run_ids) == 1:
        return run_ids[0]
    if not run_ids:
        raise FrameError("no_such_run", f"no run of this session has {what}")
    named = ", ".join(run_ids[:10])
    raise FrameError("ambiguous_run", f"several runs have {what}; send run_id, one of: {named}")
