"""`make bench`: what sealing a person's words costs (services/platform/sealing.py), per event, beside the
same events of a session of nobody, measured in the same run on the same servers.

The events are runs as a person's make them: each run the contracts' example QueryReceived, PlanReady,
StepStarted, StepCompleted and ResponseReady (the run's first event makes its key, so a run's key costs
are in the figures, spread over its five events; real runs have more events, so pay less per event).
Each side has a database of its own, so the rebuilds fold the same log but for the person.
Sizes: BENCH_EVENTS (default 2000).
"""

from __future__ import annotations

import os
import tempfile
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import psycopg
from cryptography.hazmat.primitives.ciphers.aead import AESGCM

from contracts import REGISTRY, Envelope, new_envelope, run_stream
from contracts.export import load_examples
from services.platform import loop
from services.platform.db import migrate, open_pool
from services.platform.eventstore import EventStore
from services.platform.sealing import KEYRING, open_envelope, seal
from services.projector.runner import Projector
from tests.bench.backbone import row
from tests.servers import real_servers

N = int(os.environ.get("BENCH_EVENTS", "2000"))
BATCH = 100
PERSON = {"plain": None, "sealed": "bench-person"}
RUN = ("QueryReceived", "PlanReady", "StepStarted", "StepCompleted", "ResponseReady")


def a_run(person_id: str | None) -> list[Envelope]:
    run_id = uuid.uuid4().hex
    envelopes = []
    for event_type in RUN:
        model = REGISTRY.model(event_type, REGISTRY.latest_version(event_type))
        payload = {**load_examples(model)[0], "run_id": run_id}
        envelopes.append(
            new_envelope(
                model.model_validate(payload),
                stream_id=run_stream(run_id),
                correlation_id=run_id,
                session_id="bench",
                person_id=person_id,
            )
        )
    return envelopes


def runs(n: int, person_id: str | None) -> list[Envelope]:
    return [e for _ in range(n // len(RUN)) for e in a_run(person_id)]


def per_event_us(n: int, seconds: float) -> float:
    return seconds / n * 1e6


async def appends(stores: dict[str, EventStore]) -> dict[str, tuple[float, float]]:
    """Per side, µs per event: one event per transaction, and BATCH per transaction. The sides take turns
    event by event (batch by batch), so a change in the machine's speed falls on both alike."""
    singles = {side: runs(N, PERSON[side]) for side in stores}
    batched = {side: runs(N, PERSON[side]) for side in stores}
    took = {side: [0.0, 0.0] for side in stores}
    for i in range(len(singles["plain"])):
        for side, store in stores.items():
            start = time.perf_counter()
            await store.append([singles[side][i]])
            took[side][0] += time.perf_counter() - start
    for b in range(0, len(batched["plain"]), BATCH):
        for side, store in stores.items():
            start = time.perf_counter()
            await store.append(batched[side][b : b + BATCH])
            took[side][1] += time.perf_counter() - start
    n = len(singles["plain"])
    return {side: (per_event_us(n, single), per_event_us(n, batch)) for side, (single, batch) in took.items()}


async def rebuild(store: EventStore) -> float:
    """µs per event of a rebuild from position 0, the keys read afresh (a cold process)."""
    KEYRING.clear()
    start = time.perf_counter()
    folded = await Projector(store).rebuild()
    return per_event_us(folded, time.perf_counter() - start)


async def rebuilds(stores: dict[str, EventStore], rounds: int = 3) -> dict[str, float]:
    """Per side, the fastest of `rounds` rebuilds, the sides in turn."""
    best = {side: float("inf") for side in stores}
    for _ in range(rounds):
        for side, store in stores.items():
            best[side] = min(best[side], await rebuild(store))
    return best


def seal_and_open_us() -> tuple[float, float]:
    """µs per event of sealing and of opening alone, no I/O (the cipher held)."""
    events = runs(N, "bench-person")
    for run_id in {e.correlation_id for e in events}:
        KEYRING.hold(run_id, "bench-person", AESGCM.generate_key(256))
    start = time.perf_counter()
    stored = [seal(e, KEYRING.cipher(e.correlation_id)) for e in events]
    sealing = per_event_us(len(events), time.perf_counter() - start)
    start = time.perf_counter()
    for e in stored:
        open_envelope(e)
    return sealing, per_event_us(len(events), time.perf_counter() - start)


async def bench(plain_url: str, sealed_url: str) -> None:
    print(f"Sealing a person's words: {N} events per figure, µs per event (lower is better)\n")
    pools = {"plain": await open_pool(plain_url), "sealed": await open_pool(sealed_url)}
    try:
        stores = {side: EventStore(pool) for side, pool in pools.items()}
        appended = await appends(stores)
        rebuilt = await rebuilds(stores)
        names = ("append, 1 event per transaction", f"append, {BATCH} events per transaction")
        for i, name in enumerate(names):
            row(f"{name}, sealed", appended["sealed"][i], "µs/event", appended["plain"][i], "no person")
        row("rebuild from position 0, sealed", rebuilt["sealed"], "µs/event", rebuilt["plain"], "no person")
        async with pools["sealed"].connection() as conn:
            await conn.execute("DELETE FROM person_keys")
        erased = (await rebuilds({"sealed": stores["sealed"]}))["sealed"]
        row("rebuild, every key deleted (all erased)", erased, "µs/event", rebuilt["plain"], "no person")
    finally:
        for pool in pools.values():
            await pool.close()
    sealing, opening = seal_and_open_us()
    row("seal alone (CPU, key held)", sealing, "µs/event")
    row("open alone (CPU, key held)", opening, "µs/event")


@contextmanager
def databases(admin_url: str, count: int) -> Iterator[list[str]]:
    names = [f"jipsa_bench_{uuid.uuid4().hex[:8]}" for _ in range(count)]
    with psycopg.connect(admin_url, autocommit=True) as admin:
        for name in names:
            admin.execute(f'CREATE DATABASE "{name}"')
    urls = [admin_url.rsplit("/", 1)[0] + f"/{name}" for name in names]
    try:
        for url in urls:
            migrate(url)
        yield urls
    finally:
        with psycopg.connect(admin_url, autocommit=True) as admin:
            for name in names:
                admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def main() -> None:
    with tempfile.TemporaryDirectory() as scratch, real_servers(Path(scratch)) as urls:
        with databases(urls.database_url, 2) as (plain, sealed):
            print(f"servers: {urls.source}")
            loop.run(bench(plain, sealed))


if __name__ == "__main__":
    main()
