"""Request bodies, bounded before the app sees them: in size (413) and in time (408).

Every body is read whole here and handed to the app from memory: the gateway's bodies are a few hundred
bytes, and reading them here is the one place both bounds hold. A body sent without Content-Length
(chunked) is counted as it comes; one declared larger than the limit is refused unread. A client that
declares more than it sends (or sends it a byte a minute) would hold a connection and a task for ever,
since uvicorn has no body timeout: past `timeout_s` it is answered 408 and the connection closed.
"""

from __future__ import annotations

import asyncio

from starlette.types import ASGIApp, Message, Receive, Scope, Send


class _TooLarge(Exception):
    pass


class _ClientGone(Exception):
    pass


class BoundedBodies:
    def __init__(self, app: ASGIApp, max_bytes: int, timeout_s: float) -> None:
        self.app, self.max_bytes, self.timeout_s = app, max_bytes, timeout_s

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        declared = dict(scope["headers"]).get(b"content-length")
        if declared is not None and (not declared.isdigit() or int(declared) > self.max_bytes):
            await _answer(send, 413, f"request body over {self.max_bytes} bytes")
            return
        try:
            async with asyncio.timeout(self.timeout_s):
                body = await self._read_whole(receive)
        except TimeoutError:
            # Closed after the answer: the rest of the body, if it ever comes, is no next request.
            await _answer(send, 408, f"request body not received within {self.timeout_s:g} s", close=True)
            return
        except _TooLarge:
            await _answer(send, 413, f"request body over {self.max_bytes} bytes")
            return
        except _ClientGone:
            return  # nothing to serve
        await self.app(scope, _replaying(body, receive), send)

    async def _read_whole(self, receive: Receive) -> bytes:
        chunks, size = [], 0
        while True:
            message = await receive()
            if message["type"] != "http.request":
                raise _ClientGone
            chunks.append(message.get("body", b""))
            size += len(chunks[-1])
            if size > self.max_bytes:
                raise _TooLarge
            if not message.get("more_body", False):
                return b"".join(chunks)


def _replaying(body: bytes, receive: Receive) -> Receive:
    """A receive that hands the app the body read already, then the connection's own messages."""
    sent = False

    async def replay() -> Message:
        nonlocal sent
        if sent:
            return await receive()
        sent = True
        return {"type": "http.request", "body": body, "more_body": False}

    return replay


async def _answer(send: Send, status: int, detail: str, *, close: bool = False) -> None:
    body = f'{{"detail": "{detail}"}}'.encode()
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
    if close:
        headers.append((b"connection", b"close"))
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})
