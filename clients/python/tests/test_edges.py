"""What a misbehaving answer does: a 200 that is no event stream, or no JSON, a body that
trickles in past the timeout; Retry-After's forms."""

from __future__ import annotations

import email.utils
import http.server
import json
import time

import httpx
import pytest
from httpx_sse import SSEError

from sharedesk_transcript import APIConnectionError, APITimeoutError, AsyncDesk, Desk
from sharedesk_transcript._errors import retry_after_seconds

from .calls import both, call
from .fake import fake, send

EMPTY_VIEW = json.dumps({"head": 0, "messages": [], "partial": False, "reads": 0, "scanned": 0}).encode()


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


BROKEN_SUCCESSES: dict[str, tuple[bytes, dict[str, str]]] = {
    "not JSON": (b"<html>captive portal</html>", {"Content-Type": "text/html"}),
    "empty": (b"", {"Content-Type": "application/json"}),
    "bad gzip": (b"this is not gzip at all", {"Content-Type": "application/json", "Content-Encoding": "gzip"}),
    "null": (b"null", {"Content-Type": "application/json"}),
    "an array": (b"[]", {"Content-Type": "application/json"}),
    "no fields": (b"{}", {"Content-Type": "application/json"}),
}


@both
@pytest.mark.parametrize("broken", list(BROKEN_SUCCESSES))
async def test_a_success_whose_body_cannot_be_read_is_an_api_connection_error(kind: str, broken: str) -> None:
    """A 200 whose body is not JSON, is empty, cannot be decoded or is JSON of another shape
    than the answer's is an APIConnectionError, retried as a request that got no answer is."""
    asked: list[str] = []

    def answer(request: httpx.Request) -> httpx.Response:
        asked.append(request.url.path)
        body, headers = BROKEN_SUCCESSES[broken]
        return httpx.Response(200, headers=headers, stream=httpx.ByteStream(body))

    transport = httpx.MockTransport(answer)
    client = httpx.Client(transport=transport) if kind == "sync" else httpx.AsyncClient(transport=transport)
    cls = Desk if kind == "sync" else AsyncDesk
    d = cls("http://desk.test", token="t", desk="eng", max_retries=1, http_client=client)  # type: ignore[arg-type]
    with pytest.raises(APIConnectionError) as caught:
        await call(d.view())
    assert not isinstance(caught.value, APITimeoutError)
    assert "view on desk eng" in str(caught.value)
    assert len(asked) == 2, "retried once, as max_retries says"


@both
async def test_timeout_bounds_the_attempt_however_slowly_its_body_comes(kind: str) -> None:
    """httpx's timeout bounds each socket operation; the desk's bounds the whole attempt."""

    def trickle(h: http.server.BaseHTTPRequestHandler) -> None:
        h.send_response(200)
        h.send_header("Content-Type", "application/json")
        h.send_header("Content-Length", str(len(EMPTY_VIEW)))
        h.end_headers()
        try:
            for b in EMPTY_VIEW:
                h.wfile.write(bytes([b]))
                h.wfile.flush()
                time.sleep(0.1)
        except OSError:
            pass  # the client gave up

    cls = Desk if kind == "sync" else AsyncDesk
    with fake(trickle) as url:
        d = cls(url, token="t", desk="eng", max_retries=0, timeout=0.5)
        with pytest.raises(APITimeoutError):
            await call(d.view())
        with pytest.raises(APITimeoutError):
            await call(cls(url, token="t", desk="eng", max_retries=0).view(timeout=0.5))


@both
async def test_an_infinite_timeout_bounds_nothing(kind: str) -> None:
    def quick(h: http.server.BaseHTTPRequestHandler) -> None:
        send(h, 200, EMPTY_VIEW, "application/json")

    cls = Desk if kind == "sync" else AsyncDesk
    with fake(quick) as url:
        assert (await call(cls(url, token="t", desk="eng", timeout=float("inf")).view())).head == 0
        assert (await call(cls(url, token="t", desk="eng").view(timeout=float("inf")))).head == 0
        assert (await call(cls(url, token="t", desk="eng", timeout=None).view())).head == 0
