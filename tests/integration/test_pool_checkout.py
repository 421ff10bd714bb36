"""A checkout hands out a live connection: ones the server closed are found and replaced."""

from __future__ import annotations

import asyncio
import contextlib
import uuid
from collections.abc import AsyncIterator

import psycopg
import pytest
from psycopg_pool import AsyncConnectionPool

from services.platform.db import Begun, open_pool, run_in_transaction, transaction
from services.platform.eventstore import EventStore
from tests.integration.bus_helpers import query_event

pytestmark = pytest.mark.integration


async def backend_pids(pool, n: int) -> list[int]:
    """The server pids behind n connections held at once, so each is a different one."""
    held = [await pool.getconn() for _ in range(n)]
    try:
        return [c.info.backend_pid for c in held]
    finally:
        for c in held:
            await pool.putconn(c)


@contextlib.asynccontextmanager
async def closed_by_the_server(
    database_url: str, monkeypatch: pytest.MonkeyPatch, size: int, closed: int
) -> AsyncIterator[tuple[AsyncConnectionPool, list[int]]]:
    """A pool of `size` connections, `closed` of which the server has ended (as a restarting Postgres
    does: each client told, then closed), and their backends' pids."""
    monkeypatch.setenv("JIPSA_DB_POOL_MIN", str(size))
    monkeypatch.setenv("JIPSA_DB_POOL_MAX", str(size))
    pool = await open_pool(database_url)
    try:
        killed = (await backend_pids(pool, size))[:closed]
        async with await psycopg.AsyncConnection.connect(database_url, autocommit=True) as admin:
            for pid in killed:
                await admin.execute("SELECT pg_terminate_backend(%s)", (pid,))
        await asyncio.sleep(0.2)
        yield pool, killed
    finally:
        await pool.close()


