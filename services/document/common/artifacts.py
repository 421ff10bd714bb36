"""Generated files as artifacts in the `documents` table (산출물): stored by content hash, served only
to the session that owns them.

The gateway serves `GET /api/documents/{id}`; services do not import each other, so it reads the
table itself with the same query as `load_document` below.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

from psycopg import AsyncConnection

from contracts.values import DocumentRef

DOCX = "application/vnd.openxmlformats-officedocument.wordprocessingml.document"
MARKDOWN = "text/markdown; charset=utf-8"
NO_SESSION = "-"

INSERT = """
    INSERT INTO documents (artifact_id, session_id, run_id, name, media_type, sha256, size, content)
    VALUES (%s, %s, %s, %s, %s, %s, %s, %s)
    ON CONFLICT (artifact_id) DO NOTHING
"""
LOAD = "SELECT name, media_type, content FROM documents WHERE artifact_id = %s AND session_id = %s"


@dataclass(frozen=True)
class Artifact:
    name: str
    media_type: str
    content: bytes

    @property
    def sha256(self) -> str:
        return hashlib.sha256(self.content).hexdigest()

    def artifact_id(self, session_id: str | None) -> str:
        """The content hash, plus a short hash of the owner: the same bytes made for two sessions
        are two rows, so one session can never be handed the other's download."""
        owner = hashlib.sha256((session_id or NO_SESSION).encode()).hexdigest()[:12]
        return f"{self.sha256}-{owner}"

    def ref(self, session_id: str | None) -> DocumentRef:
        return DocumentRef(
            artifact_id=self.artifact_id(session_id),
            name=self.name,
            media_type=self.media_type,
            sha256=self.sha256,
        )


async def store_artifact(
    conn: AsyncConnection, artifact: Artifact, session_id: str | None, run_id: str
) -> DocumentRef:
    """Insert once; the same content for the same session again changes nothing (a retried step)."""
    ref = artifact.ref(session_id)
    values = (ref.artifact_id, session_id, run_id, artifact.name, artifact.media_type, ref.sha256)
    await conn.execute(INSERT, (*values, len(artifact.content), artifact.content))
    return ref


async def load_document(
    conn: AsyncConnection, artifact_id: str, session_id: str
) -> tuple[str, str, bytes] | None:
    """(name, media_type, bytes) of a document the session owns; None for anyone else's or none."""
    cursor = await conn.execute(LOAD, (artifact_id, session_id))
    row = await cursor.fetchone()
    if row is None:
        return None
    if isinstance(row, dict):
        return row["name"], row["media_type"], bytes(row["content"])
    return row[0], row[1], bytes(row[2])
