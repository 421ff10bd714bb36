"""The platform's own `jipsa` commands: run the system, operate the dead letters, re-feed the bus."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable, Coroutine
from typing import Annotated, Any, TypeVar

import typer
from rich.console import Console
from rich.progress import Progress

from services.platform.bus import connect, ensure_stream
from services.platform.db import open_pool
from services.platform.deadletters import DeadLetter, describe, list_dead_letters
from services.platform.deadletters import replay as redrive
from services.platform.eventstore import EventStore
from services.platform.pipelined import Pipeline
from services.platform.publisher import ACK_TIMEOUT_S, messages_of
from services.platform.runtime import load_infra_settings
from services.platform.settings import ResolvedInfra
from services.platform.store_reads import outgoing_after

console = Console()
T = TypeVar("T")


def run() -> None:
    """Start Jipsa: servers (unless NATS_URL / DATABASE_URL are set), migrations, services."""
    from services.platform.procman import run_all

    raise typer.Exit(run_all())


def _with_infra(work: Callable[[ResolvedInfra], Coroutine[Any, Any, T]]) -> T:
    return asyncio.run(work(load_infra_settings()))


dlq_app = typer.Typer(no_args_is_help=True, help="Messages consumers gave up on: list them, re-drive them.")


@dlq_app.command("list")
def dlq_list(
    all_: Annotated[bool, typer.Option("--all", help="include letters already replayed")] = False,
    as_json: Annotated[bool, typer.Option("--json")] = False,
) -> None:
    async def work(settings: ResolvedInfra) -> list[DeadLetter]:
        pool = await open_pool(settings.database_url, max_size=1)
        try:
            return await list_dead_letters(pool, include_replayed=all_)
        finally:
            await pool.close()

    letters = [describe(d) for d in _with_infra(work)]
    if as_json:
        print(json.dumps(letters, ensure_ascii=False, indent=2))
        return
    if not letters:
        console.print("no dead letters")
    for d in letters:
        console.print(
            f"[bold]#{d['id']}[/] {d['parked_at']} {d['consumer']} {d['subject']} "
            f"({d['deliveries']} deliveries)\n    {d['error']}"
        )


@dlq_app.command("replay")
def dlq_replay(letter_ids: Annotated[list[int], typer.Argument(help="ids from `jipsa dlq list`")]) -> None:
    async def work(settings: ResolvedInfra) -> None:
        pool = await open_pool(settings.database_url, max_size=1)
        nc = await connect(settings.nats_url, "jipsa-cli")
        try:
            for letter_id in letter_ids:
                letter = await redrive(pool, nc.jetstream(), letter_id)
                console.print(f"re-drove #{letter.id} to {letter.subject}")
        finally:
            await nc.drain()
            await pool.close()

    _with_infra(work)


def replay(
    from_position: Annotated[int, typer.Option("--from", help="first position to re-feed")] = 1,
    to_position: Annotated[int | None, typer.Option("--to", help="last position (default: the head)")] = None,
) -> None:
    """Re-feed stored events to the bus from a position, under their own Nats-Msg-Id.

    Safe to run at any time: JetStream drops what it still holds inside its duplicate
    window, and every consumer's inbox skips what it has handled.
    """

    async def work(settings: ResolvedInfra) -> int:
        pool = await open_pool(settings.database_url, max_size=1)
        nc = await connect(settings.nats_url, "jipsa-cli")
        js, pipeline, store, sent = nc.jetstream(), Pipeline(nc), EventStore(pool), 0
        try:
            await ensure_stream(js, settings)
            head = to_position or await store.head()
            with Progress(console=console) as progress:
                bar = progress.add_task("re-feeding", total=max(head - from_position + 1, 0))
                position = from_position - 1
                while position < head:
                    async with pool.connection() as conn:
                        batch = [e for e in await outgoing_after(conn, position, 500) if e.position <= head]
                    if not batch:
                        break
                    await pipeline.publish(messages_of(batch, settings.namespace), ACK_TIMEOUT_S)
                    position, sent = batch[-1].position, sent + len(batch)
                    progress.update(bar, completed=position - from_position + 1)
        finally:
            await nc.drain()
            await pool.close()
        return sent

    console.print(f"re-fed {_with_infra(work)} events")
