"""Downloading a generated document: only the owning session gets the bytes, under its Korean name."""

from __future__ import annotations

import hashlib
from urllib.parse import unquote

import httpx
import pytest
from psycopg_pool import AsyncConnectionPool

from services.gateway.web.documents import content_disposition
from tests.integration.gateway_helpers import Gateway, new_session

pytestmark = pytest.mark.integration
NAME = "주택임대차계약서_홍길동.docx"
DOCX = "application/vnd.openxmlformats-officedocument.wordprocessingml.document"


async def stored(pool: AsyncConnectionPool, session_id: str, content: bytes) -> str:
    """A row as the document service writes it; its id, as that service derives it."""
    digest = hashlib.sha256(content).hexdigest()
    artifact_id = f"{digest}-{hashlib.sha256(session_id.encode()).hexdigest()[:12]}"
    async with pool.connection() as conn:
        await conn.execute(
            "INSERT INTO documents (artifact_id, session_id, run_id, name, media_type, sha256, size, content)"
            " VALUES (%s, %s, %s, %s, %s, %s, %s, %s)",
            (artifact_id, session_id, "run-1", NAME, DOCX, digest, len(content), content),
        )
    return artifact_id


async def test_the_owner_downloads_its_document_and_no_one_else_does(
    gateway: Gateway, pool: AsyncConnectionPool
) -> None:
    owner, owner_token = await new_session(gateway)
    _, other_token = await new_session(gateway)
    content = b"PK\x03\x04 not really a docx \x00\xff"
    artifact_id = await stored(pool, owner, content)
    path = f"/api/documents/{artifact_id}"

    async with httpx.AsyncClient(base_url=gateway.http_url) as http:
        mine = await http.get(path, headers={"Authorization": f"Bearer {owner_token}"})
        theirs = await http.get(path, headers={"Authorization": f"Bearer {other_token}"})
        missing = await http.get("/api/documents/nope", headers={"Authorization": f"Bearer {owner_token}"})
        anonymous = await http.get(path)

    assert mine.status_code == 200 and mine.content == content
    assert mine.headers["content-type"] == DOCX
    disposition = mine.headers["content-disposition"]
    assert disposition.startswith("attachment;")
    assert unquote(disposition.split("filename*=UTF-8''")[1]) == NAME
    assert theirs.status_code == 404 and missing.status_code == 404
    assert anonymous.status_code == 401


def test_the_plain_file_name_is_ascii_and_keeps_the_extension() -> None:
    header = content_disposition('계약서 "최종".docx')
    header.encode("latin-1")  # what an HTTP header may hold
    assert 'filename="document.docx"' in header
    assert "filename*=UTF-8''%EA%B3%84" in header
