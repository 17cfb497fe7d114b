"""Errors, retries and timeouts against a real transcript serve behind a fault proxy that
drops connections and answers, or answers 503 and 429 itself."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from sharedesk_transcript import (
    APIConnectionError,
    APITimeoutError,
    AsyncDesk,
    Desk,
    InternalServerError,
    RateLimitError,
)

from .calls import both, call
from .conftest import Fixture
from .proxy import Proxy, Rule


@pytest.fixture
def proxy(fx: Fixture) -> Iterator[Proxy]:
    p = Proxy(fx.server.url)
    try:
        yield p
    finally:
        p.close()


def through(fx: Fixture, proxy: Proxy, kind: str, **kw: Any) -> Desk | AsyncDesk:
    cls = Desk if kind == "sync" else AsyncDesk
    return cls(proxy.url, token=fx.secrets["triage"], desk="eng", **kw)


def stored(fx: Fixture, content: str) -> int:
    return sum(m.content == content for m in fx.desk("operator").view(window=500).messages or [])


@both
async def test_a_keyed_post_whose_answer_was_dropped_is_retried_and_stores_one_row(
    fx: Fixture, proxy: Proxy, kind: str
) -> None:
    proxy.plan(Rule("POST", "/messages", "drop-answer"))
    row = await call(through(fx, proxy, kind).post("keyed across a drop", key="k-drop"))
    assert row.content == "keyed across a drop"
    assert proxy.seen == ["POST /v1/desks/eng/messages"] * 2, "sent twice"
    assert stored(fx, "keyed across a drop") == 1, "stored once"


@both
async def test_a_post_without_a_key_is_never_retried(fx: Fixture, proxy: Proxy, kind: str) -> None:
    proxy.plan(Rule("POST", "/messages", "drop-answer"))
    with pytest.raises(APIConnectionError) as caught:
        await call(through(fx, proxy, kind).post("unkeyed across a drop"))
    assert not isinstance(caught.value, APITimeoutError)
    assert fx.secrets["triage"] not in str(caught.value)
    assert proxy.seen == ["POST /v1/desks/eng/messages"], "sent once"
    assert stored(fx, "unkeyed across a drop") == 1, "the server stored it, once"
    proxy.plan(Rule("POST", "/messages", "status", status=429, retry_after=0))
    with pytest.raises(RateLimitError):
        await call(through(fx, proxy, kind).post("unkeyed and limited"))
    assert len(proxy.seen) == 1, "a 429 to an unkeyed post is not retried"


@both
async def test_a_write_with_an_empty_key_sends_no_key_and_is_never_retried(
    fx: Fixture, proxy: Proxy, kind: str
) -> None:
    """The service takes an empty key as none: such a write is a write without a key."""
    bodies: list[bytes] = []

    def keep(request: httpx.Request) -> None:
        bodies.append(request.content)

    async def akeep(request: httpx.Request) -> None:
        keep(request)

    d = through(fx, proxy, kind)
    d._http.event_hooks["request"] = [keep if kind == "sync" else akeep]
    proxy.plan(Rule("POST", "/messages", "drop-answer"))
    with pytest.raises(APIConnectionError):
        await call(d.post("empty key across a drop", key=""))
    assert proxy.seen == ["POST /v1/desks/eng/messages"], "sent once"
    assert stored(fx, "empty key across a drop") == 1, "stored once"
    row = await call(d.post("empty key, answered", key=""))
    proxy.plan(
        Rule("PATCH", f"/messages/{row.seq}", "status", status=503, retry_after=0),
        Rule("DELETE", f"/messages/{row.seq}", "status", status=503, retry_after=0),
    )
    with pytest.raises(InternalServerError):
        await call(d.edit(row.seq, "edited", key=""))
    with pytest.raises(InternalServerError):
        await call(d.redact(row.seq, key=""))
    assert len(proxy.seen) == 2, "the edit and the redaction, each sent once"
    assert [json.loads(b or b"{}").get("key") for b in bodies] == [None] * 4, "no key in any body"


@both
async def test_reads_are_retried_after_a_dropped_connection_and_a_503(fx: Fixture, proxy: Proxy, kind: str) -> None:
    proxy.plan(Rule("GET", "/view", "drop-request"), Rule("GET", "/view", "status", status=503, retry_after=0))
    await call(through(fx, proxy, kind).view())
    assert len(proxy.seen) == 3, "two failures, then the answer"

    proxy.plan(Rule("GET", "/view", "status", times=5, status=503, retry_after=0))
    with pytest.raises(InternalServerError) as caught:
        await call(through(fx, proxy, kind, max_retries=1).view())
    assert caught.value.status == 503 and len(proxy.seen) == 2, "max_retries 1: two tries"

    proxy.plan(Rule("GET", "/view", "drop-request", times=5))
    with pytest.raises(APIConnectionError):
        await call(through(fx, proxy, kind).view(max_retries=0))
    assert len(proxy.seen) == 1, "a call's max_retries wins over the desk's"


@both
async def test_a_call_past_its_timeout_is_an_api_timeout_error(fx: Fixture, proxy: Proxy, kind: str) -> None:
    proxy.plan(Rule("GET", "/view", "hold", times=5, seconds=1.5))
    with pytest.raises(APITimeoutError):
        await call(through(fx, proxy, kind, max_retries=0).view(timeout=0.1))
    with pytest.raises(APITimeoutError):
        await call(through(fx, proxy, kind, max_retries=0, timeout=0.1).view())
