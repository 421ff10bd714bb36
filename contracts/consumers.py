"""Who consumes what: the one list of the services that subscribe to each event, part of the published
description of the wire (contracts/asyncapi.json names them per channel).

Keys are the subject after `{namespace}.v{N}.`: the event type, and for an event routed by a field (a
StepStarted, by team) that field's value too. Every version of an event type has the same consumers,
since they read older versions upcast. Services subscribe from this list (the supervisor's triggers
are `consumed_by("supervisor")`), and tests/contract/test_consumers.py checks every service's
subscriptions against it, so the list and the code cannot drift apart.
"""

from __future__ import annotations

CONSUMERS: dict[str, tuple[str, ...]] = {
    "QueryReceived": ("planner",),
    "PlanReady": ("supervisor",),
    "PlanApproved": ("supervisor",),
    "PlanRejected": ("supervisor",),
    "StepCompleted": ("supervisor",),
    "StepFailed": ("supervisor",),
    "StepSkipRequested": ("supervisor",),
    "RunCancelRequested": ("supervisor",),
    "InputProvided": ("supervisor",),
    "StepStarted.search": ("search",),
    "StepStarted.analysis": ("analysis",),
    "StepStarted.document": ("document",),
}
# The projector folds every event into the read models; the publisher relays every event to NATS.
EVERY_EVENT_CONSUMERS = ("projector", "publisher")


def consumed_by(service: str) -> tuple[str, ...]:
    """The subject keys `service` subscribes to, in the list's order."""
    return tuple(key for key, services in CONSUMERS.items() if service in services)
