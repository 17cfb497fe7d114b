"""Desk and AsyncDesk: one desk of a transcript service, as one token's participant."""

from __future__ import annotations

import asyncio
import random
import re
import time
from collections.abc import AsyncGenerator, Generator
from types import TracebackType
from typing import Any, TypeVar

import httpx

from . import _answer, _calls, _events, models
from ._calls import AudienceLike, Call, StateLike
from ._errors import APIConnectionError, APITimeoutError, ProblemError, usable_retry_after
from ._tokenid import token_id
from .types import Delta, Event, Reinitialize

T = TypeVar("T")

DEFAULT_TIMEOUT = 30.0
"""Seconds one attempt of a call may take, from its request to the last byte of its answer,
unless the Desk or the call says otherwise."""
DEFAULT_MAX_RETRIES = 2
"""How many times a call that may be sent again is retried, unless the Desk says otherwise."""
STREAM_READ_TIMEOUT = 60.0  # the service sends a heartbeat every 15 s by default

FIRST_BACKOFF = 0.5
MAX_BACKOFF = 8.0

_TOKEN = re.compile(r"[\x21-\x7e]+")


class _Base:
    def __init__(self, url: str, token: str, desk: str, timeout: float | None, max_retries: int) -> None:
        if not isinstance(token, str) or not _TOKEN.fullmatch(token):
            raise ValueError(
                "the token is empty or holds a character no token has (white space, a control or a non-ASCII character)"
            )
        if max_retries < 0:
            raise ValueError(f"max_retries is {max_retries}: a count, 0 or more")
        self.name = desk
        self.url = url.rstrip("/")
        self._token = token
        self._timeout = _answer.seconds_or_none(timeout)
        self._max_retries = max_retries
        self._me: models.Author | None = None

    @property
    def token_id(self) -> str:
        """The token's public ID (tok_…), as ``transcript token list`` shows it."""
        return token_id(self._token)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.url!r}, desk={self.name!r}, token={self.token_id})"

    def _headers(self) -> dict[str, str]:
        return {"Authorization": "Bearer " + self._token, "Accept": "application/json"}

    def _what(self, call: Call[T]) -> str:
        return f"{call.what} on desk {self.name}"

    def _seconds(self, timeout: float | None) -> float | None:
        """The seconds each attempt of a call may take: the call's timeout, else the desk's;
        None for no bound."""
        return self._timeout if timeout is None else _answer.seconds_or_none(timeout)

    def _request(self, call: Call[T], seconds: float | None) -> dict[str, Any]:
        """The keyword arguments of build_request for one attempt of call: httpx bounds each
        socket operation by seconds, and the attempt bounds the whole."""
        kw: dict[str, Any] = {"params": call.params, "headers": self._headers(), "timeout": seconds}
        if call.body is not None:
            kw["json"] = call.body
        return kw

    def _no_answer(self, call: Call[T], err: httpx.RequestError) -> APIConnectionError:
        """The failure of an attempt that got no usable answer: httpx's timeout is an
        APITimeoutError; a dropped connection, or a body that could not be decoded, an
        APIConnectionError."""
        failure: APIConnectionError
        if isinstance(err, httpx.TimeoutException):
            failure = APITimeoutError(self._what(call))
        elif isinstance(err, httpx.DecodingError):
            failure = APIConnectionError(self._what(call), "an answer that could not be decoded")
        else:
            failure = APIConnectionError(self._what(call), f"no answer from the service ({type(err).__name__})")
        failure.__cause__ = err
        return failure

    def _parse(self, call: Call[T], answer: Any) -> T:
        """call's answer read from answer, a 200's JSON: an answer of another shape (null, an
        array, an object without the fields the service sends) is an APIConnectionError, as
        a body that is not JSON is (and retried as one), never the decoder's own error."""
        try:
            return call.parse(answer)
        except (TypeError, ValueError) as err:  # pydantic's ValidationError is a ValueError
            failure = APIConnectionError(self._what(call), "an answer that is not what the service sends")
            raise failure from err

    def _wait(
        self, call: Call[T], failure: ProblemError | APIConnectionError, retry: int, max_retries: int | None
    ) -> float | None:
        """Seconds to wait before retrying call after failure, its retry-th retry, or None
        when it is not retried: only a call that may be sent again, after no answer, a 408,
        429 or 5xx, at most max_retries times; the answer's Retry-After (above 0 s, up to a minute),
        else a jittered backoff of 0.5 s doubling to 8 s. A call's max_retries wins over the
        desk's."""
        if not call.retryable or retry >= (self._max_retries if max_retries is None else max_retries):
            return None
        if isinstance(failure, ProblemError):
            if failure.status not in (408, 429) and failure.status < 500:
                return None
            asked = usable_retry_after(failure.retry_after)
            if asked is not None:
                return float(asked)
        return min(MAX_BACKOFF, FIRST_BACKOFF * 2.0**retry) * (1 - random.random() * 0.25)

    def _resumption(
        self, thread: int | None, after: int | None, as_: str | None, read_timeout: float
    ) -> _events.Resumption:
        return _events.Resumption(
            what=f"events on desk {self.name}",
            url=self.url + _calls.desk_path(self.name, "events"),
            params=_calls.query(thread=thread, as_=as_),
            token=self._token,
            read_timeout=read_timeout,
            last=after,
        )


