"""A fingerprint of every projection row, to prove a rebuild equals the live build."""

from __future__ import annotations

import hashlib
import json
from datetime import UTC, datetime
from typing import Any

from psycopg import AsyncConnection
from psycopg.rows import dict_row

from services.projector.store import PROJECTION_TABLES


async def digest(conn: AsyncConnection) -> str:
    """sha256 over every row of every projection table, in primary-key order.

    Rows are rendered in Python, not by Postgres, so the digest does not depend
    on the session's time zone: keys sorted, timestamps in UTC, jsonb as the
    canonical JSON of its value.
    """
    sha = hashlib.sha256()
    async with conn.cursor(row_factory=dict_row) as cur:
        for table, key in PROJECTION_TABLES.items():
            sha.update(f"{table}\n".encode())
            await cur.execute(f"SELECT * FROM {table} ORDER BY {key}")
            async for row in cur:
                sha.update(_canonical(row).encode() + b"\n")
    return sha.hexdigest()


def _canonical(row: dict[str, Any]) -> str:
    return json.dumps(row, sort_keys=True, ensure_ascii=False, separators=(",", ":"), default=_utc)


def _utc(value: Any) -> str:
    if isinstance(value, datetime):
        return value.astimezone(UTC).isoformat()
    raise TypeError(f"no canonical form for {type(value).__name__}")
