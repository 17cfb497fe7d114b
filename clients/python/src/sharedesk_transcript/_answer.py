"""One attempt's answer: its body read within the attempt's deadline, and what the body
holds, the JSON of a success or the ProblemError of a refusal."""

from __future__ import annotations

import contextlib
import json
import math
import socket
import threading
import time
from typing import Any

import httpx

from ._errors import APIConnectionError, ProblemError


def seconds_or_none(timeout: float | None) -> float | None:
    """The bound a timeout sets, in seconds: None for None or infinity, which bound nothing."""
    return None if timeout is None or math.isinf(timeout) else timeout


def deadline_of(seconds: float | None) -> float | None:
    """The monotonic time an attempt that starts now and may take seconds ends by; None
    without a bound."""
    return None if seconds is None else time.monotonic() + seconds


def past(deadline: float | None) -> bool:
    return deadline is not None and time.monotonic() >= deadline


class Late(Exception):
    """The attempt's deadline passed before its answer was read."""


def read(response: httpx.Response, deadline: float | None) -> bytes:
    """The decoded body of a streamed response, read by deadline (monotonic seconds; None:
    no bound), or raises Late. A read blocked at the deadline ends then: the connection is
    shut, so a body that trickles in cannot outlast it. httpx's own timeouts bound each
    socket operation, not the whole."""
    if past(deadline):
        raise Late()
    sock = _socket_of(response) if deadline is not None else None
    if sock is None or deadline is None:
        return _chunks(response, deadline)
    lock = threading.Lock()
    reading = True

    def shut() -> None:
        # A connection the pool got back an instant before reads as closed, and the pool drops it.
        with lock:
            if reading:
                with contextlib.suppress(OSError):
                    socket.socket.shutdown(sock, socket.SHUT_RDWR)

    timer = threading.Timer(max(0.0, deadline - time.monotonic()), shut)
    timer.daemon = True
    timer.start()
    try:
        return _chunks(response, deadline)
    except httpx.TransportError:
        if past(deadline):
            raise Late() from None
        raise
    finally:
        with lock:
            reading = False
        timer.cancel()


async def aread(response: httpx.Response) -> bytes:
    """read, awaitable; the caller bounds the whole attempt."""
    chunks = [chunk async for chunk in response.aiter_bytes()]
    return b"".join(chunks)


def _chunks(response: httpx.Response, deadline: float | None) -> bytes:
    chunks: list[bytes] = []
    for chunk in response.iter_bytes():
        if past(deadline):
            raise Late()
        chunks.append(chunk)
    return b"".join(chunks)


def _socket_of(response: httpx.Response) -> socket.socket | None:
    """The socket an HTTP/1.1 answer comes on, when the transport tells; never a socket an
    HTTP/2 connection shares between requests."""
    if response.http_version != "HTTP/1.1":
        return None
    stream = response.extensions.get("network_stream")
    sock = stream.get_extra_info("socket") if stream is not None else None
    return sock if isinstance(sock, socket.socket) else None


def outcome(what: str, response: httpx.Response, body: bytes) -> Any:
    """The JSON of a success's body, or raises: the ProblemError of a refusal, an
    APIConnectionError for a success whose body is not JSON (empty, a proxy's page)."""
    if response.is_error:
        raise ProblemError.from_response(what, response, body)
    try:
        return json.loads(body)
    except ValueError as err:
        raise APIConnectionError(what, "an answer that is not JSON") from err
