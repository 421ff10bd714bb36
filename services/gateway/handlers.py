"""The person's requests, handled: check that the run is theirs and waits for this, then record it.

A request about a run is decided on the run's stream, folded (frames/run_waits.py), and appended expecting the
version read, in one transaction. Two identical requests racing (two sockets of a session, a socket
and REST) both read version N; the first appends N+1, the second meets ConcurrencyError, reads the run
again and is refused by the fold (an answer given already): one event, one `error`. Any other writer
of the run (the supervisor, a team) costs a re-read too, hence a few tries before giving up.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime

from contracts import Envelope, run_stream
from contracts.results import Question
from services.gateway.feed.reads import Reads
from services.gateway.frames import person_events
from services.gateway.frames.protocol import (
    FrameError,
    InputResponseFrame,
    InterruptResponseFrame,
    QueryFrame,
    TodoSkipFrame,
    quoted,
)
from services.gateway.frames.run_waits import RunWaits, fold
from services.housing.dates import korean_day
from services.housing.form_answers import dated_answers, form_answers
from services.platform import telemetry
from services.platform.eventstore import (
    Announce,
    ConcurrencyError,
    Recorded,
    append_anywhere,
    append_in,
    read_stream_in,
)

APPROVAL_REQUEST_WAIT_S = 3.0
# Reads of the run before a busy run's request is refused (each lost race means the run moved on).
APPEND_TRIES = 5

Decide = Callable[[RunWaits], Envelope]


def utc_now() -> datetime:
    return datetime.now(UTC)


class UnknownRun(FrameError):
    """No run of this id in this session. Another session's run is reported the same way, so a session
    cannot even learn that it exists."""

    def __init__(self, run_id: str) -> None:
        super().__init__("unknown_run", f"this session has no run {quoted(run_id)}")


class RunRequests:
    """The person's requests as events of the log. `announce`, when given, publishes each appended
    event right after its commit (HeldBus.announce); the relay's copy is then the safety net."""

    def __init__(
        self,
        reads: Reads,
        announce: Announce | None = None,
        clock: Callable[[], datetime] = utc_now,
        person_of: Callable[[str], Awaitable[str | None]] | None = None,
    ) -> None:
        self.reads, self.announce, self.clock = reads, announce, clock
        self.person_of = person_of  # whose session it is (Sessions.person_of); a question carries it

    async def ask(self, session_id: str, frame: QueryFrame) -> Recorded:
        """A message that answers a form a run of the session waits on goes to that run, which goes on;
        any other is a new run, with its trace: the root span's context rides in QueryReceived's
        envelope, and every event the run causes inherits it."""
        if answered := await self._answer_form(session_id, frame.query):
            return answered
        person_id = await self.person_of(session_id) if self.person_of is not None else None
        envelope = person_events.query_received(frame, session_id, person_id)
        with telemetry.root_span("run", telemetry.envelope_attributes(envelope)):
            return await self._append(envelope.model_copy(update={"trace": telemetry.trace_context_now()}))

    async def _answer_form(self, session_id: str, message: str) -> Recorded | None:
        """InputProvided for the newest open form whose asked fields the message carries (read by the
        domain package); None when it carries none, as a new question does: the forms stay open. Dates
        said relatively ('내일') are read against the message's time, which InputProvided records."""
        said_at = self.clock()
        for asked in await self.reads.open_forms(session_id):
            questions = [Question.model_validate(q) for q in asked.envelope.data["questions"]]
            if not (answers := form_answers(questions, message, korean_day(said_at))):
                continue
            step_id = asked.envelope.data["step_id"]

            def provided(waits: RunWaits, step_id: str = step_id, answers: dict = answers) -> Envelope:
                request = waits.input_request_to_answer(step_id)
                return person_events.input_provided(request, answers, session_id, message, said_at)

            try:
                return await self._decided(session_id, asked.envelope.correlation_id, provided)
            except FrameError:
                continue  # answered meanwhile (another socket): the message is not that form's answer
        return None

    async def answer_plan(self, session_id: str, frame: InterruptResponseFrame) -> Recorded:
        run_id = frame.run_id or _the_one(
            await self.reads.runs_awaiting_approval(session_id), "a plan waiting for approval"
        )
        frame = frame.model_copy(update={"run_id": run_id})
        await self._approval_requested(session_id, run_id)
        return await self._decided(
            session_id,
            run_id,
            lambda waits: person_events.plan_answered(frame, session_id, waits.approval_request_to_answer()),
        )

    async def _approval_requested(self, session_id: str, run_id: str) -> None:
        """Wait a moment for the supervisor's PlanApprovalRequested, which it appends right after PlanReady:
        a client need not wait for the `plan_ready` that shows it before answering."""
        deadline = asyncio.get_running_loop().time() + APPROVAL_REQUEST_WAIT_S
        while (await self._waits(session_id, run_id)).approval_may_come:
            if asyncio.get_running_loop().time() >= deadline:
                return
            await asyncio.sleep(0.05)

    async def answer_input(self, session_id: str, frame: InputResponseFrame) -> Recorded:
        """The form's answers, a date typed relatively ('내일') written as the day it means at this time."""
        said_at = self.clock()

        def provided(waits: RunWaits) -> Envelope:
            request = waits.input_request_to_answer(frame.step_id)
            questions = [Question.model_validate(q) for q in request.data["questions"]]
            answers = dated_answers(questions, dict(frame.answers), korean_day(said_at))
            return person_events.input_provided(request, answers, session_id, occurred_at=said_at)

        return await self._decided(session_id, frame.run_id, provided)

    async def skip(self, session_id: str, frame: TodoSkipFrame) -> Recorded:
        holding = await self.reads.runs_holding_todo(session_id, frame.todo_id) if not frame.run_id else []
        run_id = frame.run_id or _the_one(holding, f"an unfinished todo {quoted(frame.todo_id)}")
        frame = frame.model_copy(update={"run_id": run_id})

        def skip_requested(waits: RunWaits) -> Envelope:
            waits.check_skippable(frame.todo_id)
            return person_events.skip_requested(frame, session_id, waits.first)

        return await self._decided(session_id, run_id, skip_requested)

    async def cancel(self, session_id: str, run_id: str, reason: str | None = None) -> Recorded:
        def cancel_requested(waits: RunWaits) -> Envelope:
            waits.check_cancellable()
            return person_events.cancel_requested(run_id, session_id, waits.first, reason)

        return await self._decided(session_id, run_id, cancel_requested)

    async def first_event(self, session_id: str, run_id: str) -> Envelope:
        """The run's QueryReceived (what a request about the run answers to), if the run is this session's."""
        first = await self.reads.first_of_run(run_id)
        if first is None or first.envelope.session_id != session_id:
            raise UnknownRun(run_id)
        return first.envelope

    async def _waits(self, session_id: str, run_id: str) -> RunWaits:
        async with self.reads.connection() as conn:
            return _owned(session_id, fold(run_id, await read_stream_in(conn, run_stream(run_id))))

    async def _decided(self, session_id: str, run_id: str, decide: Decide) -> Recorded:
        """The event `decide` makes of the run as it stands, appended only if the run has not moved since."""
        for _ in range(APPEND_TRIES):
            try:
                async with self.reads.connection() as conn, conn.transaction():
                    waits = _owned(session_id, fold(run_id, await read_stream_in(conn, run_stream(run_id))))
                    (recorded,) = await append_in(
                        conn,
                        [decide(waits)],
                        expected_version=waits.version,
                        announced=self.announce is not None,
                    )
                return await self._announced(recorded)
            except ConcurrencyError:
                continue
        raise FrameError("run_busy", f"run {quoted(run_id)} kept changing; send the request again")

    async def _append(self, envelope: Envelope) -> Recorded:
        (recorded,) = await append_anywhere(
            self.reads.pool,
            [envelope],
            announced=self.announce is not None,
            timeout=self.reads.acquire_timeout_s,
        )
        return await self._announced(recorded)

    async def _announced(self, recorded: Recorded) -> Recorded:
        """`recorded`, committed, once announced (if this gateway announces)."""
        if self.announce is not None:
            await self.announce([recorded])
        return recorded


def _owned(session_id: str, waits: RunWaits) -> RunWaits:
    if waits.session_id != session_id:
        raise UnknownRun(waits.run_id)
    return waits


def _the_one(run_ids: list[str], what: str) -> str:
    """The run a frame without run_id means: the only candidate, else an error that names them."""
    if len(run_ids) == 1:
        return run_ids[0]
    if not run_ids:
        raise FrameError("no_such_run", f"no run of this session has {what}")
    named = ", ".join(run_ids[:10])
    raise FrameError("ambiguous_run", f"several runs have {what}; send run_id, one of: {named}")
