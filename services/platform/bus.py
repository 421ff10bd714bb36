"""NATS JetStream wiring: connections, the events stream and consumer policy, from infra/ data.

The stream holds a copy of the store for delivery; it is never the only copy
(see publisher.py). Every subject of a namespace goes to one stream, so one
`Nats-Msg-Id` duplicate window de-duplicates every re-publish.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from dataclasses import dataclass
from functools import cache
from typing import Any

from faststream.nats import NatsBroker, NatsMessage
from nats.aio.client import Client as NATS
from nats.js import JetStreamContext
from nats.js.api import DiscardPolicy, RetentionPolicy, StorageType, StreamConfig, StreamInfo
from nats.js.errors import NotFoundError

from contracts.subjects import stream_subjects
from services.platform.outages import BusUnreachable
from services.platform.settings import REPO_ROOT, InfraSettings

log = logging.getLogger(__name__)


@cache
def jetstream_config() -> dict[str, Any]:
    return json.loads((REPO_ROOT / "infra" / "nats" / "jetstream.json").read_text())


@dataclass(frozen=True)
class ConsumerPolicy:
    """What a consumer does with a message it cannot handle: retry with backoff, then park it."""

    ack_wait_s: float
    max_attempts: int
    backoff_s: tuple[float, ...]
    max_ack_pending: int
    fetch_batch: int
    concurrency: int

    @classmethod
    def from_infra(cls, **overrides: Any) -> ConsumerPolicy:
        values = {**jetstream_config()["consumer"], **overrides}
        return cls(**{**values, "backoff_s": tuple(values["backoff_s"])})

    def delay_after(self, delivery: int) -> float:
        return self.backoff_s[min(delivery, len(self.backoff_s)) - 1]


# Unbounded here: the service's stop bounds it (service.STOP_WITHIN_S), and a rebind after an outage
# must not cancel a handler that holds its message until the store answers.
HANDLED_BEFORE_STOP_S = float("inf")
FIRST_CONNECT_S = 5.0  # a first connection NATS does not answer in this long is an outage (BusUnreachable)
DRAIN_WITHIN_S = 1.0  # a drain waits for a reconnection that may never come


class Broker(NatsBroker):
    """FastStream's NATS broker for one binding of one consumer, set up through its constructor only.

    It opens a connection of its own (reconnecting for ever, like `connect`'s) when it starts and drains
    it when it stops. The consumers would rather share the process's connection, but FastStream takes
    no connection it did not open: its broker dials in a private `_connect` and drains what it holds in
    `stop`, and overriding those private members is what any FastStream release may break. So each
    binding costs a connection of its own, and the process's connection (`connect`) keeps the rest:
    declaring the stream and the consumers, the lag sample, the announcements. Handlers get
    FastStream's message itself, its body not decoded: a consumer reads the envelope once, its own way.
    Its own logging is off: the consumers log what they decide."""

    def __init__(self, url: str = "nats://127.0.0.1:4222", name: str | None = None) -> None:
        async def on_error(e: Exception) -> None:  # the consumer's rebind says what the outage was
            log.debug("nats %s: %s", name, e)

        self.nats_url = url
        super().__init__(
            url.split(","),
            name=name,
            max_reconnect_attempts=-1,
            reconnect_time_wait=0.5,  # type: ignore[arg-type]  # annotated int; it is a sleep
            error_cb=on_error,
            logger=None,
            apply_types=False,
            decoder=_itself,
            graceful_timeout=HANDLED_BEFORE_STOP_S,
        )

    async def dial(self) -> NATS:
        """Its connection, the first one bounded (`BusUnreachable`): nats-py would retry it for ever."""
        try:
            return await asyncio.wait_for(self.connect(), FIRST_CONNECT_S)
        except TimeoutError:
            raise BusUnreachable(self.nats_url) from None

    async def hang_up(self, connection: NATS | None) -> None:
        """Stop it and its connection: FastStream's stop drains the connection, which raises while it is
        reconnecting (and would leave it reconnecting for ever), so what is left is closed here."""
        with contextlib.suppress(Exception):
            await asyncio.wait_for(self.stop(), DRAIN_WITHIN_S)
        if connection is not None and not connection.is_closed:
            await connection.close()


async def _itself(message: NatsMessage) -> NatsMessage:
    return message


async def connect(url: str, name: str, first_connect_s: float = 5.0) -> NATS:
    """A connection that keeps reconnecting for ever: a NATS restart is an outage, not a crash.

    The first connection is bounded (`BusUnreachable`): nats-py would retry it for ever too.
    """

    async def on_error(e: Exception) -> None:
        if nc.is_connected or nc.is_reconnecting:  # a refused first connection ends in BusUnreachable
            log.warning("nats %s: %s", name, e)

    async def on_disconnect() -> None:
        log.warning("nats %s: disconnected", name)

    async def on_reconnect() -> None:
        log.info("nats %s: reconnected", name)

    nc = NATS()
    first = nc.connect(
        url.split(","),
        name=name,
        max_reconnect_attempts=-1,
        reconnect_time_wait=0.5,  # type: ignore[arg-type]  # annotated int; it is a sleep, so a float
        error_cb=on_error,
        disconnected_cb=on_disconnect,
        reconnected_cb=on_reconnect,
    )
    try:
        await asyncio.wait_for(first, first_connect_s)
        return nc
    except TimeoutError:
        raise BusUnreachable(url) from None


def stream_config(settings: InfraSettings) -> StreamConfig:
    s = jetstream_config()["stream"]
    return StreamConfig(
        name=settings.stream_name,
        subjects=stream_subjects(settings.namespace),
        storage=StorageType(s["storage"]),
        retention=RetentionPolicy(s["retention"]),
        discard=DiscardPolicy(s["discard"]),
        max_age=s["max_age_s"],
        duplicate_window=s["duplicate_window_s"],
        num_replicas=settings.stream_replicas,  # 1 on one machine, 3 on the compose cluster
    )


async def ensure_stream(js: JetStreamContext, settings: InfraSettings) -> StreamInfo:
    """The events stream, created if it is missing (first start, or NATS lost its storage)."""
    try:
        return await js.stream_info(settings.stream_name)
    except NotFoundError:
        info = await js.add_stream(stream_config(settings))
        log.info("created stream %s", settings.stream_name)
        return info
