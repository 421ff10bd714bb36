"""A scripted fake of the OpenAI HTTP API, so tests drive the real `openai` client over real HTTP.

It serves POST /v1/chat/completions, POST /v1/embeddings and GET /v1/models on 127.0.0.1, on a free
port, from a background thread. Use the fixture by importing it into a test module:

    from tests.fake_openai import FakeOpenAI, Reply, fake_openai_fixture  # noqa: F401

    async def test_plan(fake_openai: FakeOpenAI):
        fake_openai.script(Reply.json({"intent": "LEGAL_CONSULT"}), call_point="planning")
        fake_openai.script(Reply.error(429, retry_after=0), Reply.json({...}))  # any call point
        settings = LlmSettings(OPENAI_BASE_URL=fake_openai.base_url)
        ...
        assert fake_openai.requests_for("planning")[0].model == "gpt-4o-mini"

Which call point is asking: `LlmClient` starts every system message with the line
`call_point: <name>`; the fake reads it (None when absent). A chat request takes the first reply
queued for its call point, else the first queued for any call point, else the default for its call
point, else the global default (HTTP 422 "no scripted reply" unless set: a 4xx the client does not
retry, so an unscripted call falls back at once and shows up in `requests`).

Embeddings are deterministic: a hashed bag of character bigrams, L2-normalised, `EMBEDDING_DIM` wide,
so texts sharing bigrams are near each other. Script `call_point="embeddings"` to make them fail.
"""

from __future__ import annotations

import base64
import hashlib
import json
import math
import re
import struct
import sys
import threading
from collections import deque
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

EMBEDDING_DIM = 64
EMBEDDINGS = "embeddings"
_CALL_POINT = re.compile(r"\Acall_point: (\S+)")


@dataclass(frozen=True)
class Reply:
    """One scripted answer: message content with status 200, or an error status; after `delay_s`."""

    content: str = ""
    status: int = 200
    retry_after: float | None = None
    delay_s: float = 0.0
    usage: tuple[int, int] = (11, 7)

    @classmethod
    def json(cls, answer: Any, *, delay_s: float = 0.0) -> Reply:
        return cls(content=json.dumps(answer, ensure_ascii=False), delay_s=delay_s)

    @classmethod
    def text(cls, content: str, *, delay_s: float = 0.0) -> Reply:
        """Raw content as the model's message: Markdown, or malformed JSON."""
        return cls(content=content, delay_s=delay_s)

    @classmethod
    def error(
        cls, status: int, message: str = "scripted error", *, retry_after: float | None = None
    ) -> Reply:
        return cls(content=message, status=status, retry_after=retry_after)


NO_SCRIPT = Reply.error(422, "no scripted reply")


@dataclass(frozen=True)
class RecordedRequest:
    path: str
    call_point: str | None
    body: dict[str, Any]

    @property
    def model(self) -> str | None:
        return self.body.get("model")

    @property
    def messages(self) -> list[dict[str, Any]]:
        return self.body.get("messages", [])

    @property
    def response_format(self) -> dict[str, Any] | None:
        return self.body.get("response_format")


@dataclass
class FakeOpenAI:
    """The script and the record; `serve()` puts it on the network."""

    json_schema_supported: bool = True
    requests: list[RecordedRequest] = field(default_factory=list)
    base_url: str = ""
    _queues: dict[str | None, deque[Reply]] = field(default_factory=dict)
    _defaults: dict[str | None, Reply] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock)
    _stopping: threading.Event = field(default_factory=threading.Event)

    def script(self, *replies: Reply, call_point: str | None = None) -> None:
        """Queue replies, in order, for one call point or (None) for any."""
        with self._lock:
            self._queues.setdefault(call_point, deque()).extend(replies)

    def set_default(self, reply: Reply, *, call_point: str | None = None) -> None:
        with self._lock:
            self._defaults[call_point] = reply

    def requests_for(self, call_point: str) -> list[RecordedRequest]:
        with self._lock:
            return [r for r in self.requests if r.call_point == call_point]

    def next_reply(self, call_point: str | None) -> Reply:
        with self._lock:
            for key in (call_point, None):
                if self._queues.get(key):
                    return self._queues[key].popleft()
            return self._defaults.get(call_point) or self._defaults.get(None) or NO_SCRIPT

    def next_embedding_failure(self) -> Reply | None:
        with self._lock:
            queue = self._queues.get(EMBEDDINGS)
            return queue.popleft() if queue else None

    def record(self, path: str, call_point: str | None, body: dict[str, Any]) -> None:
        with self._lock:
            self.requests.append(RecordedRequest(path, call_point, body))

    def wait(self, seconds: float) -> None:
        """Sleep that ends early when the server stops, so a slow reply never holds up teardown."""
        self._stopping.wait(seconds)

    @contextmanager
    def serve(self) -> Iterator[FakeOpenAI]:
        server = _Server(("127.0.0.1", 0), _Handler)
        server.fake = self
        # A short poll interval: shutdown() waits for the next poll, and every test stops a server.
        thread = threading.Thread(target=server.serve_forever, args=(0.05,), name="fake-openai", daemon=True)
        thread.start()
        self.base_url = f"http://127.0.0.1:{server.server_address[1]}/v1"
        try:
            yield self
        finally:
            self._stopping.set()
            server.shutdown()
            server.server_close()
            thread.join(timeout=5)


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    # A handler still sleeping on a slow reply must not block shutdown (it wakes on _stopping anyway).
    block_on_close = False
    fake: FakeOpenAI

    def handle_error(self, request: Any, client_address: Any) -> None:
        # A client that timed out and hung up is the point of a slow reply, not an error to print.
        if not isinstance(sys.exc_info()[1], ConnectionError):
            super().handle_error(request, client_address)


