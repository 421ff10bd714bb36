"""How a run that cannot go on ends: the limits it runs within and the RunFailed for each cause.

Every run ends with exactly one of ResponseReady, RunFailed, RunCancelled or PlanRejected. A run
that cannot go on ends with RunFailed, whose `code` says why (operators read it in `jipsa audit`)
and whose `reason` is the sentence the person is shown: what went wrong and what to do.

| code                  | cause                                                          | decided by  |
|-----------------------|----------------------------------------------------------------|-------------|
| steps_failed          | every step settled, none completed, at least one failed        | decide.py   |
| too_many_input_rounds | a step asks the person again after `max_input_rounds`          | decide.py   |
| planning_failed       | the planner's QueryReceived message was parked                 | watchdog.py |
| decision_failed       | a supervisor message of the run was parked                     | watchdog.py |
| stalled               | no event for `stall_after_s` past the run's own deadlines      | watchdog.py |
| expired               | the person did not answer (approval, input) in `person_wait_s` | watchdog.py |

Pure: no I/O, no clock of its own; times come from the run's events and the caller's `now`.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from contracts.gateway import PlanRejected
from contracts.supervisor import ResponseReady, RunCancelled, RunFailed
from services.supervisor.run import RunState

ENDINGS = frozenset(e.event_type for e in (ResponseReady, RunFailed, RunCancelled, PlanRejected))
ASK_AGAIN = "잠시 후 다시 질문해 주세요."


@dataclass(frozen=True)
class RunLimits:
    """How long a run may go without news, wait for the person, and how often it may ask them."""

    stall_after_s: float = 300.0  # past its own deadlines (a step's timeout, a retry's backoff)
    person_wait_s: float = 86_400.0  # an approval or an answer the person has not given
    max_input_rounds: int = 5  # InputRequested per run: a step that keeps asking ends the run


DEFAULT_LIMITS = RunLimits()


def planning_failed(run_id: str) -> RunFailed:
    return RunFailed(
        run_id=run_id, code="planning_failed", reason=f"질문을 처리할 계획을 세우지 못했습니다. {ASK_AGAIN}"
    )


def decision_failed(run_id: str) -> RunFailed:
    reason = f"실행을 이어 가는 중 같은 오류가 되풀이되어 멈췄습니다. {ASK_AGAIN}"
    return RunFailed(run_id=run_id, code="decision_failed", reason=reason)


def steps_failed(state: RunState) -> RunFailed:
    failed = [s for s in state.steps.values() if s.status == "failed"]
    causes = ", ".join(f"{s.spec.task}: {s.error.message if s.error else '원인 불명'}" for s in failed)
    reason = f"작업이 모두 실패해 드릴 답이 없습니다({causes}). {ASK_AGAIN}"
    return RunFailed(run_id=state.run_id, code="steps_failed", reason=reason)


def too_many_input_rounds(state: RunState, limits: RunLimits) -> RunFailed:
    reason = (
        f"추가 정보를 {limits.max_input_rounds}번 여쭈었지만 작업을 끝내지 못했습니다. "
        "필요한 내용을 질문에 한꺼번에 적어 다시 보내 주세요."
    )
    return RunFailed(run_id=state.run_id, code="too_many_input_rounds", reason=reason)


def overdue_at(
    state: RunState, last_event_at: datetime, limits: RunLimits, watched_since: datetime
) -> datetime | None:
    """When a run that has had no event since `last_event_at` is to be ended (None: it has ended).

    A run waiting for the person expires `person_wait_s` after its last event. Any other run is
    overdue `stall_after_s` after the later of its last event and the deadline it waits on; its
    silence counts only from `watched_since` (when the caller began to see the store), so after a
    restart or an outage the services catching up on what they missed are not raced."""
    if state.outcome is not None:
        return None
    if state.waits_for_person:
        return last_event_at + timedelta(seconds=limits.person_wait_s)
    quiet_since = max(last_event_at, state.next_deadline or last_event_at, watched_since)
    return quiet_since + timedelta(seconds=limits.stall_after_s)


def overdue(
    state: RunState, last_event_at: datetime, now: datetime, limits: RunLimits, watched_since: datetime
) -> RunFailed | None:
    """The RunFailed that ends a run overdue by `now` (see `overdue_at`), or None."""
    due = overdue_at(state, last_event_at, limits, watched_since)
    if due is None or now < due:
        return None
    return _expired(state, limits) if state.waits_for_person else _stalled(state, limits)


def _expired(state: RunState, limits: RunLimits) -> RunFailed:
    waited = "계획 승인을" if state.approval == "requested" else "요청드린 정보를"
    reason = (
        f"{waited} {spoken(limits.person_wait_s)} 동안 기다렸지만 답이 없어 요청을 마감했습니다. "
        "이어서 진행하려면 질문을 다시 보내 주세요."
    )
    return RunFailed(run_id=state.run_id, code="expired", reason=reason)


def _stalled(state: RunState, limits: RunLimits) -> RunFailed:
    stage = "계획을 세우는" if not state.planned else "작업을 진행하는"
    reason = f"{stage} 중 {spoken(limits.stall_after_s)} 동안 진행이 없어 멈췄습니다. {ASK_AGAIN}"
    return RunFailed(run_id=state.run_id, code="stalled", reason=reason)


def spoken(seconds: float) -> str:
    """A duration as a person says it: 24시간, 5분, 90초."""
    for unit, name in ((3_600, "시간"), (60, "분")):
        if seconds >= unit and seconds % unit == 0:
            return f"{int(seconds // unit)}{name}"
    return f"{seconds:g}초"