class Desk(_Base):
    """One desk of a transcript service, as the token's participant: every read is its view,
    every write is by it. A problem answer raises the ProblemError of its status
    (BadRequestError, AuthenticationError, …); a request that got no answer, or a success
    whose body is not JSON or cannot be decoded, raises APIConnectionError (APITimeoutError
    when it timed out). Reads, and writes that carry a key, are retried up to
    ``max_retries`` times after no answer, a 408, 429 or 5xx (Retry-After honoured, else a
    jittered backoff); a write without a key, or with an empty one, which the service takes
    as none, is never sent twice. ``timeout`` (seconds) bounds each attempt, from its
    request to the last byte of its answer: an answer that trickles in is cut at it, and
    one that stops coming ends within ``timeout`` of its last bytes; None or infinity
    bounds nothing. Every method takes its own ``timeout`` (None: the desk's) and
    ``max_retries``. A Desk keeps no state between calls but the participant's identity, and
    may be shared between threads; close it (or use it as a context manager) to release its
    connections.

    ``http_client`` is the httpx.Client to send with (a proxy, a transport for tests); the
    Desk closes only a client it made. An empty token, or one with a character no token
    has, raises ValueError here, before anything is sent."""

    def __init__(
        self,
        url: str,
        *,
        token: str,
        desk: str,
        timeout: float | None = DEFAULT_TIMEOUT,
        max_retries: int = DEFAULT_MAX_RETRIES,
        http_client: httpx.Client | None = None,
    ) -> None:
        super().__init__(url, token, desk, timeout, max_retries)
        self._owned = http_client is None
        self._http = http_client if http_client is not None else httpx.Client(timeout=self._timeout)

    def __enter__(self) -> Desk:
        return self

    def __exit__(self, t: type[BaseException] | None, e: BaseException | None, tb: TracebackType | None) -> None:
        self.close()

    def close(self) -> None:
        """Closes the desk's connections (not those of an http_client it was given)."""
        if self._owned:
            self._http.close()

    def _run(self, call: Call[T], timeout: float | None = None, max_retries: int | None = None) -> T:
        seconds = self._seconds(timeout)
        retry = 0
        while True:
            failure: ProblemError | APIConnectionError
            try:
                return self._parse(call, self._attempt(call, seconds))
            except (ProblemError, APIConnectionError) as err:
                failure = err
            wait = self._wait(call, failure, retry, max_retries)
            if wait is None:
                raise failure
            time.sleep(wait)
            retry += 1

    def _attempt(self, call: Call[T], seconds: float | None) -> Any:
        """The JSON of one attempt's answer to call, its request sent and its answer read
        within seconds (None: no bound), or raises the attempt's failure."""
        deadline = _answer.deadline_of(seconds)
        try:
            request = self._http.build_request(call.method, self.url + call.path, **self._request(call, seconds))
            response = self._http.send(request, stream=True)
            try:
                body = _answer.read(response, deadline)
            finally:
                response.close()
        except httpx.RequestError as err:
            raise self._no_answer(call, err) from err
        except _answer.Late:
            raise APITimeoutError(self._what(call)) from None
        return _answer.outcome(self._what(call), response, body)

    def info(self, *, timeout: float | None = None, max_retries: int | None = None) -> models.Desk:
        """The desk as the token sees it: its head, and the token's participant (``as_``)."""
        return _calls.desk_of(self.name, self._run(_calls.list_desks(), timeout, max_retries))

    def whoami(self, *, timeout: float | None = None, max_retries: int | None = None) -> models.Author:
        """The token's participant: the author of its posts, the viewer of its reads. It never
        changes, so the first answer is kept and later calls make no request."""
        if self._me is None:
            self._me = self.info(timeout=timeout, max_retries=max_retries).as_
        return self._me

    def view(
        self,
        *,
        thread: int | None = None,
        before: int | None = None,
        window: int | None = None,
        as_: str | None = None,
        rendered: bool = False,
        digest: bool = False,
        timeout: float | None = None,
        max_retries: int | None = None,
    ) -> models.Projection:
        """The channel, or a thread, as the participant sees it: the newest ``window``
        messages below ``before``, oldest first, with elisions for rows it may not read.
        ``as_`` (operator tokens only) reads as another participant; with ``rendered`` the
        answer carries each message's envelope and each elision's tag (``rendered``). With
        ``digest`` the answer carries the conversation's digest below the window (``digest``,
        a models.Digest), when it has one: standing context for its older history, folded
        only from rows every participant may read; with ``rendered`` too, its tag is
        ``rendered.digest``, the user-side content that goes before the first message."""
        return self._run(_calls.view(self.name, thread, before, window, as_, rendered, digest), timeout, max_retries)

    def post(
        self,
        content: str,
        *,
        parent: int | None = None,
        audience: AudienceLike | None = None,
        key: str | None = None,
        timeout: float | None = None,
        max_retries: int | None = None,
    ) -> models.Message:
        """Appends a message by the participant and returns the stored row: a reply in
        ``parent``'s thread, an aside for ``audience`` (a reply to an aside is one), and with
        ``key`` idempotent (a key already stored answers the stored row; an empty key is
        none)."""
        return self._run(_calls.post(self.name, content, parent, audience, key), timeout, max_retries)

    def delta(
        self,
        state: StateLike,
        *,
        conversation: int | None = None,
        before: int | None = None,
        as_: str | None = None,
        rendered: bool = False,
        timeout: float | None = None,
        max_retries: int | None = None,
    ) -> Delta | Reinitialize:
        """What the participant has not seen since ``state`` in ``conversation`` (a
        thread's root; None: the channel), or why the state cannot say; with ``rendered``
        the delta carries the text of each message, correction and elision."""
        return self._run(_calls.delta(self.name, state, conversation, before, as_, rendered), timeout, max_retries)

    def threads(
        self,
        *,
        before: int | None = None,
        limit: int | None = None,
        as_: str | None = None,
        timeout: float | None = None,
        max_retries: int | None = None,
    ) -> models.ThreadList:
        """The newest threads the participant can read, below ``before``."""
        return self._run(_calls.threads(self.name, before, limit, as_), timeout, max_retries)

    def edit(
        self,
        seq: int,
        content: str,
        *,
        key: str | None = None,
        timeout: float | None = None,
        max_retries: int | None = None,
    ) -> models.Message:
        """Gives row seq, the participant's own, new content; returns the correction row."""
        return self._run(_calls.edit(self.name, seq, content, key), timeout, max_retries)

    def redact(
        self, seq: int, *, key: str | None = None, timeout: float | None = None, max_retries: int | None = None
    ) -> models.Message:
        """Erases row seq's content for good (its author or the operator); returns the
        correction row."""
        return self._run(_calls.redact(self.name, seq, key), timeout, max_retries)

    def search(
        self,
        words: str,
        *,
        thread: int | None = None,
        before: int | None = None,
        limit: int | None = None,
        as_: str | None = None,
        timeout: float | None = None,
        max_retries: int | None = None,
    ) -> models.SearchAnswer:
        """The newest messages holding every word, among those the participant may read,
        newest first; ``next`` is the ``before`` of the next page (0: none)."""
        return self._run(_calls.search(self.name, words, thread, before, limit, as_), timeout, max_retries)

    def events(
        self,
        *,
        thread: int | None = None,
        after: int | None = None,
        as_: str | None = None,
        read_timeout: float = STREAM_READ_TIMEOUT,
    ) -> Generator[Event, None, None]:
        """What the participant has not seen, live, from ``after`` (default: the desk's head
        at the first connection): each event once and in order, resuming by itself with
        Last-Event-ID after a dropped or silent connection (``read_timeout``) or a restarted
        server, and after a 408, 429 or 5xx, waiting out Retry-After. It ends after a
        reinitialize event; ``close()`` (or leaving a ``with contextlib.closing(...)``
        block) ends it and its connection at once. A 401, 403, 404 or any other refusal
        that waiting cannot heal raises ProblemError; an answer that is not an event stream
        (a proxy's page, a wrong address) raises httpx_sse.SSEError."""
        return _events.stream(self._http, self._resumption(thread, after, as_, read_timeout), lambda: self.info().head)


