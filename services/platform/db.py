"""Postgres connections and migrations."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping, Sequence
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any, TypeVar

import orjson
import psycopg
from psycopg import AsyncClientCursor, AsyncConnection
from psycopg.pq import TransactionStatus
from psycopg.rows import dict_row
from psycopg.types.json import set_json_dumps, set_json_loads
from psycopg_pool import AsyncConnectionPool
from psycopg_pool.base import AttemptWithBackoff

from services.platform.outages import StoreUnreachable, is_outage
from services.platform.settings import REPO_ROOT, PoolSettings

T = TypeVar("T")
CONNECT_TIMEOUT_S = 5
RECONNECT_MAX_DELAY_S = 2.0


def sqlalchemy_url(database_url: str) -> str:
    """Alembic goes through SQLAlchemy; point it at psycopg 3, the driver the services use."""
    scheme, rest = database_url.split("://", 1)
    return f"postgresql+psycopg://{rest}" if scheme in ("postgres", "postgresql") else database_url


def migrate(database_url: str, revision: str = "head") -> None:
    from alembic import command
    from alembic.config import Config

    config = Config(str(REPO_ROOT / "infra" / "alembic.ini"))
    config.set_main_option("sqlalchemy.url", sqlalchemy_url(database_url).replace("%", "%%"))
    command.upgrade(config, revision)


class _CappedBackoff(AttemptWithBackoff):
    def update_delay(self, now: float) -> None:
        super().update_delay(now)
        self.delay = min(self.delay, RECONNECT_MAX_DELAY_S)


class StorePool(AsyncConnectionPool):
    """psycopg_pool's pool, with the wait between two reconnection attempts capped.

    Its own backoff doubles without bound (1, 2, 4 ... 64 s), so a pool that lost Postgres for a while
    hands out no connection for a long time after Postgres is back (docs/hot-path.md has the figures).
    Capped, a returning Postgres is in use again within seconds.
    """

    async def _add_connection(self, attempt: AttemptWithBackoff | None, growing: bool = False) -> None:
        await super()._add_connection(attempt or _CappedBackoff(timeout=self.reconnect_timeout), growing)


def dump_json(value: object) -> bytes:
    """JSON as the store writes it, and the gateway's socket sends it (UTF-8, keys that are not strings
    written as strings, as the standard library does). orjson: the standard library's encoder showed in
    profiles of concurrent runs, writing events, the projections' documents and the socket's messages
    (docs/hot-path.md)."""
    return orjson.dumps(value, option=orjson.OPT_NON_STR_KEYS)


async def _configure(conn: AsyncConnection) -> None:
    """jsonb read and written with orjson: the standard library's decoder was a third of a projection
    rebuild's time in a profile (every event carries two documents, its data and its metadata)."""
    set_json_loads(orjson.loads, conn)
    set_json_dumps(dump_json, conn)


async def open_pool(
    database_url: str, *, max_size: int | None = None, wait_s: float = 30.0
) -> AsyncConnectionPool:
    """A pool whose connections are checked on checkout, so a restarted Postgres costs one error, not all
    (a transaction's BEGIN and an append are checks of their own: `transaction`, `run_again_on_closed`).

    Its connections are in autocommit: a read or a single write is its own transaction, with no BEGIN
    and COMMIT round trips around it, and whatever must commit together says so with
    `conn.transaction()`. Under READ COMMITTED each statement took its own snapshot inside a
    transaction too, so a block of reads sees nothing different.

    The check is a round trip, a noticeable part of an append's time. Checking only a connection whose
    socket the server has written to (its FATAL notice when it ends a connection) saved it, but lost a
    race: a backend just told to end has not yet written, and its connection is handed out to fail.

    Sized by `PoolSettings` (JIPSA_DB_POOL_MIN / JIPSA_DB_POOL_MAX), read here since every process
    opens its one pool here at start-up; a process that needs fewer (the publisher, a one-shot
    command) passes `max_size`, and the minimum never exceeds it.

    Raises `StoreUnreachable` at once when Postgres refuses the first connection, or when the pool
    is not filled within `wait_s`; `wait_s` is also how long a checkout waits for a connection.
    """
    sizes = PoolSettings()
    max_size = max_size or sizes.max_size
    await _first_connection(database_url)
    pool = StorePool(
        database_url,
        min_size=min(sizes.min_size, max_size),
        max_size=max_size,
        kwargs={"row_factory": dict_row, "autocommit": True},
        check=_check_unless_told,
        configure=_configure,
        reconnect_timeout=3600,
        timeout=wait_s,
        open=False,
    )
    try:
        await pool.open(wait=True, timeout=wait_s)
    except psycopg.OperationalError as e:  # PoolTimeout: Postgres went away after the first connection
        await pool.close()
        raise StoreUnreachable(database_url) from e
    return pool


