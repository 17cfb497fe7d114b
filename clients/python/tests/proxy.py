"""A fault proxy for the tests: on loopback, in front of a transcript serve, it forwards each
request unless its plan says to fail it: drop the connection before forwarding, drop the
answer after forwarding (the server has done the request, the client hears nothing), answer
a status of its own, or hold the answer."""

from __future__ import annotations

import json
import threading
import time
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import httpx


@dataclass
class Rule:
    """Fails the next ``times`` requests of ``method`` whose path ends with ``suffix``:
    ``fault`` is "drop-request", "drop-answer", "hold" (``seconds``) or "status"
    (``status``, ``retry_after``)."""

    method: str
    suffix: str
    fault: str
    times: int = 1
    status: int = 0
    retry_after: int | None = None
    seconds: float = 0.0


class Proxy:
    def __init__(self, upstream: str) -> None:
        self.upstream = upstream
        self.rules: list[Rule] = []
        self.seen: list[str] = []
        self._lock = threading.Lock()
        proxy = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: Any) -> None:
                pass

            def handle_one(self) -> None:
                path = self.path.split("?")[0]
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                rule = proxy.take(self.command, path)
                if rule is not None and rule.fault == "drop-request":
                    self.close_connection = True
                    self.connection.close()
                    return
                if rule is not None and rule.fault == "status":
                    data = json.dumps({"type": "about:blank", "status": rule.status, "title": "proxy"}).encode()
                    self.send_response(rule.status)
                    self.send_header("Content-Type", "application/problem+json")
                    self.send_header("Content-Length", str(len(data)))
                    if rule.retry_after is not None:
                        self.send_header("Retry-After", str(rule.retry_after))
                    self.end_headers()
                    self.wfile.write(data)
                    return
                headers = {k: v for k, v in self.headers.items() if k.lower() not in ("host", "connection")}
                answer = httpx.request(
                    self.command, proxy.upstream + self.path, headers=headers, content=body or None, timeout=30
                )
                if rule is not None and rule.fault == "drop-answer":
                    self.close_connection = True
                    self.connection.close()
                    return
                if rule is not None and rule.fault == "hold":
                    time.sleep(rule.seconds)
                self.send_response(answer.status_code)
                for k, v in answer.headers.items():
                    if k.lower() not in ("content-length", "transfer-encoding", "connection", "content-encoding"):
                        self.send_header(k, v)
                self.send_header("Content-Length", str(len(answer.content)))
                self.end_headers()
                self.wfile.write(answer.content)

            do_GET = do_POST = do_PATCH = do_DELETE = handle_one

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self._server.server_address[1]}"
        threading.Thread(target=self._server.serve_forever, daemon=True).start()

    def plan(self, *rules: Rule) -> None:
        with self._lock:
            self.rules = list(rules)
            self.seen.clear()

    def take(self, method: str, path: str) -> Rule | None:
        with self._lock:
            self.seen.append(f"{method} {path}")
            for r in self.rules:
                if r.times > 0 and r.method == method and path.endswith(r.suffix):
                    r.times -= 1
                    return r
            return None

    def close(self) -> None:
        self._server.shutdown()
        self._server.server_close()
