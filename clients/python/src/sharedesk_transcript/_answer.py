"""One attempt's answer: its body read within the attempt's deadline, and what the body
holds, the JSON of a success or the ProblemError of a refusal."""

from __future__ import annotations

import json
import math
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
    no bound), or raises Late: a body that trickles in is cut at the deadline. A read that
    blocks is bounded by httpx's timeout of each socket operation, so an attempt whose
    answer stops coming ends within its timeout after the deadline at most. (Shutting the
    socket at the deadline from a timer could reach a connection the pool already gave to
    another request of a Desk shared between threads.)"""
    if past(deadline):
        raise Late()
    return _chunks(response, deadline)


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


def outcome(what: str, response: httpx.Response, body: bytes) -> Any:
    """The JSON of a success's body, or raises: the ProblemError of a refusal, an
    APIConnectionError for a success whose body is not JSON (empty, a proxy's page)."""
    if response.is_error:
        raise ProblemError.from_response(what, response, body)
    try:
        return json.loads(body)
    except ValueError as err:
        raise APIConnectionError(what, "an answer that is not JSON") from err