# Set while `_unchecked` takes a connection: the first statement sent on it is the check.
_FIRST_STATEMENT_CHECKS: ContextVar[bool] = ContextVar("first_statement_checks", default=False)


async def _check_unless_told(conn: AsyncConnection) -> None:
    if not _FIRST_STATEMENT_CHECKS.get():
        await AsyncConnectionPool.check_connection(conn)


@contextlib.asynccontextmanager
async def _unchecked(
    pool: AsyncConnectionPool, timeout: float | None = None
) -> AsyncIterator[AsyncConnection]:
    """A connection of the pool, without the checkout's check, given back when the block ends.

    getconn and putconn rather than `pool.connection()`: its context (a generator, the connection's
    own `async with`, which commits an autocommit connection for nothing, and a usage statistic) costs
    twice as much a checkout (docs/hot-path.md), and every statement of every service checks out. A
    connection given back inside a transaction is rolled back by the pool, as it was by the context."""
    told = _FIRST_STATEMENT_CHECKS.set(True)
    try:
        conn = await pool.getconn(timeout)
    finally:
        _FIRST_STATEMENT_CHECKS.reset(told)
    try:
        yield conn
    finally:
        await pool.putconn(conn)


Statement = tuple[str, Sequence[Any] | Mapping[str, Any]]


@dataclass
class Begun:
    """A transaction begun by `transaction` or `run_in_transaction`: its connection, the rows of its
    opening statements (`transaction`'s), and whether the block committed it."""

    conn: AsyncConnection
    rows: list[list[dict[str, Any]]]
    committed: bool = False

    async def commit(self) -> None:
        """COMMIT now: in a pipeline, with the statements before it, in their round trip. The block's
        end then has nothing left to do; a statement of the pipeline that fails is raised as the
        pipeline ends, and the transaction is rolled back as for any failure of the block."""
        await self.conn.execute("COMMIT")
        self.committed = True

    async def queue(self, sql: str, params: Sequence[Any] | Mapping[str, Any] = ()) -> None:
        """A write that raises rather than answers (a consumer's inbox claim) queued, not sent, to leave
        with the next statement that is (`_queued`): in `run_in_transaction`'s pipeline only."""
        await _queued(self.conn, AsyncClientCursor(self.conn).mogrify(sql, params))


@contextlib.asynccontextmanager
async def transaction(pool: AsyncConnectionPool, *opening: Statement) -> AsyncIterator[Begun]:
    """A transaction on a connection of the pool, begun in one round trip with its `opening` statements
    (each must return rows): BEGIN and they go in a pipeline, and the server runs them in order, each
    under a snapshot of its own taken when it starts, as if sent one by one. It commits when the block
    ends, unless the block did (`Begun.commit`), and rolls back when the block raises.

    No checkout check: BEGIN is one. A connection the server has closed (Postgres restarted) fails
    there, before anything is done, and is dropped by the pool; another is taken at once, as the check
    would have done. What fails once the transaction has begun is the caller's, as before."""
    for attempt in range(pool.max_size + 1):
        async with _unchecked(pool) as conn:
            try:
                # BEGIN as a statement of the autocommit connection, not psycopg's transaction object:
                # in a pipeline that one waits for its BEGIN before the block runs, and its COMMIT
                # could not go with the block's last statements.
                async with conn.pipeline():
                    await conn.execute("BEGIN")
                    reads = [conn.cursor(row_factory=dict_row) for _ in opening]
                    for cursor, (sql, params) in zip(reads, opening, strict=True):
                        await cursor.execute(sql, params)
                rows = [await cursor.fetchall() for cursor in reads]
            except BaseException as e:
                if _runs_again(e, conn, attempt, pool):
                    continue
                await _rolled_back(conn)
                raise
            begun = Begun(conn, rows)
            try:
                yield begun
            except BaseException:
                await _rolled_back(conn)
                raise
            if not begun.committed:
                if conn.info.transaction_status == TransactionStatus.INERROR:
                    await _rolled_back(conn)  # a COMMIT now would roll back without a word
                    raise psycopg.errors.InFailedSqlTransaction("a statement failed and the block went on")
                await begun.commit()
            return


