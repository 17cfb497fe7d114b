"""The events iterators: each event once and in order through a kill -9 and a restart,
never the participant's own rows; Retry-After waited out; the ends of a stream."""

from __future__ import annotations

import asyncio
import http.server
import threading
import time
from collections.abc import Callable, Generator

import httpx
import pytest

from sharedesk_transcript import AsyncDesk, Desk, Event, ProblemError
from sharedesk_transcript._errors import usable_retry_after
from sharedesk_transcript._events import FIRST_BACKOFF, MAX_BACKOFF, Resumption
from sharedesk_transcript.types import MessageEvent

from .conftest import Fixture, desk_fixture
from .fake import fake, one_event, problem
from .server import transcript

DEADLINE = 60.0


def collect_in_thread(events: Generator[Event, None, None], want: int, out: list[Event]) -> threading.Thread:
    """Iterates events in a thread until want events arrived, then closes the stream."""

    def run() -> None:
        for ev in events:
            out.append(ev)
            if len(out) >= want:
                break
        events.close()

    t = threading.Thread(target=run, daemon=True)
    t.start()
    return t


def wait_until(what: str, done: Callable[[], bool]) -> None:
    deadline = time.monotonic() + DEADLINE
    while not done():
        if time.monotonic() > deadline:
            raise AssertionError(f"{what}: not within {DEADLINE} s")
        time.sleep(0.05)


def outage(fx: Fixture, appended: list[str]) -> None:
    """Kills the server, appends rows by another process meanwhile, and restarts it."""
    fx.server.kill()
    for text in appended:
        transcript("append", "--db", fx.server.db, "--desk", "eng", "--create", "--as", "person:ana:Ana", text)
    fx.server.restart()


def check(received: list[Event], want: list[str]) -> None:
    ids = [ev.id for ev in received]
    assert ids == sorted(set(ids)), f"each event once, in order: {ids}"
    assert all(isinstance(ev, MessageEvent) for ev in received)
    assert [ev.data.content for ev in received if isinstance(ev, MessageEvent)] == want
    assert all(ev.data.author.id != "triage" for ev in received if isinstance(ev, MessageEvent)), "no own rows"


def test_events_resume_through_a_kill_and_a_restart(fx: Fixture) -> None:
    ana, triage = fx.desk("ana"), fx.desk("triage")
    ana.post("before the stream")
    received: list[Event] = []
    want = ["one", "two", "three (in the outage)", "four (in the outage)", "five", "six"]
    worker = collect_in_thread(triage.events(read_timeout=10), len(want), received)
    time.sleep(0.5)  # the stream starts at the head: "before the stream" is not news
    ana.post("one")
    triage.post("my own words")
    ana.post("two")
    wait_until("the first two events", lambda: len(received) >= 2)
    outage(fx, want[2:4])
    ana.post("five")
    triage.post("my own words again")
    ana.post("six")
    worker.join(DEADLINE)
    assert not worker.is_alive(), f"the stream stalled after {len(received)} events"
    check(received, want)


async def test_async_events_resume_through_a_kill_and_a_restart(fx: Fixture) -> None:
    ana, triage = fx.desk("ana"), fx.async_desk("triage")
    start = ana.post("before the stream").seq
    received: list[Event] = []
    want = ["one", "two", "three (in the outage)", "five"]

    async def run() -> None:
        async for ev in triage.events(after=start, read_timeout=10):
            received.append(ev)
            if len(received) >= len(want):
                return

    task = asyncio.create_task(run())
    ana.post("one")
    await triage.post("my own words")
    ana.post("two")
    deadline = time.monotonic() + DEADLINE
    while len(received) < 2:
        assert time.monotonic() < deadline and not task.done(), f"the first two events: {received}"
        await asyncio.sleep(0.05)
    await asyncio.to_thread(outage, fx, want[2:3])
    ana.post("five")
    await asyncio.wait_for(task, DEADLINE)
    check(received, want)
    await triage.aclose()


def test_events_from_after_in_a_thread_with_corrections_and_elisions(fx: Fixture) -> None:
    ana, triage = fx.desk("ana"), fx.desk("triage")
    root = ana.post("Deploy is red")
    ana.post("just me and review", audience=["agent:review"])
    reply = ana.post("in the thread", parent=root.seq)
    ana.edit(reply.seq, "in the thread, edited")
    stream = triage.events(thread=root.seq, after=0, read_timeout=10)
    got = [next(stream) for _ in range(3)]
    stream.close()
    assert [ev.type for ev in got] == ["message", "message", "correction"]
    assert got[2].data.corrects == reply.seq  # type: ignore[union-attr]
    channel = triage.events(after=0, read_timeout=10)
    kinds = [next(channel).type for _ in range(2)]
    channel.close()
    assert kinds == ["message", "elided"], "an aside it may not read is an elision, not its content"


def test_a_full_server_503_is_waited_out_as_retry_after_asks() -> None:
    fx = desk_fixture(["--rate", "inf", "--max-total-streams", "1"])
    try:
        attempts: list[int] = []
        first = fx.desk("review").events(read_timeout=10)
        holder: list[Event] = []
        t1 = collect_in_thread(first, 1, holder)
        time.sleep(0.5)
        second = Desk(fx.server.url, token=fx.secrets["triage"], desk="eng")
        second._http.event_hooks["response"] = [
            lambda r: attempts.append(r.status_code) if r.url.path.endswith("/events") else None
        ]
        got: list[Event] = []
        t2 = collect_in_thread(second.events(after=0, read_timeout=10), 1, got)
        wait_until("a 503 for the second stream", lambda: 503 in attempts)
        fx.desk("ana").post("ends the first stream")
        t1.join(DEADLINE)
        t2.join(DEADLINE)
        assert not t2.is_alive(), f"the second stream never got its event: {attempts}"
        assert attempts[0] == 503 and attempts[-1] == 200, attempts
        assert len(attempts) <= 4, f"waited as Retry-After asks, not in a tight loop: {attempts}"
        assert [ev.data.content for ev in got if isinstance(ev, MessageEvent)] == ["ends the first stream"]
    finally:
        fx.server.stop()