async def test_connections_the_server_closed_are_replaced_at_checkout(
    database_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    async with closed_by_the_server(database_url, monkeypatch, size=2, closed=2) as (pool, killed):
        for _ in range(2):  # each checkout works first time, on a connection that was not killed
            async with pool.connection() as conn:
                await conn.execute("SELECT 1")
                assert conn.info.backend_pid not in killed


async def test_a_live_idle_connection_is_handed_out_as_it_is(database_url: str) -> None:
    pool = await open_pool(database_url, max_size=1)
    try:
        (first,) = await backend_pids(pool, 1)
        async with pool.connection() as conn:
            assert conn.info.backend_pid == first
            assert (await (await conn.execute("SELECT 1 AS one")).fetchone()) == {"one": 1}
    finally:
        await pool.close()


async def test_a_transaction_after_the_server_closed_its_connections_begins_on_a_live_one(
    database_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`transaction` skips the checkout's check (its BEGIN is one): a connection the server closed
    fails at BEGIN and another is taken, so the caller never sees the closed ones."""
    async with closed_by_the_server(database_url, monkeypatch, size=3, closed=2) as (pool, killed):
        for _ in range(3):
            async with transaction(pool) as begun:
                conn = begun.conn
                await conn.execute("CREATE TEMPORARY TABLE IF NOT EXISTS t (x int)")
                assert conn.info.backend_pid not in killed
                assert conn.info.transaction_status == psycopg.pq.TransactionStatus.INTRANS


async def test_a_transaction_begun_with_its_opening_statements_runs_them_in_order_on_a_live_one(
    database_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The opening statements go with BEGIN in one round trip, yet run in order inside the transaction:
    the second sees the first's row, and a closed connection is replaced before either counts."""
    with psycopg.connect(database_url, autocommit=True) as admin:  # not through the pool: its checkout
        admin.execute("CREATE TABLE opened (x int)")  # would replace the closed connections
    async with closed_by_the_server(database_url, monkeypatch, size=3, closed=2) as (pool, killed):
        for x in range(3):
            insert = ("INSERT INTO opened VALUES (%s) RETURNING x", (x,))
            count = (
                "SELECT count(*) AS n, txid_current_if_assigned() IS NOT NULL AS writing FROM opened",
                (),
            )
            async with transaction(pool, insert, count) as begun:
                assert begun.rows == [[{"x": x}], [{"n": x + 1, "writing": True}]]
                assert begun.conn.info.backend_pid not in killed
        async with pool.connection() as conn:
            rows = await (await conn.execute("SELECT x FROM opened ORDER BY x")).fetchall()
            assert rows == [{"x": 0}, {"x": 1}, {"x": 2}]


async def test_a_transaction_that_fails_rolls_back(database_url: str) -> None:
    pool = await open_pool(database_url, max_size=1)
    try:
        with pytest.raises(ZeroDivisionError):
            async with transaction(pool, ("SELECT 1 AS one", ())) as begun:
                await begun.conn.execute("CREATE TABLE rolled_back (x int)")
                raise ZeroDivisionError
        async with pool.connection() as conn:
            found = await (await conn.execute("SELECT to_regclass('rolled_back') AS t")).fetchone()
            assert found == {"t": None}
    finally:
        await pool.close()


async def test_a_commit_sent_with_the_last_statements_commits_them_once(database_url: str) -> None:
    """`Begun.commit` in a pipeline: the statements before it and the COMMIT in one round trip; their
    rows are read after it, and the block's end commits nothing more."""
    pool = await open_pool(database_url, max_size=1)
    try:
        async with pool.connection() as conn:
            await conn.execute("CREATE TABLE committed (x int)")
        async with transaction(pool, ("SELECT 1 AS one", ())) as begun:
            async with begun.conn.pipeline():
                inserted = await begun.conn.execute("INSERT INTO committed VALUES (1), (2) RETURNING x")
                await begun.commit()
            assert await inserted.fetchall() == [{"x": 1}, {"x": 2}]
        async with pool.connection() as conn:
            rows = await (await conn.execute("SELECT x FROM committed ORDER BY x")).fetchall()
            assert rows == [{"x": 1}, {"x": 2}]
            assert conn.info.transaction_status == psycopg.pq.TransactionStatus.IDLE
    finally:
        await pool.close()


async def test_a_statement_that_fails_beside_its_commit_commits_nothing(database_url: str) -> None:
    """What the transaction did before, and the COMMIT behind the failed statement, are rolled back; the
    connection goes back to the pool ready for the next."""
    pool = await open_pool(database_url, max_size=1)
    try:
        async with pool.connection() as conn:
            await conn.execute("CREATE TABLE kept (x int PRIMARY KEY)")
            await conn.execute("INSERT INTO kept VALUES (1)")
        with pytest.raises(psycopg.errors.UniqueViolation):
            async with transaction(pool, ("SELECT 1 AS one", ())) as begun:
                await begun.conn.execute("INSERT INTO kept VALUES (2)")
                async with begun.conn.pipeline():
                    await begun.conn.execute("INSERT INTO kept VALUES (1)")
                    await begun.commit()
        async with pool.connection() as conn:
            rows = await (await conn.execute("SELECT x FROM kept")).fetchall()
            assert rows == [{"x": 1}]
    finally:
        await pool.close()


async def test_a_block_that_went_on_after_a_failed_statement_is_not_committed(database_url: str) -> None:
    """A COMMIT of a failed transaction rolls it back without a word: the block's end says so instead."""
    pool = await open_pool(database_url, max_size=1)
    try:
        async with pool.connection() as conn:
            await conn.execute("CREATE TABLE swallowed (x int)")
        with pytest.raises(psycopg.errors.InFailedSqlTransaction):
            async with transaction(pool, ("SELECT 1 AS one", ())) as begun:
                await begun.conn.execute("INSERT INTO swallowed VALUES (1)")
                with contextlib.suppress(psycopg.errors.DivisionByZero):
                    await begun.conn.execute("SELECT 1 / 0")
        async with pool.connection() as conn:
            assert await (await conn.execute("SELECT x FROM swallowed")).fetchall() == []
    finally:
        await pool.close()


async def test_an_append_after_the_server_closed_its_connections_is_stored_once(
    database_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An append takes a connection unchecked (run_again_on_closed): on one the server closed it fails
    before anything is stored, and runs again on another; the event is stored once."""
    async with closed_by_the_server(database_url, monkeypatch, size=3, closed=2) as (pool, _):
        for run in ("r1", "r2", "r3"):
            (recorded,) = await EventStore(pool).append([query_event(run)])
            assert recorded.envelope.correlation_id == run
        async with pool.connection() as conn:
            stored = await (await conn.execute("SELECT count(*) AS n FROM events")).fetchone()
        assert stored == {"n": 3}


async def test_work_in_a_pipelined_transaction_runs_again_on_a_live_connection_and_commits_once(
    database_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`run_in_transaction` sends BEGIN and its opening statements with the work's first read: on a
    connection the server closed that read fails before anything is stored, and the work runs again on
    another. What it read saw its opening statement's row, and each row is stored once."""
    with psycopg.connect(database_url, autocommit=True) as admin:
        admin.execute("CREATE TABLE claimed (x int PRIMARY KEY)")
    async with closed_by_the_server(database_url, monkeypatch, size=3, closed=2) as (pool, killed):
        for x in range(3):

            async def work(begun: Begun, x: int = x) -> list[dict]:
                seen = await (await begun.conn.execute("SELECT x FROM claimed WHERE x = %s", (x,))).fetchall()
                await begun.conn.execute("INSERT INTO claimed VALUES (%s)", (x + 10,))
                assert begun.conn.info.backend_pid not in killed
                return seen

            claim = ("INSERT INTO claimed VALUES (%s)", (x,))
            assert await run_in_transaction(pool, work, claim) == [{"x": x}]
        async with pool.connection() as conn:
            rows = await (await conn.execute("SELECT x FROM claimed ORDER BY x")).fetchall()
        assert [r["x"] for r in rows] == [0, 1, 2, 10, 11, 12]


@pytest.mark.parametrize("reads", [True, False], ids=["surfacing-at-a-read", "surfacing-at-the-commit"])
async def test_a_failed_opening_statement_commits_nothing_the_work_did(database_url: str, reads) -> None:
    """An opening statement that fails (a claim made before) fails the transaction wherever its answer is
    first waited for: the work's first read, or the COMMIT of a work that reads nothing."""
    pool = await open_pool(database_url, max_size=1)
    reached: list[str] = []
    try:
        async with pool.connection() as conn:
            await conn.execute("CREATE TABLE once (x int PRIMARY KEY)")
            await conn.execute("INSERT INTO once VALUES (1)")

        async def work(begun: Begun) -> None:
            if reads:
                await (await begun.conn.execute("SELECT count(*) FROM once")).fetchall()
            reached.append("decided")
            await begun.conn.execute("INSERT INTO once VALUES (2)")

        with pytest.raises(psycopg.errors.UniqueViolation):
            await run_in_transaction(pool, work, ("INSERT INTO once VALUES (%s)", (1,)))
        assert reached == ([] if reads else ["decided"])
        async with pool.connection() as conn:
            assert await (await conn.execute("SELECT x FROM once")).fetchall() == [{"x": 1}]
            assert conn.info.transaction_status == psycopg.pq.TransactionStatus.IDLE
    finally:
        await pool.close()


async def test_pipelined_work_that_went_on_after_a_failed_statement_is_not_committed(database_url) -> None:
    pool = await open_pool(database_url, max_size=1)
    try:
        async with pool.connection() as conn:
            await conn.execute("CREATE TABLE swallowed_too (x int)")

        async def work(begun: Begun) -> None:
            await begun.conn.execute("INSERT INTO swallowed_too VALUES (1)")
            with contextlib.suppress(psycopg.errors.DivisionByZero):
                await (await begun.conn.execute("SELECT 1 / 0")).fetchall()

        with pytest.raises(psycopg.errors.PipelineAborted):  # at its COMMIT, not a silent rollback
            await run_in_transaction(pool, work)
        async with pool.connection() as conn:
            assert await (await conn.execute("SELECT x FROM swallowed_too")).fetchall() == []
    finally:
        await pool.close()


async def test_statements_skipped_behind_a_failed_claim_run_again_on_that_connection(database_url) -> None:
    """A consumer's decisions, each claimed and then claimed again (a duplicate delivery), on one
    connection: the duplicate's statements are skipped by the server, and every later decision still
    runs. psycopg prepares a statement the fifth time it runs, and one it took for prepared in a
    skipped run failed at every run after it ("prepared statement ... does not exist")."""
    pool = await open_pool(database_url, max_size=1)
    try:
        async with pool.connection() as conn:
            await conn.execute("CREATE TABLE claims (k uuid PRIMARY KEY)")
            await conn.execute("CREATE TABLE timers (run int PRIMARY KEY, due int)")

        async def decide(begun: Begun) -> list[dict]:  # as the supervisor: read, write, append and COMMIT
            conn = begun.conn
            await (await conn.execute("SELECT count(*) FROM timers WHERE run > %s", (0,))).fetchall()
            await conn.execute("INSERT INTO timers VALUES (1, %s) ON CONFLICT (run) DO NOTHING", (1,))
            async with conn.pipeline():
                appended = await conn.execute("SELECT %s::int AS position", (5,))
                await begun.commit()
            return await appended.fetchall()

        for _ in range(40):
            claim = ("INSERT INTO claims VALUES (%s)", (uuid.uuid4(),))
            assert await run_in_transaction(pool, decide, claim) == [{"position": 5}]
            with pytest.raises(psycopg.errors.UniqueViolation):
                await run_in_transaction(pool, decide, claim)
    finally:
        await pool.close()
