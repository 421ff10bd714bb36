"""`make bench`: the backbone's figures beside the raw ceilings measured in the same run.

Every figure is printed with its ceiling and the ratio between them, because on a
shared 2-core machine an absolute number says little and a ratio to the bare
driver on the same machine, at the same moment, says what our code costs.
Sizes: BENCH_EVENTS (default 2000).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import random
import signal
import statistics
import sys
import tempfile
import time
import uuid
from collections.abc import AsyncIterator, Callable, Sequence
from pathlib import Path

import psycopg
from faststream import AckPolicy as Settling
from faststream.nats import JStream, NatsMessage, PullSub
from nats.js.api import AckPolicy, ConsumerConfig
from psycopg.rows import tuple_row

from services.platform import heap, loop
from services.platform.bus import Broker, ConsumerPolicy, connect, ensure_stream
from services.platform.consumer import Consumer, HandlerContext, Outcome, Subscription
from services.platform.db import migrate, open_pool
from services.platform.eventstore import EVENT_COLUMNS, EventStore, Recorded
from services.platform.publisher import Announcer, Publisher
from services.platform.settings import InfraSettings
from tests.integration.bus_helpers import plan_once, query_event, running, wait_until
from tests.servers import real_servers

N = int(os.environ.get("BENCH_EVENTS", "2000"))
BATCH = 100
COMMIT_GAP_S = 0.005  # between the commit -> handler rows' appends
IDLE_SAMPLES = 20  # appends 0.05-2 s apart (past the fetch's 1 s expiry too): about 20 s


def rate(n: int, seconds: float) -> float:
    return n / seconds if seconds else float("inf")


def row(name: str, value: float, unit: str, ceiling: float | None = None, ceiling_name: str = "") -> None:
    shown = f"{ceiling:,.2f}" if ceiling and ceiling < 100 else f"{ceiling or 0:,.0f}"  # a hop is under 1 ms
    ratio = f"{value / ceiling:6.2f}x of {ceiling_name} ({shown} {unit})" if ceiling else ""
    print(f"  {name:<44} {value:>12,.2f} {unit:<9} {ratio}")


async def bare_inserts(url: str) -> tuple[float, float]:
    """The ceiling: plain inserts into a table with no index, each transaction committed. Each event's own
    document goes in, as an append's do (the store's events carry one each; so do these)."""
    async with await psycopg.AsyncConnection.connect(url) as conn:
        # A logged table, as events is: a temporary one writes no WAL, so its commits skip the fsync
        # every append pays, and the ratio measured the disk rather than our code. Committed before the
        # clock: a statement outside `transaction()` leaves one open, and every `transaction()` after it
        # would be a savepoint that never commits (the ceiling once measured exactly that).
        async with conn.transaction():
            await conn.execute("CREATE TABLE bare (id bigserial, event_id uuid, data jsonb)")
        payloads = [query_event(f"bare{i % 50}").model_dump_json() for i in range(N)]
        start = time.perf_counter()
        for payload in payloads:
            async with conn.transaction():
                await conn.execute(
                    "INSERT INTO bare (event_id, data) VALUES (%s, %s)", (uuid.uuid4(), payload)
                )
        single = rate(N, time.perf_counter() - start)
        batches = [payloads[b : b + BATCH] for b in range(0, N // BATCH * BATCH, BATCH)]
        start = time.perf_counter()
        for batch in batches:
            async with conn.transaction():
                await conn.execute(
                    # Binary arrays, as an append sends them (psycopg's text arrays escape each element).
                    "INSERT INTO bare (event_id, data)"
                    " SELECT i, d::jsonb FROM unnest(%b::uuid[], %b::text[]) AS x(i, d)",
                    ([uuid.uuid4() for _ in batch], batch),
                )
        batched = rate(len(batches) * BATCH, time.perf_counter() - start)
    return single, batched


async def bare_read(pool) -> float:
    """The ceiling: the whole log read by psycopg in batches of 1,000, each event's every column as the
    driver gives it (its two documents decoded), no model built. The rebuild reads fewer columns and
    builds no envelope, so the store's own read (`read_all`, an envelope per event), the ceiling
    before, was slower than the rebuild it measured."""
    async with pool.connection() as conn:
        start = time.perf_counter()
        read = position = 0
        while rows := await (
            await conn.cursor(row_factory=tuple_row).execute(
                f"SELECT {EVENT_COLUMNS} FROM events WHERE position > %s ORDER BY position LIMIT 1000",
                (position,),
            )
        ).fetchall():
            read, position = read + len(rows), rows[-1][0]
        return rate(read, time.perf_counter() - start)


async def store_appends(store: EventStore) -> tuple[float, float]:
    singles = [query_event(f"single{i % 50}") for i in range(N)]  # built outside the clock, as bare's are
    batches = [[query_event(f"batch{b}-{i % 10}") for i in range(BATCH)] for b in range(N // BATCH)]
    start = time.perf_counter()
    for event in singles:
        await store.append([event])
    single = rate(N, time.perf_counter() - start)
    start = time.perf_counter()
    for batch in batches:
        await store.append(batch)
    return single, rate(N // BATCH * BATCH, time.perf_counter() - start)


async def bare_publish(nc, settings: InfraSettings) -> float:
    js = nc.jetstream()
    subject = f"{settings.namespace}.bench.bare"
    payload = query_event("bare").model_dump_json().encode()
    start = time.perf_counter()
    futures = [
        await js.publish_async(subject, payload, headers={"Nats-Msg-Id": str(uuid.uuid4())}) for _ in range(N)
    ]
    await asyncio.gather(*futures)
    return rate(N, time.perf_counter() - start)


async def faststream_publish(nc, settings: InfraSettings) -> float:
    """The same publishes through FastStream's broker, which awaits each acknowledgement before the next
    (nats-py's publish_async, the bare row, and the relay's pipeline send them without waiting)."""
    broker = Broker(str(settings.nats_url), "bench-publish")
    connection = await broker.dial()
    subject = f"{settings.namespace}.bench.faststream"
    payload = query_event("bare").model_dump_json().encode()
    try:
        start = time.perf_counter()
        for _ in range(N):
            headers = {"Nats-Msg-Id": str(uuid.uuid4())}
            await broker.publish(payload, subject, stream=settings.stream_name, headers=headers)
        return rate(N, time.perf_counter() - start)
    finally:
        await broker.hang_up(connection)


async def relay(store: EventStore, nc, settings: InfraSettings) -> float:
    publisher = Publisher(store.pool, nc, settings)
    await publisher.verify_stream()
    start = time.perf_counter()
    sent = await publisher.publish_pending()
    return rate(sent, time.perf_counter() - start)


async def commit_to_consumer(
    store: EventStore,
    nc,
    settings: InfraSettings,
    *,
    announced: bool,
    samples: int = 300,
    gap: Callable[[], float] = lambda: COMMIT_GAP_S,
    tag: str = "",
) -> list[float]:
    """Latency from an append's commit to the consumer's handler running: through the appender's own
    publish (`announced`, as a consumer's appends go), or through the relay alone (as the gateway's);
    `gap` seconds between appends (long ones leave the consumer idle, waiting in a fetch). The relay is a
    process of its own, as under `make run`: on the consumer's loop, its passes (the announced appends
    of the last 0.25 s at once) held the handlers up behind them, and made most of the p99."""
    committed: dict[str, float] = {}
    handled: dict[str, float] = {}
    done = asyncio.Event()
    announcer = Announcer(nc, settings.namespace)

    async def announce(records: Sequence[Recorded]) -> None:
        now = time.perf_counter()  # EventStore.append calls it right after the commit
        committed.update((r.envelope.correlation_id, now) for r in records)
        await announcer(records)

    appender = EventStore(store.pool, announce if announced else None)
    consumer_name = f"bench-{'announced' if announced else 'relayed'}{tag}"

    async def handler(ctx: HandlerContext) -> None:
        run = ctx.envelope.correlation_id
        if run.startswith(f"{consumer_name}-") and not run.endswith("warm-up"):  # this sample's alone
            handled[run] = time.perf_counter()  # through the relay, maybe before `append` has returned
            if len(handled) >= samples:
                done.set()

    consumer = Consumer(
        Subscription(consumer_name, "QueryReceived", handler),
        store.pool,
        nc,
        settings,
        ConsumerPolicy.from_infra(),
    )
    publisher = Publisher(store.pool, nc, settings)
    await publisher.verify_stream()
    await publisher.publish_pending()  # what earlier benches appended is not part of this sample
    await consumer.ensure()
    async with relay_process(settings), running(consumer):
        # The relay process is up once its checkpoint passes an event appended now.
        (warm_up,) = await store.append([query_event(f"{consumer_name}-warm-up")])

        async def relayed() -> bool:
            return (await publisher.checkpoint()).position >= warm_up.position

        await wait_until(relayed, what="the relay process publishing")
        await drained(nc, settings, consumer)  # the earlier figures' events are not part of this sample
        for i in range(samples):
            run = f"{consumer_name}-{i}"
            await appender.append([query_event(run)])
            if not announced:  # the commit, as near as the caller sees it: the figure errs low
                committed[run] = time.perf_counter()
            await asyncio.sleep(gap())
        await asyncio.wait_for(done.wait(), 120)
    return [handled[run] - committed[run] for run in handled]


async def catching_up(store: EventStore, nc, settings: InfraSettings, batch: int) -> tuple[float, float]:
    """A consumer that finds N questions waiting (a burst, a restart): messages handled per second, and
    milliseconds of this process's CPU per message, each handler appending one event as a hop does.
    `batch` (the policy's fetch_batch) 1 handles every message in a transaction of its own; more, what
    one fetch brings in one (services/platform/together.py). Its stream holds these questions alone."""
    name = f"bench-catch-up-{batch}"
    planned: set[str] = set()
    done = asyncio.Event()

    async def handler(ctx: HandlerContext) -> Outcome:
        planned.add(ctx.envelope.correlation_id)  # a batch rolled back decides again: counted once
        if len(planned) >= N:
            done.set()
        return await plan_once(ctx)

    policy = ConsumerPolicy.from_infra(fetch_batch=batch)
    consumer = Consumer(Subscription(name, "QueryReceived", handler), store.pool, nc, settings, policy)
    await nc.jetstream().purge_stream(settings.stream_name, subject=consumer.subject)
    await consumer.ensure()
    for start in range(0, N, BATCH):
        await store.append([query_event(f"{name}-{i}") for i in range(start, min(start + BATCH, N))])
    publisher = Publisher(store.pool, nc, settings)
    await publisher.publish_pending()
    began, cpu = time.perf_counter(), time.process_time()
    async with running(consumer):
        await asyncio.wait_for(done.wait(), 300)
        cpu, took = time.process_time() - cpu, time.perf_counter() - began
    await nc.jetstream().purge_stream(settings.stream_name, subject=consumer.subject)
    return rate(N, took), cpu / N * 1000


@contextlib.asynccontextmanager
async def relay_process(settings: InfraSettings) -> AsyncIterator[None]:
    """The relay (services.platform.publisher) running in a process of its own until the block ends."""
    environment = {
        **os.environ,
        "DATABASE_URL": settings.database_url or "",
        "NATS_URL": settings.nats_url or "",
        "JIPSA_NAMESPACE": settings.namespace,
    }
    with tempfile.TemporaryFile() as log:  # shown if the relay fails; its notice of stopping is not
        relay = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "services.platform.publisher", env=environment, stderr=log
        )
        try:
            yield
        finally:
            relay.send_signal(signal.SIGTERM)
            if await relay.wait() != 0:
                log.seek(0)
                print(log.read().decode(errors="replace"), file=sys.stderr)


async def drained(nc, settings: InfraSettings, consumer: Consumer) -> None:
    """Until the consumer has handled everything the stream held for it."""
    while True:
        info = await nc.jetstream().consumer_info(settings.stream_name, consumer.durable)
        if not info.num_pending and not info.num_ack_pending:
            return
        await asyncio.sleep(0.05)


async def bare_nats_latency(nc, samples: int = 300) -> list[float]:
    """The floor under commit-to-consumer: one core NATS publish to a subscriber on the same machine."""
    got: asyncio.Queue[float] = asyncio.Queue()

    async def arrived(_msg) -> None:
        got.put_nowait(time.perf_counter())

    sub = await nc.subscribe("bench.rtt", cb=arrived)
    latencies = []
    for _ in range(samples):
        start = time.perf_counter()
        await nc.publish("bench.rtt", b"x")
        latencies.append(await got.get() - start)
    await sub.unsubscribe()
    return latencies


async def jetstream_hop(
    nc, settings: InfraSettings, *, faststream: bool, samples: int = 300, gap: float = 0.0
) -> list[float]:
    """From a JetStream publish to the handler, through a durable pull consumer fetching one at a time:
    FastStream's subscriber (what the services bind) or nats-py's fetch loop under it, so the difference
    is FastStream's own cost per message. `gap` seconds of quiet before each publish: paced as the
    commit -> handler rows are, the hop pays what the machine takes to wake NATS and this process
    from idle, which back to back it does not."""
    js, way = nc.jetstream(), "faststream" if faststream else "nats-py"
    way += f"-{gap * 1000:.0f}ms" if gap else ""
    subject, durable = f"{settings.namespace}.bench.hop.{way}", f"{settings.namespace}-bench-hop-{way}"
    config = ConsumerConfig(durable_name=durable, filter_subject=subject, ack_policy=AckPolicy.EXPLICIT)
    got: asyncio.Queue[float] = asyncio.Queue()
    payload = query_event("hop").model_dump_json().encode()

    async def handle(msg) -> None:
        got.put_nowait(time.perf_counter())
        await msg.ack()

    async def fetching(pull) -> None:
        while True:
            try:
                for msg in await pull.fetch(1, timeout=1.0):
                    await handle(msg)
            except TimeoutError:
                continue

    async def through_faststream(message: NatsMessage) -> None:  # as a consumer takes it (Consumer._take)
        handling.add(task := asyncio.create_task(handle(message)))
        task.add_done_callback(handling.discard)

    broker, fetch, handling = Broker(str(settings.nats_url), "bench-hop"), None, set()
    if faststream:
        broker.subscriber(
            subject,
            stream=JStream(settings.stream_name, declare=False),
            durable=durable,
            config=config,
            pull_sub=PullSub(batch_size=1, timeout=1.0),
            ack_policy=Settling.MANUAL,
            no_reply=True,
        )(through_faststream)
        await broker.start()
    else:
        pull = await js.pull_subscribe(subject, durable, stream=settings.stream_name, config=config)
        fetch = asyncio.create_task(fetching(pull))
    latencies = []
    try:
        for _ in range(samples):
            if gap:
                await asyncio.sleep(gap)
            start = time.perf_counter()
            await js.publish(subject, payload)
            latencies.append(await got.get() - start)
    finally:
        await broker.stop()
        if fetch:
            fetch.cancel()
    return latencies


def percentile(values: list[float], p: float) -> float:
    return statistics.quantiles(values, n=100)[int(p) - 1] if len(values) > 1 else values[0]


async def bench(database_url: str, nats_url: str) -> None:
    settings = InfraSettings(
        DATABASE_URL=database_url, NATS_URL=nats_url, JIPSA_NAMESPACE=f"b{uuid.uuid4().hex[:8]}"
    )
    pool = await open_pool(database_url)
    store = EventStore(pool)
    nc = await connect(nats_url, "bench")
    await ensure_stream(nc.jetstream(), settings)
    heap.settle()  # as each service's process does once it is built (the bare rows run here too)
    print(f"Jipsa backbone bench: {N} events per figure\n")

    print("Commit-to-consumer latency (ms)")
    floor = [x * 1000 for x in await bare_nats_latency(nc)]
    for announced, path in ((True, "appender publishes"), (False, "relay only")):
        lat = [x * 1000 for x in await commit_to_consumer(store, nc, settings, announced=announced)]
        for p in (50, 99):
            row(
                f"p{p} commit -> handler, {path}",
                percentile(lat, p),
                "ms",
                percentile(floor, p),
                "bare NATS hop",
            )
    # A person's run meets idle consumers: each hop's message arrives while the consumer waits in a fetch.
    idle = [
        x * 1000
        for x in await commit_to_consumer(
            store,
            nc,
            settings,
            announced=True,
            samples=IDLE_SAMPLES,
            gap=lambda: random.uniform(0.05, 2.0),
            tag="-idle",
        )
    ]
    for p in (50, 99):
        row(
            f"p{p} commit -> handler, idle consumer",
            percentile(idle, p),
            "ms",
            percentile(floor, p),
            "bare NATS hop",
        )

    # A consumer with a backlog: every message in a transaction of its own, against a fetch's in one.
    print()
    one_each = await catching_up(store, nc, settings, batch=1)
    by_fetch = await catching_up(store, nc, settings, batch=ConsumerPolicy.from_infra().fetch_batch)
    row("consumer catching up, a fetch together", by_fetch[0], "msgs/s", one_each[0], "one per transaction")
    row("  its CPU per message", by_fetch[1], "ms", one_each[1], "one per transaction")

    # FastStream's own cost: the same hop with and without it.
    bare_hop = [x * 1000 for x in await jetstream_hop(nc, settings, faststream=False)]
    faststream_hop = [x * 1000 for x in await jetstream_hop(nc, settings, faststream=True)]
    # The commit -> handler rows' pacing, with no code of ours between the publish and the handler.
    paced = [x * 1000 for x in await jetstream_hop(nc, settings, faststream=True, gap=COMMIT_GAP_S)]
    for p in (50, 99):
        floor_p = percentile(floor, p)
        row(f"p{p} JetStream hop, nats-py fetch", percentile(bare_hop, p), "ms", floor_p, "bare NATS hop")
        row(
            f"p{p} JetStream hop, FastStream subscriber",
            percentile(faststream_hop, p),
            "ms",
            percentile(bare_hop, p),
            "nats-py fetch",
        )
        row(
            f"p{p} JetStream hop, FastStream, {COMMIT_GAP_S * 1000:.0f} ms apart",
            percentile(paced, p),
            "ms",
            percentile(faststream_hop, p),
            "back to back",
        )

    print("\nEvent store appends (events/s)")
    bare_single, bare_batched = await bare_inserts(database_url)
    single, batched = await store_appends(store)
    row("append, 1 event per transaction", single, "events/s", bare_single, "bare insert")
    row(f"append, {BATCH} events per transaction", batched, "events/s", bare_batched, "bare batched insert")

    print("\nPublication to JetStream (events/s)")
    ceiling = await bare_publish(nc, settings)
    row(
        "relay: store -> JetStream with dedup ids",
        await relay(store, nc, settings),
        "events/s",
        ceiling,
        "bare publish+ack",
    )
    through_faststream = await faststream_publish(nc, settings)
    row("FastStream publish+ack", through_faststream, "events/s", ceiling, "bare publish+ack")

    print("\nProjection rebuild (events/s)")
    from services.projector.runner import Projector

    start = time.perf_counter()
    events = await Projector(store).rebuild()
    head_rate = rate(events, time.perf_counter() - start)
    ceiling = await bare_read(pool)
    row("rebuild both projections from position 0", head_rate, "events/s", ceiling, "bare log read")

    await nc.drain()
    await pool.close()


def main() -> None:
    with tempfile.TemporaryDirectory() as scratch, real_servers(Path(scratch)) as urls:
        name = f"jipsa_bench_{uuid.uuid4().hex[:8]}"
        with psycopg.connect(urls.database_url, autocommit=True) as admin:
            admin.execute(f'CREATE DATABASE "{name}"')
        url = urls.database_url.rsplit("/", 1)[0] + f"/{name}"
        try:
            migrate(url)
            print(f"servers: {urls.source}")
            loop.run(bench(url, urls.nats_url))  # the loop the services run on
        finally:
            with psycopg.connect(urls.database_url, autocommit=True) as admin:
                admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


if __name__ == "__main__":
    main()