class _Handler(BaseHTTPRequestHandler):
    server: _Server

    def log_message(self, format: str, *args: Any) -> None:
        """Quiet: the recorded requests are the log."""

    def do_GET(self) -> None:
        if self.path.rstrip("/") != "/v1/models":
            return self._send(404, {"error": {"message": f"no route {self.path}"}})
        self._send(
            200, {"object": "list", "data": [{"id": "fake-model", "object": "model", "owned_by": "tests"}]}
        )

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))) or b"{}")
        path = self.path.rstrip("/")
        if path == "/v1/chat/completions":
            return self._chat(body)
        if path == "/v1/embeddings":
            return self._embeddings(body)
        self._send(404, {"error": {"message": f"no route {self.path}"}})

    def _chat(self, body: dict[str, Any]) -> None:
        fake = self.server.fake
        call_point = _call_point(body.get("messages", []))
        fake.record("/v1/chat/completions", call_point, body)
        response_format = body.get("response_format") or {}
        if response_format.get("type") == "json_schema" and not fake.json_schema_supported:
            return self._send(400, {"error": {"message": "response_format json_schema is not supported"}})
        self._reply(fake.next_reply(call_point), lambda reply: _completion(body, reply))

    def _embeddings(self, body: dict[str, Any]) -> None:
        fake = self.server.fake
        fake.record("/v1/embeddings", EMBEDDINGS, body)
        reply = fake.next_embedding_failure() or Reply()
        self._reply(reply, lambda _: _embedding_list(body))

    def _reply(self, reply: Reply, success: Any) -> None:
        self.server.fake.wait(reply.delay_s)
        if reply.status != 200:
            headers = {} if reply.retry_after is None else {"Retry-After": f"{reply.retry_after:g}"}
            return self._send(reply.status, {"error": {"message": reply.content}}, headers)
        self._send(200, success(reply))

    def _send(self, status: int, payload: dict[str, Any], headers: dict[str, str] | None = None) -> None:
        data = json.dumps(payload, ensure_ascii=False).encode("utf-8")
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(data)


def _call_point(messages: list[dict[str, Any]]) -> str | None:
    system = next((m.get("content") for m in messages if m.get("role") == "system"), None)
    match = _CALL_POINT.match(system) if isinstance(system, str) else None
    return match[1] if match else None


def _completion(request: dict[str, Any], reply: Reply) -> dict[str, Any]:
    prompt_tokens, completion_tokens = reply.usage
    return {
        "id": "chatcmpl-fake",
        "object": "chat.completion",
        "created": 0,
        "model": request.get("model", "fake-model"),
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": reply.content},
                "finish_reason": "stop",
            }
        ],
        "usage": {
            "prompt_tokens": prompt_tokens,
            "completion_tokens": completion_tokens,
            "total_tokens": prompt_tokens + completion_tokens,
        },
    }


def _embedding_list(request: dict[str, Any]) -> dict[str, Any]:
    texts = request.get("input", [])
    texts = [texts] if isinstance(texts, str) else texts
    as_base64 = request.get("encoding_format") == "base64"
    data = [
        {"object": "embedding", "index": i, "embedding": _encode(fake_embedding(text), as_base64)}
        for i, text in enumerate(texts)
    ]
    usage = {"prompt_tokens": sum(len(t) for t in texts), "total_tokens": sum(len(t) for t in texts)}
    return {"object": "list", "model": request.get("model", "fake-embedding"), "data": data, "usage": usage}


def fake_embedding(text: str) -> list[float]:
    """Hashed bag of character bigrams (a lone character for one-letter texts), unit length."""
    vector = [0.0] * EMBEDDING_DIM
    grams = [text[i : i + 2] for i in range(len(text) - 1)] or [text]
    for gram in grams:
        digest = hashlib.blake2b(gram.encode("utf-8"), digest_size=4).digest()
        vector[int.from_bytes(digest, "little") % EMBEDDING_DIM] += 1.0
    norm = math.sqrt(sum(v * v for v in vector)) or 1.0
    return [v / norm for v in vector]


def _encode(vector: list[float], as_base64: bool) -> list[float] | str:
    # The SDK asks for base64 (packed little-endian float32) unless told otherwise.
    return base64.b64encode(struct.pack(f"<{len(vector)}f", *vector)).decode() if as_base64 else vector


@pytest.fixture(name="fake_openai")
def fake_openai_fixture() -> Iterator[FakeOpenAI]:
    with FakeOpenAI().serve() as fake:
        yield fake
