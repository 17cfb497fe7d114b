"""Every method of Desk and AsyncDesk against a real transcript serve, and every problem."""

from __future__ import annotations

import functools

import httpx

from sharedesk_transcript import (
    APIConnectionError,
    APITimeoutError,
    AsyncDesk,
    Delta,
    Desk,
    ProblemError,
    RateLimitError,
    Reinitialize,
    token_id,
)
from sharedesk_transcript.models import Author
from sharedesk_transcript.turn import note_present

from .calls import both, call, desk, refused
from .conftest import Fixture, desk_fixture

TRIAGE = Author(type="agent", id="triage", label="Triage")
ANA = Author(type="person", id="ana", label="Ana")


@both
async def test_whoami_and_info(fx: Fixture, kind: str) -> None:
    triage = desk(fx, kind, "triage")
    assert await call(triage.whoami()) == TRIAGE
    info = await call(triage.info())
    assert info.name == "eng" and info.head == 0 and info.as_ == TRIAGE
    assert triage.token_id == token_id(fx.secrets["triage"]) and triage.token_id.startswith("tok_")
    assert fx.secrets["triage"] not in repr(triage)
    try:
        await call(desk(fx, kind, "triage", "other").whoami())
        raise AssertionError("a desk the token is not for")
    except ValueError as err:
        assert "the token is not for desk other" in str(err)


async def test_whoami_asks_once_and_keeps_no_failure(fx: Fixture) -> None:
    requests: list[str] = []

    def count(request: httpx.Request) -> None:
        requests.append(request.url.path)

    kept = Desk(fx.server.url, token=fx.secrets["triage"], desk="eng")
    kept._http.event_hooks["request"] = [count]
    kept.whoami()
    kept.whoami()
    assert requests == ["/v1/desks"], "the participant is asked for once"
    bad = AsyncDesk(fx.server.url, token="not-a-token", desk="eng")

    async def acount(request: httpx.Request) -> None:
        requests.append(request.url.path)

    bad._http.event_hooks["request"] = [acount]
    for _ in range(2):
        try:
            await bad.whoami()
            raise AssertionError("a bad token")
        except ProblemError as err:
            assert err.status == 401
    assert len(requests) == 3, "a failed answer is not kept"
    await bad.aclose()


@both
async def test_post_view_threads_edit_redact_search(fx: Fixture, kind: str) -> None:
    ana, triage = desk(fx, kind, "ana"), desk(fx, kind, "triage")
    root = await call(ana.post("Deploy #41 is red: the migration hangs."))
    assert root.content == "Deploy #41 is red: the migration hangs." and root.author == ANA
    reply = await call(triage.post("Looking at the migration lock.", parent=root.seq, key="k1"))
    assert reply.parent == root.seq and reply.author == TRIAGE
    again = await call(triage.post("Looking at the migration lock.", parent=root.seq, key="k1"))
    assert again.seq == reply.seq, "a replayed key answers the stored row"

    view = await call(triage.view(thread=root.seq))
    assert [m.seq for m in view.messages or []] == [root.seq, reply.seq] and view.head == reply.seq
    channel = await call(ana.view(window=1))
    assert len(channel.messages or []) == 1
    old = await call(ana.view(before=reply.seq))
    assert [m.seq for m in old.messages or []] == [root.seq]

    threads = await call(ana.threads(limit=5))
    assert [(t.root.seq, t.replies) for t in threads.threads or []] == [(root.seq, 1)]
    assert (await call(ana.threads(before=root.seq))).threads in (None, [])

    edit = await call(triage.edit(reply.seq, "Looking at the migration's lock on orders.", key="e1"))
    assert edit.corrects == reply.seq and edit.author == TRIAGE
    hits = await call(ana.search("orders lock"))
    assert [m.seq for m in hits.messages or []] == [reply.seq] and hits.next == 0
    assert (hits.messages or [])[0].content == "Looking at the migration's lock on orders."
    in_thread = await call(ana.search("migration", thread=root.seq, limit=1))
    assert len(in_thread.messages or []) == 1 and in_thread.next > 0, "a full page names the bound of older hits"
    older = await call(ana.search("migration", thread=root.seq, before=in_thread.next))
    assert [m.seq for m in older.messages or []] == [root.seq]

    redaction = await call(ana.redact(root.seq, key="r1"))
    assert redaction.corrects == root.seq and redaction.redacted
    after = await call(triage.view(thread=root.seq))
    first = (after.messages or [])[0]
    assert first.redacted and first.content == ""
    assert (await call(ana.search("deploy red"))).messages in (None, []), "a redacted row is found by nothing"

    op = desk(fx, kind, "operator")
    as_ana = await call(op.view(as_="person:ana", thread=root.seq))
    assert [m.seq for m in as_ana.messages or []] == [root.seq, reply.seq]
    assert (await call(op.threads(as_="person:ana"))).threads
    assert (await call(op.search("orders", as_="agent:triage"))).messages