@pytest.mark.parametrize("who,desk_name,status", [("bad", "eng", 401), ("triage", "other", 404)])
async def test_events_raise_for_what_retrying_cannot_heal(fx: Fixture, who: str, desk_name: str, status: int) -> None:
    secret = "not-a-token" if who == "bad" else fx.secrets[who]
    sync = Desk(fx.server.url, token=secret, desk=desk_name)
    with pytest.raises(ProblemError) as caught:
        next(iter(sync.events(after=0)))
    assert caught.value.status == status
    adesk = AsyncDesk(fx.server.url, token=secret, desk=desk_name)
    with pytest.raises(ProblemError) as acaught:
        await anext(aiter(adesk.events(after=0)))
    assert acaught.value.status == status
    await adesk.aclose()


def test_a_403_as_another_participant_raises(fx: Fixture) -> None:
    with pytest.raises(ProblemError) as caught:
        next(iter(fx.desk("triage").events(after=0, as_="person:ana")))
    assert caught.value.status == 403


async def test_a_stream_ends_after_reinitialize(fx: Fixture) -> None:
    """A stream from a position the service cannot go on from: the reinitialize event, then the end."""
    ana = fx.desk("ana")
    head = ana.post("one").seq
    seen: list[Event] = []
    async with AsyncDesk(fx.server.url, token=fx.secrets["triage"], desk="eng") as triage:
        async for ev in triage.events(after=head + 1000, read_timeout=10):
            seen.append(ev)
    assert [ev.type for ev in seen] == ["reinitialize"], seen


def test_transport_errors_do_not_escape(fx: Fixture) -> None:
    """A server that is down when the stream first connects: the iterator waits for it."""
    fx.server.kill()
    received: list[Event] = []
    triage = Desk(fx.server.url, token=fx.secrets["triage"], desk="eng")
    worker = collect_in_thread(triage.events(after=0, read_timeout=10), 1, received)
    time.sleep(1)
    assert worker.is_alive() and not received
    fx.server.restart()
    httpx.post(
        fx.server.url + "/v1/desks/eng/messages",
        json={"content": "back"},
        headers={"Authorization": "Bearer " + fx.secrets["ana"]},
    ).raise_for_status()
    worker.join(DEADLINE)
    assert [ev.data.content for ev in received if isinstance(ev, MessageEvent)] == ["back"]


def test_a_retry_after_of_0_or_over_a_minute_is_no_wait() -> None:
    """A Retry-After of 0 (or a date past) or of over a minute is not waited out: the backoff
    decides, for a stream's reconnection as for a request's retry, so that a server saying
    0 never gets connections back to back."""
    assert usable_retry_after(2.0) == 2.0 and usable_retry_after(60.0) == 60.0
    for seconds in (0.0, 60.5, None):
        assert usable_retry_after(seconds) is None, seconds
    r = Resumption(what="events", url="http://127.0.0.1/", params={}, token="t", read_timeout=1.0)
    assert r.wait(2.0) == 2.0
    waits = [r.wait(0.0), r.wait(3600.0)]
    assert all(FIRST_BACKOFF / 2 <= w <= MAX_BACKOFF for w in waits), waits


@pytest.mark.parametrize("status", [408, 429, 503])
async def test_a_refusal_that_waiting_heals_is_reconnected(status: int) -> None:
    """A 408, like a 429 or a 5xx, is waited out and the stream reconnected; the other
    refusals raise."""
    streams: list[str] = []

    def handle(h: http.server.BaseHTTPRequestHandler) -> None:
        streams.append(h.headers.get("Last-Event-ID", ""))
        if len(streams) % 2 == 1:
            problem(h, status, "refused once")
        else:
            one_event(h, 4, "after the refusal")

    with fake(handle) as url:
        sync = Desk(url, token="t", desk="eng")
        events = sync.events(after=3)
        first = next(events)
        events.close()
        assert isinstance(first, MessageEvent) and first.id == 4 and first.data.content == "after the refusal"
        async with AsyncDesk(url, token="t", desk="eng") as adesk:
            aevents = adesk.events(after=3)
            afirst = await anext(aevents)
            await aevents.aclose()
        assert isinstance(afirst, MessageEvent) and afirst.id == 4
    assert streams == ["3"] * 4, "each reconnection resumes from the same place"


@pytest.mark.parametrize("status", [400, 409, 410])
async def test_a_refusal_that_waiting_cannot_heal_raises(status: int) -> None:
    asked: list[int] = []

    def handle(h: http.server.BaseHTTPRequestHandler) -> None:
        asked.append(status)
        problem(h, status, "refused")

    with fake(handle) as url:
        with pytest.raises(ProblemError) as caught:
            next(Desk(url, token="t", desk="eng").events(after=3))
        assert caught.value.status == status
        async with AsyncDesk(url, token="t", desk="eng") as adesk:
            with pytest.raises(ProblemError):
                await anext(adesk.events(after=3))
    assert len(asked) == 2, "each stream asked once"
