"""A fake service for the tests: on loopback, each request answered by the test's handler,
for answers a real transcript serve never gives (a trickled body, a 408 on a stream)."""

from __future__ import annotations

import contextlib
import http.server
import json
import threading
from collections.abc import Callable, Iterator
from typing import Any

Handler = Callable[[http.server.BaseHTTPRequestHandler], None]


@contextlib.contextmanager
def fake(handle: Handler) -> Iterator[str]:
    """Serves handle on loopback for the block; yields the server's URL."""

    class Answer(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: Any) -> None:
            pass

        def answer(self) -> None:
            handle(self)

        do_GET = do_POST = do_PATCH = do_DELETE = answer

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Answer)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


def send(h: http.server.BaseHTTPRequestHandler, status: int, body: bytes, content_type: str, **headers: str) -> None:
    """Answers h with status and body in one piece."""
    h.send_response(status)
    h.send_header("Content-Type", content_type)
    h.send_header("Content-Length", str(len(body)))
    for k, v in headers.items():
        h.send_header(k.replace("_", "-"), v)
    h.end_headers()
    h.wfile.write(body)


def problem(h: http.server.BaseHTTPRequestHandler, status: int, title: str) -> None:
    body = json.dumps({"type": "about:blank", "status": status, "title": title}).encode()
    send(h, status, body, "application/problem+json")


def one_event(h: http.server.BaseHTTPRequestHandler, seq: int, content: str) -> None:
    """Answers h with an event stream holding one message, then keeps it open a while."""
    msg = {"seq": seq, "author": {"type": "person", "id": "ana"}, "content": content, "at": "2026-01-01T00:00:00Z"}
    h.send_response(200)
    h.send_header("Content-Type", "text/event-stream")
    h.end_headers()
    h.wfile.write(f"event: message\nid: {seq}\ndata: {json.dumps(msg)}\n\n".encode())
    h.wfile.flush()
    with contextlib.suppress(OSError):
        h.rfile.read(1)  # until the client goes