async def run_in_transaction(
    pool: AsyncConnectionPool, work: Callable[[Begun], Awaitable[T]], *opening: Statement
) -> T:
    """`work` in a transaction in pipeline mode: BEGIN and the `opening` statements (writes that raise
    rather than answer, as a consumer's inbox claim) are queued, not sent (`_queued`), and leave with the
    first statement `work` sends, and its writes with the COMMIT (`Begun.commit` in its last round
    trip, or at the end). So `work` pays a round trip only where it reads, and one that reads nothing
    is one round trip from BEGIN to COMMIT; `transaction` waits for its opening statements' rows before
    its block runs.

    `work` runs before the opening statements are known to have succeeded: it must do nothing outside
    the transaction that may not be done twice. A connection the server has closed fails at the first
    round trip, before anything commits; `work` runs again on another (as `transaction` does after its
    BEGIN). Anything else rolls back and is raised; a `work` that went on after a failed statement has
    its COMMIT refused by psycopg (PipelineAborted), where Postgres would have rolled it back silently.

    Its statements are not prepared on the server, nor run as prepared. psycopg prepares a statement
    the fifth time it runs; one queued behind a statement that fails (a claim made before) is skipped
    by the server, yet psycopg kept it as prepared, and every later run of it on that connection failed
    ("prepared statement _pg3_12 does not exist"): under `make chaos` a supervisor's decisions failed
    so, were retried with backoff, and a run took 40 s."""
    for attempt in range(pool.max_size + 1):
        async with _unchecked(pool) as conn:
            threshold, conn.prepare_threshold = conn.prepare_threshold, None  # see below
            try:
                async with conn.pipeline():
                    await _queued(conn, "BEGIN")
                    begun = Begun(conn, [])
                    for sql, params in opening:
                        await begun.queue(sql, params)
                    result = await work(begun)
                    if not begun.committed:
                        await begun.commit()
                return result
            except BaseException as e:
                if _runs_again(e, conn, attempt, pool):
                    continue
                await _rolled_back(conn)
                raise
            finally:
                conn.prepare_threshold = threshold
    raise AssertionError("unreachable: the last attempt returns or raises")


async def _queued(conn: AsyncConnection, command: str) -> None:
    """`command` queued in the connection's pipeline, not sent: it leaves with the next statement that
    is (in one send). A statement executed in a pipeline is sent at once, and the send, with psycopg's
    waits for the socket around it, costs a turn of the event loop for BEGIN and again for a consumer's
    claim, in the middle of every hop (measured in docs/hot-path.md). psycopg queues its own BEGIN and
    COMMIT so (`_exec_command`) and has no public call for it. The parameters are bound client-side
    (mogrify); a failure is raised with the results of the statement it went with, as a sent one's
    would be."""
    async with conn.lock:
        await conn.wait(conn._exec_command(command))


def _runs_again(
    failure: BaseException, conn: AsyncConnection, attempt: int, pool: AsyncConnectionPool
) -> bool:
    """Whether work that failed so may run again on another connection: this one the server had closed
    (it fails at the first round trip, before anything is done), and the pool has others to try."""
    return isinstance(failure, psycopg.OperationalError) and conn.closed and attempt < pool.max_size


def _in_transaction(conn: AsyncConnection) -> bool:
    return not conn.closed and conn.info.transaction_status != TransactionStatus.IDLE


async def _rolled_back(conn: AsyncConnection) -> None:
    """ROLLBACK, for a block that failed. One that fails in turn (the connection lost) leaves the block's
    failure to be raised: the pool drops a broken connection, and rolls back one returned in a
    transaction."""
    if _in_transaction(conn):
        with contextlib.suppress(psycopg.Error):
            await conn.execute("ROLLBACK")


async def run_again_on_closed(
    pool: AsyncConnectionPool,
    work: Callable[[AsyncConnection], Awaitable[T]],
    *,
    timeout: float | None = None,
) -> T:
    """`work` on a connection of the pool, with no checkout check, for work that is safe to run again
    (an append: an event already stored is returned as stored; a read). A connection the server has
    closed fails at `work`'s first statement and is dropped by the pool; `work` runs again on another,
    as the check would have done. `timeout`: how long a checkout waits (the pool's own when None)."""
    for attempt in range(pool.max_size + 1):
        async with _unchecked(pool, timeout) as conn:
            try:
                return await work(conn)
            except psycopg.OperationalError as e:
                if _runs_again(e, conn, attempt, pool):
                    continue
                raise
    raise AssertionError("unreachable: the last attempt returns or raises")


async def read_rows(
    pool: AsyncConnectionPool, sql: str, params: Sequence[Any] | Mapping[str, Any] = ()
) -> list[dict[str, Any]]:
    """A read's rows as dicts, on a connection taken without the checkout's check: a read is safe to
    run again when the server has closed the one it was given (`run_again_on_closed`)."""

    async def read(conn: AsyncConnection) -> list[dict[str, Any]]:
        return await (await conn.cursor(row_factory=dict_row).execute(sql, params)).fetchall()

    return await run_again_on_closed(pool, read)


async def _first_connection(database_url: str) -> None:
    """Fail fast: the pool alone would retry a refused connection for the whole of `wait_s`."""
    try:
        conn = await psycopg.AsyncConnection.connect(database_url, connect_timeout=CONNECT_TIMEOUT_S)
    except psycopg.OperationalError as e:
        if is_outage(e):
            raise StoreUnreachable(database_url) from e
        raise
    await conn.close()