class AsyncDesk(_Base):
    """Desk, awaitable: the same methods, each a coroutine, and ``events`` an async
    iterator. Close it with ``await desk.aclose()`` or ``async with``."""

    def __init__(
        self,
        url: str,
        *,
        token: str,
        desk: str,
        timeout: float | None = DEFAULT_TIMEOUT,
        max_retries: int = DEFAULT_MAX_RETRIES,
        http_client: httpx.AsyncClient | None = None,
    ) -> None:
        super().__init__(url, token, desk, timeout, max_retries)
        self._owned = http_client is None
        self._http = http_client if http_client is not None else httpx.AsyncClient(timeout=self._timeout)

    async def __aenter__(self) -> AsyncDesk:
        return self

    async def __aexit__(self, t: type[BaseException] | None, e: BaseException | None, tb: TracebackType | None) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        """Closes the desk's connections (not those of an http_client it was given)."""
        if self._owned:
            await self._http.aclose()

    async def _run(self, call: Call[T], timeout: float | None = None, max_retries: int | None = None) -> T:
        seconds = self._seconds(timeout)
        retry = 0
        while True:
            failure: ProblemError | APIConnectionError
            try:
                return self._parse(call, await self._attempt(call, seconds))
            except (ProblemError, APIConnectionError) as err:
                failure = err
            wait = self._wait(call, failure, retry, max_retries)
            if wait is None:
                raise failure
            await asyncio.sleep(wait)
            retry += 1

    async def _attempt(self, call: Call[T], seconds: float | None) -> Any:
        """Desk._attempt, awaitable: the attempt is cancelled at its deadline."""
        try:
            return await asyncio.wait_for(self._exchange(call, seconds), seconds)
        except asyncio.TimeoutError:
            raise APITimeoutError(self._what(call)) from None

    async def _exchange(self, call: Call[T], seconds: float | None) -> Any:
        try:
            request = self._http.build_request(call.method, self.url + call.path, **self._request(call, seconds))
            response = await self._http.send(request, stream=True)
            try:
                body = await _answer.aread(response)
            finally:
                await response.aclose()
        except httpx.RequestError as err:
            raise self._no_answer(call, err) from err
        return _answer.outcome(self._what(call), response, body)

    async def info(self, *, timeout: float | None = None, max_retries: int | None = None) -> models.Desk:
        """Desk.info."""
        return _calls.desk_of(self.name, await self._run(_calls.list_desks(), timeout, max_retries))

    async def whoami(self, *, timeout: float | None = None, max_retries: int | None = None) -> models.Author:
        """Desk.whoami."""
        if self._me is None:
            self._me = (await self.info(timeout=timeout, max_retries=max_retries)).as_
        return self._me

    async def view(
        self,
        *,
        thread: int | None = None,
        before: int | None = None,
        window: int | None = None,
        as_: str | None = None,
        rendered: bool = False,
        digest: bool = False,
        timeout: float | None = None,
        max_retries: int | None = None,
    ) -> models.Projection:
        """Desk.view."""
        return await self._run(
            _calls.view(self.name, thread, before, window, as_, rendered, digest), timeout, max_retries
        )

    async def post(
        self,
        content: str,
        *,
        parent: int | None = None,
        audience: AudienceLike | None = None,
        key: str | None = None,
        timeout: float | None = None,
        max_retries: int | None = None,
    ) -> models.Message:
        """Desk.post."""
        return await self._run(_calls.post(self.name, content, parent, audience, key), timeout, max_retries)

    async def delta(
        self,
        state: StateLike,
        *,
        conversation: int | None = None,
        before: int | None = None,
        as_: str | None = None,
        rendered: bool = False,
        timeout: float | None = None,
        max_retries: int | None = None,
    ) -> Delta | Reinitialize:
        """Desk.delta."""
        return await self._run(
            _calls.delta(self.name, state, conversation, before, as_, rendered), timeout, max_retries
        )

    async def threads(
        self,
        *,
        before: int | None = None,
        limit: int | None = None,
        as_: str | None = None,
        timeout: float | None = None,
        max_retries: int | None = None,
    ) -> models.ThreadList:
        """Desk.threads."""
        return await self._run(_calls.threads(self.name, before, limit, as_), timeout, max_retries)

    async def edit(
        self,
        seq: int,
        content: str,
        *,
        key: str | None = None,
        timeout: float | None = None,
        max_retries: int | None = None,
    ) -> models.Message:
        """Desk.edit."""
        return await self._run(_calls.edit(self.name, seq, content, key), timeout, max_retries)

    async def redact(
        self, seq: int, *, key: str | None = None, timeout: float | None = None, max_retries: int | None = None
    ) -> models.Message:
        """Desk.redact."""
        return await self._run(_calls.redact(self.name, seq, key), timeout, max_retries)

    async def search(
        self,
        words: str,
        *,
        thread: int | None = None,
        before: int | None = None,
        limit: int | None = None,
        as_: str | None = None,
        timeout: float | None = None,
        max_retries: int | None = None,
    ) -> models.SearchAnswer:
        """Desk.search."""
        return await self._run(_calls.search(self.name, words, thread, before, limit, as_), timeout, max_retries)

    def events(
        self,
        *,
        thread: int | None = None,
        after: int | None = None,
        as_: str | None = None,
        read_timeout: float = STREAM_READ_TIMEOUT,
    ) -> AsyncGenerator[Event, None]:
        """Desk.events, as an async generator: ``aclose()`` ends it."""

        async def head() -> int:
            return (await self.info()).head

        return _events.astream(self._http, self._resumption(thread, after, as_, read_timeout), head)