@both
async def test_an_aside_is_read_by_its_readers_only(fx: Fixture, kind: str) -> None:
    op = desk(fx, kind, "operator")
    aside = await call(op.post("Hold the spend alerts until Monday.", audience=["agent:triage"]))
    assert aside.audience == [Author(type="agent", id="triage")]
    seen = await call(desk(fx, kind, "triage").view())
    assert aside.seq in [m.seq for m in seen.messages or []]
    review = desk(fx, kind, "review")
    other = await call(review.view())
    assert aside.seq not in [m.seq for m in other.messages or []]
    assert any(e.from_ <= aside.seq <= e.through for e in other.elided or [])
    assert "spend" not in other.model_dump_json()
    assert (await call(review.search("spend alerts"))).messages in (None, [])
    by_model = await call(op.post("And the budget too.", audience=[Author(type="agent", id="triage")]))
    assert by_model.audience == [Author(type="agent", id="triage")]


@both
async def test_delta_news_then_nothing_then_reinitialization(fx: Fixture, kind: str) -> None:
    review = desk(fx, kind, "review")
    first = await call(review.delta({"conversation": {"desk": "eng"}, "watermark": 0, "present": []}))
    assert isinstance(first, Delta) and first.remaining == 0
    quiet = await call(review.delta(first.next))
    assert isinstance(quiet, Delta) and not quiet.messages
    posted = await call(desk(fx, kind, "ana").post("The migration runs at 22:00."))
    news = await call(review.delta(first.next))
    assert isinstance(news, Delta) and [m.seq for m in news.messages or []] == [posted.seq]
    assert (await call(review.delta(news.next, before=posted.seq))).messages in (None, [])
    edited = await call(desk(fx, kind, "ana").edit(posted.seq, "The migration runs at 23:00."))
    corrected = await call(review.delta(news.next))
    assert isinstance(corrected, Delta) and [c.seq for c in corrected.corrections or []] == [edited.seq]
    changed = await call(review.delta(news.next, conversation=posted.seq))
    assert isinstance(changed, Reinitialize) and changed.reason == "conversation_changed"
    assert changed.conversation is not None and changed.conversation.thread == posted.seq
    as_review = await call(desk(fx, kind, "operator").delta(first.next, as_="agent:review"))
    assert isinstance(as_review, Delta) and [m.seq for m in as_review.messages or []] == [posted.seq]


@both
async def test_a_state_belongs_to_the_participant_it_was_read_for(fx: Fixture, kind: str) -> None:
    review = desk(fx, kind, "review")
    first = await call(review.delta({"conversation": {"desk": "eng"}, "watermark": 0, "present": []}))
    assert isinstance(first, Delta) and first.next.viewer == Author(type="agent", id="review")
    reply = await call(review.post("Reviewing now."))
    reviews = note_present(first.next, reply.seq)
    news = await call(desk(fx, kind, "ana").post("Thanks."))
    other = await call(desk(fx, kind, "triage").delta(reviews))
    assert isinstance(other, Reinitialize) and other.reason == "conversation_changed"
    assert other.state_viewer == Author(type="agent", id="review") and other.conversation is None
    own = await call(review.delta(reviews))
    assert isinstance(own, Delta) and [m.seq for m in own.messages or []] == [news.seq]


