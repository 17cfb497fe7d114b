"""The client's errors: ProblemError and its subclass for each status, a problem answer of
the service; APIConnectionError and APITimeoutError, a request that got no answer it could
read. They are named as openai-python names its own, and survive pickling."""

from __future__ import annotations

import email.utils
import functools
import json
import re
import time
from datetime import timezone
from typing import Any

import httpx


class ProblemError(Exception):
    """A problem answer of the service (application/problem+json): its type, status, title
    and detail, and ``retry_after`` in seconds when the service sent Retry-After. Its message
    names the request and the problem, never the token. Each status the client can act on
    raises its subclass (BadRequestError, AuthenticationError, …); any other status raises a
    ProblemError itself. It survives pickling (a process pool's worker can raise it): the
    copy has the same class, attributes and message, without its ``__cause__``."""

    def __init__(
        self,
        request: str,
        *,
        status: int,
        type: str = "about:blank",
        title: str = "",
        detail: str = "",
        retry_after: float | None = None,
    ) -> None:
        message = f"{request}: {status}" + (f" {title}" if title else "") + (f": {detail}" if detail else "")
        super().__init__(message)
        self._request = request
        self.type = type
        self.status = status
        self.title = title
        self.detail = detail
        self.retry_after = retry_after

    def __reduce__(self) -> tuple[Any, ...]:
        made = functools.partial(
            type(self),
            self._request,
            status=self.status,
            type=self.type,
            title=self.title,
            detail=self.detail,
            retry_after=self.retry_after,
        )
        return made, (), self.__dict__

    @classmethod
    def from_response(cls, request: str, response: httpx.Response, content: bytes | None = None) -> ProblemError:
        """The problem a refused answer holds, its body content (None: the response's, read);
        a body that is no problem keeps its status."""
        try:
            body: Any = json.loads(response.content if content is None else content)
        except ValueError:
            body = None
        p: dict[str, Any] = body if isinstance(body, dict) else {}

        def text(key: str) -> str | None:
            v = p.get(key)
            return v if isinstance(v, str) else None

        return problem_class(response.status_code)(
            request,
            status=response.status_code,
            type=text("type") or "about:blank",
            title=text("title") or response.reason_phrase,
            detail=text("detail") or "",
            retry_after=retry_after_seconds(response.headers.get("Retry-After")),
        )


class BadRequestError(ProblemError):
    """A 400: the request is malformed (a bad parameter, blank content, an empty audience)."""


class AuthenticationError(ProblemError):
    """A 401: the token is not one the service knows."""


class PermissionDeniedError(ProblemError):
    """A 403: the participant may not do this (another's row, another viewer)."""


class NotFoundError(ProblemError):
    """A 404: no such desk, thread or row for this participant."""


class ConflictError(ProblemError):
    """A 409: the request conflicts with what is stored (a key naming another row, a redacted row)."""


class UnprocessableEntityError(ProblemError):
    """A 422: the request is well formed but cannot be done."""


class RateLimitError(ProblemError):
    """A 429: past the token's rate; ``retry_after`` says when to try again."""


class InternalServerError(ProblemError):
    """A 5xx: the service failed, or is too busy (``retry_after``, when it said)."""


_BY_STATUS: dict[int, type[ProblemError]] = {
    400: BadRequestError,
    401: AuthenticationError,
    403: PermissionDeniedError,
    404: NotFoundError,
    409: ConflictError,
    422: UnprocessableEntityError,
    429: RateLimitError,
}


def problem_class(status: int) -> type[ProblemError]:
    """The error class of an answer's status."""
    if status >= 500:
        return InternalServerError
    return _BY_STATUS.get(status, ProblemError)


class APIConnectionError(Exception):
    """A request that got no answer: the service could not be reached, or the connection
    dropped before the answer came, or the answer could not be read. Its ``__cause__`` is
    httpx's or the decoder's error. It survives pickling, without its ``__cause__``."""

    def __init__(self, request: str, message: str = "no answer from the service") -> None:
        super().__init__(f"{request}: {message}")
        self._request = request
        self._message = message

    def __reduce__(self) -> tuple[Any, ...]:
        return type(self), (self._request, self._message), self.__dict__


class APITimeoutError(APIConnectionError):
    """A request that got no answer within its timeout."""

    def __init__(self, request: str, message: str = "no answer within the timeout") -> None:
        super().__init__(request, message)


MAX_RETRY_AFTER = 60.0  # the longest Retry-After a client waits out


def usable_retry_after(seconds: float | None) -> float | None:
    """The wait a Retry-After of ``seconds`` asks for, when it is one to honour: more than
    0 s and at most a minute, as the OpenAI SDKs take it. Otherwise None, and the caller's
    backoff decides, so that a Retry-After of 0 or a date past never makes retries or
    reconnections back to back."""
    if seconds is None or not 0 < seconds <= MAX_RETRY_AFTER:
        return None
    return seconds


def retry_after_seconds(value: str | None) -> float | None:
    """A Retry-After header's wait in seconds: a number of seconds, or an HTTP date."""
    if value is None or not value.strip():
        return None
    v = value.strip()
    if re.fullmatch(r"[0-9]+", v):
        return float(v)
    try:
        at = email.utils.parsedate_to_datetime(v)
    except (TypeError, ValueError):
        return None
    if at.tzinfo is None:  # "-0000": a date in UTC whose zone is not known
        at = at.replace(tzinfo=timezone.utc)
    return max(0.0, at.timestamp() - time.time())
