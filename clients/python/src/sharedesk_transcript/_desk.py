"""Desk and AsyncDesk: one desk of a transcript service, as one token's participant."""

from __future__ import annotations

from collections.abc import AsyncGenerator, Generator
from types import TracebackType
from typing import Any, TypeVar

import httpx

from . import _calls, _events, models
from ._calls import AudienceLike, Call, StateLike
from ._errors import ProblemError
from ._tokenid import token_id
from .types import Delta, Event, Reinitialize

T = TypeVar("T")

DEFAULT_TIMEOUT = 30.0
STREAM_READ_TIMEOUT = 60.0  # the service sends a heartbeat every 15 s by default


class _Base:
    def __init__(self, url: str, token: str, desk: str) -> None:
        self.name = desk
        self.url = url.rstrip("/")
        self._token = token
        self._me: models.Author | None = None

    @property
    def token_id(self) -> str:
        """The token's public ID (tok_…), as ``transcript token list`` shows it."""
        return token_id(self._token)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.url!r}, desk={self.name!r}, token={self.token_id})"

    def _headers(self) -> dict[str, str]:
        return {"Authorization": "Bearer " + self._token, "Accept": "application/json"}

    def _request(self, call: Call[T]) -> dict[str, Any]:
        kw: dict[str, Any] = {"params": call.params}
        if call.body is not None:
            kw["json"] = call.body
        return kw

    def _answer(self, call: Call[T], response: httpx.Response) -> T:
        if response.is_error:
            raise ProblemError.from_response(f"{call.what} on desk {self.name}", response)
        return call.parse(response.json())

    def _resumption(
        self, thread: int | None, after: int | None, as_: str | None, read_timeout: float
    ) -> _events.Resumption:
        return _events.Resumption(
            what=f"events on desk {self.name}",
            path=_calls.desk_path(self.name, "events"),
            params=_calls.query(thread=thread, as_=as_),
            read_timeout=read_timeout,
            last=after,
        )


