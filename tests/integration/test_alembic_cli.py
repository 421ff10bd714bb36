"""Alembic's own CLI works on the project's ini with DATABASE_URL, as an operator would run it."""

from __future__ import annotations

import os
import subprocess
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest
from alembic.config import Config
from alembic.script import ScriptDirectory

from services.platform.settings import REPO_ROOT
from tests.conftest import database_on
from tests.servers import ServerUrls

pytestmark = pytest.mark.integration
ALEMBIC = str(Path(sys.executable).parent / "alembic")  # the console script of the project's venv
INI = REPO_ROOT / "infra" / "alembic.ini"


@pytest.fixture
def empty_database(server_urls: ServerUrls) -> Iterator[str]:
    """A new database with no tables: alembic's CLI is what migrates it here."""
    name = f"jipsa_alembic_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(server_urls.database_url, autocommit=True) as admin:
        admin.execute(f'CREATE DATABASE "{name}"')
    try:
        yield database_on(server_urls.database_url, name)
    finally:
        with psycopg.connect(server_urls.database_url, autocommit=True) as admin:
            admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def alembic(*args: str, database_url: str | None) -> subprocess.CompletedProcess[str]:
    env = {key: value for key, value in os.environ.items() if key != "DATABASE_URL"}
    if database_url:
        env["DATABASE_URL"] = database_url
    return subprocess.run(
        [ALEMBIC, "-c", str(INI), *args], env=env, capture_output=True, text=True, timeout=120
    )


def test_upgrade_head_then_current_names_the_head_revision(empty_database: str) -> None:
    head = ScriptDirectory.from_config(Config(str(INI))).get_current_head()

    upgraded = alembic("upgrade", "head", database_url=empty_database)
    current = alembic("current", database_url=empty_database)

    assert upgraded.returncode == 0, upgraded.stderr
    assert current.returncode == 0, current.stderr
    assert current.stdout.split() == [head, "(head)"]
    with psycopg.connect(empty_database) as conn:
        assert conn.execute("SELECT to_regclass('events') IS NOT NULL").fetchone() == (True,)


def test_without_database_url_it_says_so() -> None:
    done = alembic("current", database_url=None)

    assert done.returncode != 0
    assert "DATABASE_URL is not set" in done.stdout
