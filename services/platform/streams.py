"""The events stream brought to its configuration at start: replicas and limits as the settings say.

`bus.ensure_stream` creates a missing stream; a stream that exists keeps the configuration it was
created with. A deployment that grows from one NATS server to a cluster (JIPSA_STREAM_REPLICAS=3), or
changes a limit in infra/nats/jetstream.json, needs the existing stream changed: the publisher calls
`reconcile_stream` once when it starts, which updates what JetStream lets an existing stream change
and logs each change ("stream JIPSA_EVENTS: replicas 1 -> 3").

What JetStream keeps for a stream's life (its storage type; a retention to or from workqueue) is
refused with an error in the log and the stream kept as it is: the store holds every event, so the
remedy is to delete the stream, which the publisher creates again and re-feeds from the store. An
update the servers refuse (more replicas than the cluster has servers, replicas on a server that is
not in a cluster) is logged the same way; the stream keeps working as it was.
"""

from __future__ import annotations

import logging
from enum import Enum
from typing import Any

from nats.js import JetStreamContext
from nats.js.api import StreamConfig, StreamInfo
from nats.js.errors import BadRequestError, ServerError

from services.platform.bus import ensure_stream, stream_config
from services.platform.settings import InfraSettings

log = logging.getLogger(__name__)

# The fields `bus.stream_config` sets, with the names the log gives them; the rest stay as they are.
MANAGED = {
    "subjects": "subjects",
    "storage": "storage",
    "retention": "retention",
    "discard": "discard",
    "max_age": "max_age_s",
    "duplicate_window": "duplicate_window_s",
    "num_replicas": "replicas",
}

REMEDY = (
    "delete the stream (nats stream rm {name}): the publisher creates it again and re-feeds it from the store"
)


def comparable(value: Any) -> Any:
    """A config value as the server's answer and our config can both be compared: enums by their
    value (stream_info answers strings), subjects in any order, whole seconds as integers."""
    if isinstance(value, Enum):
        return value.value
    if isinstance(value, list):
        return sorted(comparable(v) for v in value)
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value


def differences(current: StreamConfig, desired: StreamConfig) -> dict[str, tuple[Any, Any]]:
    """{field: (what the stream has, what the settings ask)} for each managed field that differs."""
    changed = {}
    for field in MANAGED:
        have, want = comparable(getattr(current, field)), comparable(getattr(desired, field))
        if want is not None and have != want:
            changed[field] = (have, want)
    return changed


def refusal(field: str, have: Any, want: Any) -> str | None:
    """Why JetStream would refuse this change to an existing stream, if it would."""
    if field == "storage":
        return "JetStream keeps a stream's storage type for its life"
    if field == "retention" and "workqueue" in (have, want):
        return "JetStream cannot change a stream's retention to or from workqueue"
    return None


def shown(value: Any) -> str:
    return ",".join(value) if isinstance(value, list) else str(value)


async def reconcile_stream(js: JetStreamContext, settings: InfraSettings) -> StreamInfo:
    """The events stream, created if missing, else updated to the settings where it differs."""
    info = await ensure_stream(js, settings)
    name = settings.stream_name
    desired = stream_config(settings)
    changes = differences(info.config, desired)
    for field, (have, want) in list(changes.items()):
        if reason := refusal(field, have, want):
            del changes[field]
            log.error(
                "stream %s: %s stays %s (the settings ask %s): %s; to change it, %s",
                name, MANAGED[field], shown(have), shown(want), reason, REMEDY.format(name=name),
            )  # fmt: skip
    if not changes:
        return info
    try:
        updated = await js.update_stream(info.config.evolve(**{f: getattr(desired, f) for f in changes}))
    except (BadRequestError, ServerError) as e:  # the servers' refusal; an outage (timeout, 503) is raised
        log.error(
            "stream %s: not updated (%s): %s; it keeps working as it is",
            name, "; ".join(f"{MANAGED[f]} {shown(h)} -> {shown(w)}" for f, (h, w) in changes.items()),
            e.description,
        )  # fmt: skip
        return info
    for field, (have, want) in changes.items():
        log.info("stream %s: %s %s -> %s", name, MANAGED[field], shown(have), shown(want))
    return updated