class Desk(_Base):
    """One desk of a transcript service, as the token's participant: every read is its view,
    every write is by it. Methods raise ProblemError for a problem answer, and httpx's
    TransportError when the service cannot be reached. A Desk keeps no state between calls
    but the participant's identity, and may be shared between threads; close it (or use it
    as a context manager) to release its connections.

    ``transport`` replaces httpx's, for tests or a proxy; ``timeout`` bounds each call."""

    def __init__(
        self,
        url: str,
        *,
        token: str,
        desk: str,
        timeout: float = DEFAULT_TIMEOUT,
        transport: httpx.BaseTransport | None = None,
    ) -> None:
        super().__init__(url, token, desk)
        self._http = httpx.Client(base_url=self.url, headers=self._headers(), timeout=timeout, transport=transport)

    def __enter__(self) -> Desk:
        return self

    def __exit__(self, t: type[BaseException] | None, e: BaseException | None, tb: TracebackType | None) -> None:
        self.close()

    def close(self) -> None:
        """Closes the desk's connections."""
        self._http.close()

    def _run(self, call: Call[T]) -> T:
        return self._answer(call, self._http.request(call.method, call.path, **self._request(call)))

    def info(self) -> models.Desk:
        """The desk as the token sees it: its head, and the token's participant (``as_``)."""
        return _calls.desk_of(self.name, self._run(_calls.list_desks()))

    def whoami(self) -> models.Author:
        """The token's participant: the author of its posts, the viewer of its reads. It never
        changes, so the first answer is kept and later calls make no request."""
        if self._me is None:
            self._me = self.info().as_
        return self._me

    def view(
        self,
        *,
        thread: int | None = None,
        before: int | None = None,
        window: int | None = None,
        as_: str | None = None,
    ) -> models.Projection:
        """The channel, or a thread, as the participant sees it: the newest ``window``
        messages below ``before``, oldest first, with elisions for rows it may not read.
        ``as_`` (operator tokens only) reads as another participant."""
        return self._run(_calls.view(self.name, thread, before, window, as_))

    def post(
        self,
        content: str,
        *,
        parent: int | None = None,
        audience: AudienceLike | None = None,
        key: str | None = None,
    ) -> models.Message:
        """Appends a message by the participant and returns the stored row: a reply in
        ``parent``'s thread, an aside for ``audience`` (a reply to an aside is one), and with
        ``key`` idempotent (a key already stored answers the stored row)."""
        return self._run(_calls.post(self.name, content, parent, audience, key))

    def delta(
        self,
        state: StateLike,
        *,
        conversation: int | None = None,
        before: int | None = None,
        as_: str | None = None,
    ) -> Delta | Reinitialize:
        """What the participant has not seen since ``state`` in ``conversation`` (a
        thread's root; None: the channel), or why the state cannot say."""
        return self._run(_calls.delta(self.name, state, conversation, before, as_))

    def threads(
        self, *, before: int | None = None, limit: int | None = None, as_: str | None = None
    ) -> models.ThreadList:
        """The newest threads the participant can read, below ``before``."""
        return self._run(_calls.threads(self.name, before, limit, as_))

    def edit(self, seq: int, content: str, *, key: str | None = None) -> models.Message:
        """Gives row seq, the participant's own, new content; returns the correction row."""
        return self._run(_calls.edit(self.name, seq, content, key))

    def redact(self, seq: int, *, key: str | None = None) -> models.Message:
        """Erases row seq's content for good (its author or the operator); returns the
        correction row."""
        return self._run(_calls.redact(self.name, seq, key))

    def search(
        self,
        words: str,
        *,
        thread: int | None = None,
        before: int | None = None,
        limit: int | None = None,
        as_: str | None = None,
    ) -> models.SearchAnswer:
        """The newest messages holding every word, among those the participant may read,
        newest first; ``next`` is the ``before`` of the next page (0: none)."""
        return self._run(_calls.search(self.name, words, thread, before, limit, as_))

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
        server, waiting out Retry-After. It ends after a reinitialize event; ``close()`` (or
        leaving a ``with contextlib.closing(...)`` block) ends it and its connection at
        once. A 401, 403 or 404 raises ProblemError; an answer that is not an event stream
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
        timeout: float = DEFAULT_TIMEOUT,
        transport: httpx.AsyncBaseTransport | None = None,
    ) -> None:
        super().__init__(url, token, desk)
        self._http = httpx.AsyncClient(base_url=self.url, headers=self._headers(), timeout=timeout, transport=transport)

    async def __aenter__(self) -> AsyncDesk:
        return self

    async def __aexit__(self, t: type[BaseException] | None, e: BaseException | None, tb: TracebackType | None) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        """Closes the desk's connections."""
        await self._http.aclose()

    async def _run(self, call: Call[T]) -> T:
        return self._answer(call, await self._http.request(call.method, call.path, **self._request(call)))

    async def info(self) -> models.Desk:
        """Desk.info."""
        return _calls.desk_of(self.name, await self._run(_calls.list_desks()))

    async def whoami(self) -> models.Author:
        """Desk.whoami."""
        if self._me is None:
            self._me = (await self.info()).as_
        return self._me

    async def view(
        self,
        *,
        thread: int | None = None,
        before: int | None = None,
        window: int | None = None,
        as_: str | None = None,
    ) -> models.Projection:
        """Desk.view."""
        return await self._run(_calls.view(self.name, thread, before, window, as_))

    async def post(
        self,
        content: str,
        *,
        parent: int | None = None,
        audience: AudienceLike | None = None,
        key: str | None = None,
    ) -> models.Message:
        """Desk.post."""
        return await self._run(_calls.post(self.name, content, parent, audience, key))

    async def delta(
        self,
        state: StateLike,
        *,
        conversation: int | None = None,
        before: int | None = None,
        as_: str | None = None,
    ) -> Delta | Reinitialize:
        """Desk.delta."""
        return await self._run(_calls.delta(self.name, state, conversation, before, as_))

    async def threads(
        self, *, before: int | None = None, limit: int | None = None, as_: str | None = None
    ) -> models.ThreadList:
        """Desk.threads."""
        return await self._run(_calls.threads(self.name, before, limit, as_))

    async def edit(self, seq: int, content: str, *, key: str | None = None) -> models.Message:
        """Desk.edit."""
        return await self._run(_calls.edit(self.name, seq, content, key))

    async def redact(self, seq: int, *, key: str | None = None) -> models.Message:
        """Desk.redact."""
        return await self._run(_calls.redact(self.name, seq, key))

    async def search(
        self,
        words: str,
        *,
        thread: int | None = None,
        before: int | None = None,
        limit: int | None = None,
        as_: str | None = None,
    ) -> models.SearchAnswer:
        """Desk.search."""
        return await self._run(_calls.search(self.name, words, thread, before, limit, as_))

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
