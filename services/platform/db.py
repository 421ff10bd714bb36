"""Postgres connections and migrations."""

from __future__ import annotations

from psycopg.rows import dict_row
from psycopg_pool import AsyncConnectionPool

from services.platform.settings import REPO_ROOT


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


async def open_pool(database_url: str, *, min_size: int = 1, max_size: int = 8) -> AsyncConnectionPool:
    """A pool whose connections are checked on checkout, so a restarted Postgres costs one error, not all."""
    pool = AsyncConnectionPool(
        database_url,
        min_size=min_size,
        max_size=max_size,
        kwargs={"row_factory": dict_row, "autocommit": False},
        check=AsyncConnectionPool.check_connection,
        reconnect_timeout=3600,
        open=False,
    )
    await pool.open(wait=True, timeout=30)
    return pool
