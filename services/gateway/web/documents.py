"""`GET /api/documents/{artifact_id}`: a generated document's bytes, for the session that owns it.

Another session's document is 404, exactly like one that does not exist, so a session cannot learn
which documents others have. The file name is usually Korean; HTTP headers are Latin-1, so it goes in
RFC 5987's `filename*` (UTF-8, percent-encoded), with an ASCII `filename` for clients that ignore it.
"""

from __future__ import annotations

from pathlib import PurePosixPath
from urllib.parse import quote

from fastapi import APIRouter, HTTPException, Response, status

from services.gateway.feed.reads import session_document
from services.gateway.web.rest import PortsDep, SessionDep

router = APIRouter()
# The media types the document service writes (DOCX and Markdown), for /openapi.json.
DOCUMENT_BYTES = {"schema": {"type": "string", "format": "binary"}}
DOCUMENT_TYPES = (
    "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
    "text/markdown; charset=utf-8",
)


@router.get(
    "/api/documents/{artifact_id}",
    response_class=Response,
    responses={
        200: {"description": "the document", "content": dict.fromkeys(DOCUMENT_TYPES, DOCUMENT_BYTES)}
    },
)
async def download_document(artifact_id: str, caller: SessionDep, ports: PortsDep) -> Response:
    found = await session_document(ports.reads, artifact_id, caller)
    if found is None:
        raise HTTPException(status.HTTP_404_NOT_FOUND, "this session has no such document")
    name, media_type, content = found
    headers = {"Content-Disposition": content_disposition(name), "Cache-Control": "private, no-store"}
    return Response(content, media_type=media_type, headers=headers)


def content_disposition(name: str) -> str:
    """`attachment` with the name twice: ASCII-only (its extension kept) and the exact UTF-8 one."""
    path = PurePosixPath(name)
    suffix = "".join(c for c in path.suffix if c.isascii() and c.isalnum())
    stem = "".join(c if c.isascii() and (c.isalnum() or c in "-_") else "_" for c in path.stem)
    fallback = (stem.strip("_") or "document") + (f".{suffix}" if suffix else "")
    return f"attachment; filename=\"{fallback}\"; filename*=UTF-8''{quote(name, safe='')}"
