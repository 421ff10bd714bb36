"""The fields of each event that hold what a person said about themselves, or what was made of it: the
question, the facts read from it (entities, keywords), the step inputs that carry them, a team's findings
and figures, the answer. In a run of a person's session these are sealed with the run's key
(services/platform/sealing.py) and read back as ERASED once the person has asked Jipsa to forget them.

A path names fields by key; `*` is every key of an object or every item of a list. A path must end at a
text (erased to ERASED), a list (to []) or an object (to {}), and the erased event must still be valid:
tests/contract/test_personal.py checks both on every example. Everything not named here stays clear:
ids, types, statuses, times, step plans' shape, what folds and routing need.
"""

from __future__ import annotations

ERASED = "(삭제됨)"

_STEP_PLANS = ("task", "inputs")

PERSONAL_FIELDS: dict[str, tuple[str, ...]] = {
    "QueryReceived": ("query",),
    "InputProvided": ("answers.*", "message"),
    "PlanApproved": tuple(f"modified_steps.*.{f}" for f in _STEP_PLANS),
    "PlanRejected": ("reason",),
    "RunCancelRequested": ("reason",),
    "PlanReady": ("intent.keywords", "intent.entities", *(f"steps.*.{f}" for f in _STEP_PLANS)),
    "PlanApprovalRequested": tuple(f"steps.*.{f}" for f in _STEP_PLANS),
    "StepStarted": ("task", "inputs", "copied_results"),
    "InputRequested": ("message",),
    "StepCompleted": (
        "summary",
        "result.headline",
        "result.findings",
        "result.figures",
        "result.data",
        "result.failed_tools",
        "result.documents.*.name",  # a contract's file is named after its parties
    ),
    "StepFailed": ("error.message",),
    "ResponseReady": ("answer", "insights", "metadata", "documents.*.name"),
    "LlmCallRecorded": ("error",),
    "ToolDecisionRecorded": ("reasoning",),
}
