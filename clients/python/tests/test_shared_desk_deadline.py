"""A Desk shared between threads: one request's deadline never ends another's request on a
connection the pool handed on."""

from __future__ import annotations

import http.server
import json
import threading
import time

import httpx
import pytest

from sharedesk_transcript import Desk, _answer
from sharedesk_transcript._errors import APIConnectionError

from .fake import fake, send

DESKS = json.dumps({"desks": [{"name": "d", "head": 0, "as": {"type": "person", "id": "ana"}}]}).encode()
MSG = json.dumps(
    {"seq": 1, "author": {"type": "person", "id": "ana"}, "content": "hi", "at": "2026-01-01T00:00:00Z"}
).encode()


def test_deadline_does_not_shut_another_requests_socket(monkeypatch: pytest.MonkeyPatch) -> None:
    """Thread A's request ends its body just before its deadline and is held there; B's post
    then takes the connection A gave back. A's deadline passing must not end B's post."""
    posts: list[str] = []

    def handle(h: http.server.BaseHTTPRequestHandler) -> None:
        if h.command == "POST":
            posts.append(h.path)
            h.rfile.read(int(h.headers["Content-Length"]))
            time.sleep(1.0)  # a write that takes a while
            send(h, 201, MSG, "application/json")
        else:
            send(h, 200, DESKS, "application/json")

    body_read = threading.Event()
    chunks = _answer._chunks

    def slow_after_last_byte(response: httpx.Response, deadline: float | None) -> bytes:
        # the reading thread, descheduled right after the body's end
        out = chunks(response, deadline)
        if threading.current_thread().name == "A":
            body_read.set()
            time.sleep(0.6)
        return out

    monkeypatch.setattr(_answer, "_chunks", slow_after_last_byte)
    with fake(handle) as url:
        client = httpx.Client(limits=httpx.Limits(max_connections=1))
        desk = Desk(url, token="trs_test", desk="d", http_client=client, max_retries=0)
        results: dict[str, object] = {}

        def a() -> None:
            results["a"] = desk.info(timeout=0.3)

        def b() -> None:
            body_read.wait()
            try:
                results["b"] = desk.post("hi", timeout=5)
            except APIConnectionError as err:
                results["b"] = err

        ta, tb = threading.Thread(target=a, name="A"), threading.Thread(target=b, name="B")
        for th in (ta, tb):
            th.start()
        for th in (ta, tb):
            th.join()
        client.close()
    got = results["b"]
    assert not isinstance(got, Exception), (
        f"B's post (the service got {len(posts)}), on its own 5 s timeout, failed: {got!r} (cause {got.__cause__!r})"
    )
