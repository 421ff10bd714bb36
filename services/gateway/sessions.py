"""Sessions and their tokens. A token is shown once, at creation; only its sha256 is stored, so the
`sessions` table cannot be used to get in. Tokens carry 256 random bits, so an unsalted hash is enough
(there is nothing to brute-force from a dictionary), and the lookup can go by hash."""

from __future__ import annotations

import hashlib
import secrets
from uuid import uuid4

from psycopg.rows import scalar_row
from psycopg_pool import AsyncConnectionPool


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


class Sessions:
    def __init__(self, pool: AsyncConnectionPool, acquire_timeout_s: float = 30.0) -> None:
        self.pool, self.acquire_timeout_s = pool, acquire_timeout_s

    async def create(self, title: str | None = None, person_id: str | None = None) -> tuple[str, str]:
        """A new session, of `person_id` if given (people.py): (session_id, token)."""
        session_id, token = uuid4().hex, secrets.token_urlsafe(32)
        async with self.pool.connection(timeout=self.acquire_timeout_s) as conn:
            await conn.execute(
                "INSERT INTO sessions (session_id, token_hash, title, person_id) VALUES (%s, %s, %s, %s)",
                (session_id, token_hash(token), title, person_id),
            )
        return session_id, token

    async def person_of(self, session_id: str) -> str | None:
        """Whose session this is (None: a session of nobody)."""
        async with self.pool.connection(timeout=self.acquire_timeout_s) as conn:
            cur = await conn.cursor(row_factory=scalar_row).execute(
                "SELECT person_id FROM sessions WHERE session_id = %s", (session_id,)
            )
            return await cur.fetchone()

    async def holder_of(self, token: str | None) -> str | None:
        """The session this token opens, or None for a missing or unknown token."""
        if not token or len(token) > 200:
            return None
        async with self.pool.connection(timeout=self.acquire_timeout_s) as conn:
            cur = await conn.cursor(row_factory=scalar_row).execute(
                "SELECT session_id FROM sessions WHERE token_hash = %s", (token_hash(token),)
            )
            return await cur.fetchone()
