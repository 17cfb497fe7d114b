"""A desk's event stream, resumed by itself: the bookkeeping both iterators share, and the
sync and async loops around it."""

from __future__ import annotations

import asyncio
import json
import random
import time
from collections.abc import AsyncGenerator, Awaitable, Callable, Generator
from dataclasses import dataclass, field

import httpx
from httpx_sse import ServerSentEvent, SSEError, aconnect_sse, connect_sse

from . import models
from ._errors import APIConnectionError, ProblemError, usable_retry_after
from .types import CorrectionEvent, ElidedEvent, Event, MessageEvent, ReinitializeEvent

FIRST_BACKOFF = 0.25
MAX_BACKOFF = 5.0


@dataclass
class Resumption:
    """Where a stream is: the last id yielded (before any, the ``after`` asked for, or the
    head at the first connection), and how many tries in a row have failed."""

    what: str
    url: str
    params: dict[str, str | int]
    token: str = field(repr=False)
    read_timeout: float
    last: int | None = None
    failures: int = 0

    def request(self, client: httpx.Client | httpx.AsyncClient, start: int) -> dict[str, object]:
        """The keyword arguments of the connection's request, from start."""
        return {
            "params": self.params,
            "headers": {
                "Authorization": "Bearer " + self.token,
                "Accept": "text/event-stream",
                "Last-Event-ID": str(start),
            },
            "timeout": httpx.Timeout(client.timeout.connect, read=self.read_timeout),
        }

    def refused(self, response: httpx.Response) -> float | None:
        """The wait a refused connection asks for, or raises: 408, 429 and 5xx heal by
        waiting; 401, 403, 404 and the rest do not."""
        problem = ProblemError.from_response(self.what, response)
        if not retryable(problem):
            raise problem
        return problem.retry_after

    def accept(self, sse: ServerSentEvent) -> Event | None:
        """The event sse is, or None for one already yielded before a reconnection, a
        comment, or a type this client does not know."""
        seen = self.last or 0
        id = int(sse.id) if sse.id.isdigit() else seen
        if sse.event == "reinitialize":
            return ReinitializeEvent(id, models.ReinitializeEvent.model_validate_json(sse.data))
        if sse.event not in ("message", "elided", "correction") or id <= seen:
            return None
        data = json.loads(sse.data)
        ev: Event
        if sse.event == "message":
            ev = MessageEvent(id, models.Message.model_validate(data))
        elif sse.event == "correction":
            ev = CorrectionEvent(id, models.Message.model_validate(data))
        else:
            ev = ElidedEvent(id, models.Elision.model_validate(data))
        self.last = id
        self.failures = 0
        return ev

    def wait(self, retry_after: float | None) -> float:
        """Seconds to wait before the next try: Retry-After when usable_retry_after takes
        it, else a jittered backoff."""
        asked = usable_retry_after(retry_after)
        if asked is not None:
            wait = asked
        else:
            wait = min(MAX_BACKOFF, FIRST_BACKOFF * 2**self.failures) * (0.5 + random.random() / 2)
        self.failures += 1
        return wait


def retryable(problem: ProblemError) -> bool:
    """Whether a refusal heals by reconnecting: a 408, a 429 or a 5xx."""
    return problem.status in (408, 429) or problem.status >= 500


def stream(client: httpx.Client, r: Resumption, head: Callable[[], int]) -> Generator[Event, None, None]:
    """Yields r's events, reconnecting after a dropped connection, a timeout, a restarted
    server, a 408, a 429 or a 5xx, until a reinitialize event; other refusals raise ProblemError,
    and an answer that is not an event stream raises httpx_sse.SSEError."""
    while True:
        retry_after: float | None = None
        try:
            start = r.last if r.last is not None else head()
            r.last = start
            with connect_sse(client, "GET", r.url, **r.request(client, start)) as source:
                if source.response.status_code != 200:
                    source.response.read()
                    retry_after = r.refused(source.response)
                else:
                    for sse in source.iter_sse():
                        ev = r.accept(sse)
                        if ev is not None:
                            yield ev
                            if ev.type == "reinitialize":
                                return
        except ProblemError as problem:
            if not retryable(problem):
                raise
            retry_after = problem.retry_after
        except SSEError:
            raise  # an answer that is no event stream (a proxy's page, a wrong address): retrying cannot heal it
        except (httpx.TransportError, APIConnectionError):
            pass  # a dropped connection, a silent one, or a server that is not up: try again
        time.sleep(r.wait(retry_after))


async def astream(
    client: httpx.AsyncClient, r: Resumption, head: Callable[[], Awaitable[int]]
) -> AsyncGenerator[Event, None]:
    """stream, awaitable."""
    while True:
        retry_after: float | None = None
        try:
            start = r.last if r.last is not None else await head()
            r.last = start
            async with aconnect_sse(client, "GET", r.url, **r.request(client, start)) as source:
                if source.response.status_code != 200:
                    await source.response.aread()
                    retry_after = r.refused(source.response)
                else:
                    async for sse in source.aiter_sse():
                        ev = r.accept(sse)
                        if ev is not None:
                            yield ev
                            if ev.type == "reinitialize":
                                return
        except ProblemError as problem:
            if not retryable(problem):
                raise
            retry_after = problem.retry_after
        except SSEError:
            raise
        except (httpx.TransportError, APIConnectionError):
            pass
        await asyncio.sleep(r.wait(retry_after))
