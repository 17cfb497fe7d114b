"""What a misbehaving answer does: a 200 that is no event stream, Retry-After's forms."""

from __future__ import annotations

import email.utils
import time

import httpx
import pytest
from httpx_sse import SSEError

from sharedesk_transcript import AsyncDesk, Desk
from sharedesk_transcript._errors import retry_after_seconds


def html_page(request: httpx.Request) -> httpx.Response:
    if request.url.path == "/v1/desks":
        return httpx.Response(200, json={"desks": [{"name": "eng", "head": 0, "as": {"type": "operator"}}]})
    return httpx.Response(200, text="<html>sign in to the wifi</html>", headers={"Content-Type": "text/html"})


async def test_an_answer_that_is_no_event_stream_raises_rather_than_retrying() -> None:
    sync = Desk(
        "http://desk.test", token="t", desk="eng", http_client=httpx.Client(transport=httpx.MockTransport(html_page))
    )
    with pytest.raises(SSEError):
        next(sync.events())
    adesk = AsyncDesk(
        "http://desk.test",
        token="t",
        desk="eng",
        http_client=httpx.AsyncClient(transport=httpx.MockTransport(html_page)),
    )
    with pytest.raises(SSEError):
        await anext(adesk.events())
    await adesk.aclose()


def test_retry_after_forms() -> None:
    assert retry_after_seconds("5") == 5.0
    assert retry_after_seconds(" 12 ") == 12.0
    assert retry_after_seconds(None) is None and retry_after_seconds("") is None
    assert retry_after_seconds("\u00b2") is None, "a digit that is not ASCII is no number of seconds"
    assert retry_after_seconds("1.5") is None and retry_after_seconds("soon") is None
    later = email.utils.formatdate(time.time() + 30, usegmt=True)
    assert 25 <= (retry_after_seconds(later) or 0) <= 30
    unzoned = email.utils.formatdate(time.time() + 30).replace("+0000", "-0000")
    assert 25 <= (retry_after_seconds(unzoned) or 0) <= 30, "-0000 is UTC, not the host's zone"
    assert retry_after_seconds(email.utils.formatdate(time.time() - 60, usegmt=True)) == 0.0