@both
async def test_every_problem_the_client_can_meet(fx: Fixture, kind: str) -> None:
    triage = desk(fx, kind, "triage")
    await refused(fx, lambda: triage.view(window=-1), 400)
    await refused(fx, lambda: triage.search("  ,, "), 400)
    await refused(fx, lambda: triage.delta({"conversation": {"desk": "eng"}, "watermark": -1}), 400)
    await refused(fx, lambda: desk_of(fx, kind, "not-a-token").view(), 401)
    await refused(fx, lambda: triage.view(as_="person:ana"), 403)
    await refused(fx, lambda: triage.view(thread=999_999), 404)
    await refused(fx, lambda: desk(fx, kind, "triage", "other").view(), 404)
    anas = await call(desk(fx, kind, "ana").post("Ana's own words."))
    await refused(fx, lambda: triage.redact(anas.seq), 403)
    await refused(fx, lambda: triage.edit(anas.seq, "not mine"), 403)
    row = await call(triage.post("keyed", key="k-conflict"))
    await refused(fx, lambda: triage.post("another", key="k-conflict"), 409, "key-conflict")
    await call(triage.redact(row.seq))
    await refused(fx, lambda: triage.edit(row.seq, "too late"), 409)
    await refused(fx, lambda: triage.post("x" * (2 << 20)), 413)
    await refused(fx, lambda: triage.post("to nobody", audience=[]), 400)
    await refused(fx, lambda: triage.post("to a stranger", audience=["robot:x"]), 400)


@both
async def test_blank_content_is_refused(fx: Fixture, kind: str) -> None:
    triage = desk(fx, kind, "triage")
    for content in ["", "   ", "\n\t "]:
        err = await refused(fx, functools.partial(triage.post, content), 400, ":blank")
        assert err.type.endswith(":blank") and "blank" in err.detail, err
        for name in ("sqlitestore", "pgstore", "posting:", "transcript:"):
            assert name not in err.detail, err.detail
    root = await call(triage.post("a root to reply to"))
    await refused(fx, lambda: triage.post("  ", parent=root.seq), 400, ":blank")
    await refused(fx, lambda: triage.edit(root.seq, " "), 400, ":blank")
    assert (await call(triage.info())).head == root.seq, "the refused posts stored nothing"


def desk_of(fx: Fixture, kind: str, secret: str) -> Desk | AsyncDesk:
    cls = Desk if kind == "sync" else AsyncDesk
    return cls(fx.server.url, token=secret, desk="eng")


@both
async def test_429_with_retry_after_past_the_rate(kind: str) -> None:
    limited = desk_fixture(["--rate", "0.5", "--burst", "1"])
    try:
        cls = Desk if kind == "sync" else AsyncDesk
        d = cls(limited.server.url, token=limited.secrets["triage"], desk="eng", max_retries=0)
        await call(d.view())
        err = await refused(limited, lambda: d.view(), 429)
        assert isinstance(err, RateLimitError), "a 429 is a RateLimitError"
        assert (err.retry_after or 0) >= 1, "Retry-After is read"
        patient = cls(limited.server.url, token=limited.secrets["triage"], desk="eng")
        assert (await call(patient.view())).head == 0, "a read retried after the Retry-After is answered"
    finally:
        limited.server.stop()


async def test_unreachable_is_an_api_connection_error() -> None:
    d = AsyncDesk("http://127.0.0.1:9", token="t", desk="eng", timeout=5, max_retries=0)
    try:
        await d.view()
        raise AssertionError("nothing listens on port 9")
    except APIConnectionError as err:
        assert not isinstance(err, APITimeoutError)
        assert isinstance(err.__cause__, httpx.TransportError)
        assert "Bearer" not in str(err) and "view on desk eng" in str(err)
    finally:
        await d.aclose()


@both
async def test_an_empty_or_malformed_token_is_refused_at_construction(kind: str) -> None:
    cls = Desk if kind == "sync" else AsyncDesk
    for bad in ["", " ", "trs_abc def", "trs_\n", "trs_é"]:
        try:
            cls("http://127.0.0.1:9", token=bad, desk="eng")
            raise AssertionError(f"token {bad!r} was taken")
        except ValueError as err:
            assert "token" in str(err) and (not bad.strip() or bad.strip() not in str(err))
