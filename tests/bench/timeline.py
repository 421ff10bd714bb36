"""Where one run's time goes, hop by hop, from the events' own timestamps (`python -m tests.bench.timeline
[--runs N] [--query Q]`): the whole system in this process on real servers, rules mode, one question
at a time, each in a session of its own.

Every event E is written by the handler of the event that caused it (its causation, P). The store
records two times for E: `occurred_at`, when the handler made it, and `recorded_at`, Postgres's now(),
the start of the transaction that appended it. Per hop P -> E, the columns are:
- to BEGIN = E.recorded_at - P.occurred_at: P's commit, the relay's publish, JetStream, the fetch, and
  (for a team, which works before it opens its transaction) the team's work;
- BEGIN->E = E.occurred_at - E.recorded_at: inbox claim and the handler inside the transaction
  (negative for a team: its event was made before the transaction began);
- P->E, the hop as a whole, and work, the team's own work as StepCompleted reports it (duration_ms).
The hops of the critical path add up to QueryReceived -> ResponseReady.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import tempfile
from collections import defaultdict
from pathlib import Path

from psycopg.rows import dict_row

from services.platform.eventstore import EventStore
from tests.bench.compare import jipsa_system
from tests.eval.system import ask
from tests.servers import real_servers

DEFAULT_QUERY = "강남구 아파트 전세 시세 알려줘"
HOP_SQL = """
SELECT e.event_type AS event, p.event_type AS cause, e.metadata->>'producer' AS producer,
       1000 * extract(epoch FROM e.recorded_at - (p.metadata->>'occurred_at')::timestamptz) AS sent,
       1000 * extract(epoch FROM (e.metadata->>'occurred_at')::timestamptz - e.recorded_at) AS handled,
       (e.data->>'duration_ms')::float AS work
  FROM events e JOIN events p ON p.event_id = (e.metadata->>'causation_id')::uuid
 WHERE e.correlation_id = %s
 ORDER BY e.position
"""


def _name(r: dict) -> str:
    return f"{r['cause']} -> {r['event']} ({r['producer']})"


TIMES_SQL = """
SELECT 1000 * extract(epoch FROM max(o) - min(o)) AS took
  FROM (SELECT (metadata->>'occurred_at')::timestamptz AS o FROM events
         WHERE correlation_id = %s AND event_type IN ('QueryReceived', 'ResponseReady')) AS ends
"""


async def hops(store: EventStore, run_id: str) -> list[tuple[str, float, float, float]]:
    """(P -> E by whom, to BEGIN ms, BEGIN to E ms, a team's own work ms) for each event with a cause."""
    async with store.pool.connection() as conn, conn.cursor(row_factory=dict_row) as cur:
        rows = await (await cur.execute(HOP_SQL, (run_id,))).fetchall()
    return [
        (
            f"{r['cause']} -> {r['event']} ({r['producer']})",
            float(r["sent"]),
            float(r["handled"]),
            r["work"] or 0.0,
        )
        for r in rows
    ]


async def measure(runs: int, query: str) -> None:
    with (
        tempfile.TemporaryDirectory(prefix="jipsa-timeline-") as scratch,
        real_servers(Path(scratch)) as urls,
    ):
        async with jipsa_system(urls, Path(scratch)) as (gateway, store):
            await ask(gateway, query)  # warm: first imports, Kiwi, the caches
            delivery: dict[str, list[float]] = defaultdict(list)
            handling: dict[str, list[float]] = defaultdict(list)
            work: dict[str, list[float]] = defaultdict(list)
            totals = []
            for _ in range(runs):
                answer = await ask(gateway, query)
                run_id = answer.run_id
                assert run_id is not None, answer.content
                for name, sent, handled, worked in await hops(store, run_id):
                    delivery[name].append(sent)
                    handling[name].append(handled)
                    work[name].append(worked)
                totals.append(await answer_ms(store, run_id))
    print(f"{runs} runs of {query!r}; median ms per hop P -> E")
    print(f"  {'hop (handled by)':<56} {'to BEGIN':>9} {'BEGIN->E':>9} {'P->E':>7} {'work':>7}")
    for name in delivery:
        sent, handled = statistics.median(delivery[name]), statistics.median(handling[name])
        whole = statistics.median(a + b for a, b in zip(delivery[name], handling[name], strict=True))
        print(
            f"  {name:<56} {sent:>9.1f} {handled:>9.1f} {whole:>7.1f} {statistics.median(work[name]):>7.1f}"
        )
    print(f"  QueryReceived -> ResponseReady, median {statistics.median(totals):.1f} ms")


async def answer_ms(store: EventStore, run_id: str) -> float:
    """From the question's occurrence to the answer's."""
    async with store.pool.connection() as conn, conn.cursor(row_factory=dict_row) as cur:
        rows = await (await cur.execute(TIMES_SQL, (run_id,))).fetchall()
    return float(rows[0]["took"])


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--query", default=DEFAULT_QUERY)
    options = parser.parse_args()
    asyncio.run(measure(options.runs, options.query))


if __name__ == "__main__":
    main()
