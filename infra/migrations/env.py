"""Alembic environment: migrations are plain SQL run over the URL the caller gives.

`migrate()` (services/platform/db.py) sets `sqlalchemy.url`; alembic's own CLI
(`alembic -c infra/alembic.ini current`) leaves it unset, and then the database is DATABASE_URL,
read as the services read it.
"""

from alembic import context
from alembic.util import CommandError
from sqlalchemy import create_engine

from services.platform.db import sqlalchemy_url
from services.platform.settings import InfraSettings


def configured_url() -> str:
    if url := context.config.get_main_option("sqlalchemy.url"):
        return url
    if database_url := InfraSettings().database_url:
        return sqlalchemy_url(database_url)
    raise CommandError("DATABASE_URL is not set: it names the database to migrate")


engine = create_engine(configured_url())
with engine.connect() as connection:
    context.configure(connection=connection, transactional_ddl=True)
    with context.begin_transaction():
        context.run_migrations()
engine.dispose()
