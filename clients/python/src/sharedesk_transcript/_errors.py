"""ProblemError: a problem answer of the service, raised."""

from __future__ import annotations

import email.utils
import json
import re
import time
from datetime import timezone
from typing import Any

import httpx


class ProblemError(Exception):
    """A problem answer of the service (application/problem+json): its type, status, title
    and detail, and ``retry_after`` in seconds when the service sent Retry-After. Its message
    names the request and the problem, never the token."""

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
        self.type = type
        self.status = status
        self.title = title
        self.detail = detail
        self.retry_after = retry_after

    @classmethod
    def from_response(cls, request: str, response: httpx.Response) -> ProblemError:
        """The problem a refused answer holds; a body that is no problem keeps its status."""
        try:
            body: Any = json.loads(response.content)
        except ValueError:
            body = None
        p: dict[str, Any] = body if isinstance(body, dict) else {}

        def text(key: str) -> str | None:
            v = p.get(key)
            return v if isinstance(v, str) else None

        status = p.get("status")
        return cls(
            request,
            status=status if isinstance(status, int) else response.status_code,
            type=text("type") or "about:blank",
            title=text("title") or response.reason_phrase,
            detail=text("detail") or "",
            retry_after=retry_after_seconds(response.headers.get("Retry-After")),
        )


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
