"""The relay from the event store to JetStream (a transactional outbox whose outbox is the log itself).

Events reach NATS only after they are committed, because this process reads
them from the store. It publishes in position order with `Nats-Msg-Id` =
event_id and records, per batch, the last position published and the stream
sequence NATS acknowledged. After a crash it resumes from that checkpoint; a
batch published twice is de-duplicated by JetStream inside its duplicate window
and by every consumer's inbox outside it.

If NATS loses its storage, the stream comes back empty: the next
acknowledgement carries a sequence at or below the one we recorded (or the
stream's last sequence is below it when we look while idle). The store is then
re-fed from position 0, so nothing in NATS is ever the only copy.
"""

from __future__ import annotations

import asyncio
import logging
import signal
from dataclasses import dataclass

from nats.js import JetStreamContext
from psycopg_pool import AsyncConnectionPool

from contracts import subject_for
from services.platform import telemetry
from services.platform.bus import ensure_stream
from services.platform.eventstore import EventStore, Recorded
from services.platform.settings import InfraSettings
from services.platform.wakeup import StoreWakeup

log = logging.getLogger("jipsa.publisher")
CHECKPOINT = "publisher"
ACK_TIMEOUT_S = 10.0


@dataclass(frozen=True)
class Checkpoint:
    position: int
    stream_seq: int


def headers_for(record: Recorded) -> dict[str, str]:
    e = record.envelope
    headers = {
        "Nats-Msg-Id": str(e.event_id),
        "Jipsa-Event-Type": e.event_type,
        "Jipsa-Schema-Version": str(e.schema_version),
        "Jipsa-Position": str(record.position),
        "Jipsa-Correlation-Id": e.correlation_id,
    }
    if e.trace.traceparent:
        headers["traceparent"] = e.trace.traceparent
    return headers


class StreamLost(Exception):
    """NATS acknowledged a sequence that proves the stream was recreated empty."""


class Publisher:
    def __init__(
        self, pool: AsyncConnectionPool, js: JetStreamContext, settings: InfraSettings, batch: int = 500
    ):
        self.store = EventStore(pool)
        self.pool, self.js, self.settings, self.batch = pool, js, settings, batch

    async def publish_pending(self) -> int:
        """Publish everything committed after the checkpoint; returns how many events went out."""
        total = 0
        while True:
            checkpoint = await self.checkpoint()
            records = await self.store.read_all(checkpoint.position, self.batch)
            if not records:
                return total
            try:
                last_seq = await self._publish(records, checkpoint)
            except StreamLost:
                await self.refeed()
                continue
            await self._save(Checkpoint(records[-1].position, last_seq))
            total += len(records)

    async def verify_stream(self) -> None:
        """While idle, notice a stream that came back empty before any new event would show it."""
        await ensure_stream(self.js, self.settings)
        info = await self.js.stream_info(self.settings.stream_name)
        if info.state.last_seq < (await self.checkpoint()).stream_seq:
            await self.refeed()

    async def refeed(self) -> None:
        log.warning("stream %s lost its messages: re-feeding it from the store", self.settings.stream_name)
        await ensure_stream(self.js, self.settings)
        await self._save(Checkpoint(0, 0))

    async def checkpoint(self) -> Checkpoint:
        async with self.pool.connection() as conn:
            row = await (
                await conn.execute("SELECT position, state FROM checkpoints WHERE name = %s", (CHECKPOINT,))
            ).fetchone()
        return Checkpoint(row["position"], row["state"]["stream_seq"]) if row else Checkpoint(0, 0)

    async def run(self, stop: asyncio.Event, idle_check_s: float = 5.0) -> None:
        """Publish on every commit notification (and at least every `idle_check_s`) until `stop` is set.

        The stream is verified before each catch-up: one cheap request, and the only way to notice
        a wiped NATS while nothing new is being published.
        """
        async with StoreWakeup(self.settings.database_url) as wakeup:
            while not stop.is_set():
                try:
                    await self.verify_stream()
                    await self.publish_pending()
                except (
                    Exception
                ) as e:  # any outage of NATS or Postgres: wait, then catch up from the checkpoint
                    log.warning("publisher: %s: %s; retrying", type(e).__name__, e)
                    await asyncio.sleep(1.0)
                    continue
                await wakeup.wait(stop, idle_check_s)

    async def _publish(self, records: list[Recorded], checkpoint: Checkpoint) -> int:
        # One batch carries events of many runs, so its span starts a trace of its own, linked to each
        # event's; the events' own traces go on to the consumers through the `traceparent` header.
        attributes = {
            "messaging.system": "nats",
            "messaging.operation.type": "send",
            "messaging.destination.name": self.settings.stream_name,
            "messaging.batch.message_count": len(records),
            "jipsa.position.first": records[0].position,
            "jipsa.position.last": records[-1].position,
        }
        links = telemetry.links_to(r.envelope for r in records)
        with telemetry.root_span(f"publish {self.settings.stream_name}", attributes, links):
            return await self._publish_batch(records, checkpoint)

    async def _publish_batch(self, records: list[Recorded], checkpoint: Checkpoint) -> int:
        futures = [
            await self.js.publish_async(
                subject_for(r.envelope, self.settings.namespace),
                r.envelope.model_dump_json().encode(),
                headers=headers_for(r),
            )
            for r in records
        ]
        acks = await asyncio.wait_for(asyncio.gather(*futures), ACK_TIMEOUT_S)
        last_seq = checkpoint.stream_seq
        for ack in acks:
            if not ack.duplicate:
                if ack.seq <= last_seq:
                    raise StreamLost
                last_seq = ack.seq
        return last_seq

    async def _save(self, checkpoint: Checkpoint) -> None:
        async with self.pool.connection() as conn:
            await conn.execute(
                """
                INSERT INTO checkpoints (name, position, state, updated_at)
                VALUES (%s, %s, jsonb_build_object('stream_seq', %s::bigint), now())
                ON CONFLICT (name) DO UPDATE SET position = excluded.position, state = excluded.state,
                                                 updated_at = now()
                """,
                (CHECKPOINT, checkpoint.position, checkpoint.stream_seq),
            )


async def main() -> None:
    from services.platform.bus import connect
    from services.platform.db import open_pool
    from services.platform.probes import ProbeSettings, Readiness, bus_answers, pool_answers, probes_served
    from services.platform.runtime import load_infra_settings
    from services.platform.telemetry import setup_telemetry

    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s %(message)s")
    setup_telemetry("publisher")
    settings = load_infra_settings()
    stop = asyncio.Event()
    for sig in (signal.SIGINT, signal.SIGTERM):
        asyncio.get_running_loop().add_signal_handler(sig, stop.set)
    pool = await open_pool(settings.database_url, max_size=2)
    nc = await connect(settings.nats_url, "publisher")
    readiness = Readiness({"postgres": pool_answers(pool), "nats": bus_answers(nc)}, waiting=None)
    try:
        async with probes_served(ProbeSettings(), readiness):
            await Publisher(pool, nc.jetstream(), settings).run(stop)
    finally:
        await nc.drain()
        await pool.close()


if __name__ == "__main__":
    asyncio.run(main())
