"""Runs every scenario of clients/conformance/ against a real transcript serve: the same
files the TypeScript client's tests run, so the two clients hold to one contract."""

from __future__ import annotations

import asyncio
import contextlib
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest

from sharedesk_transcript import AsyncDesk, Delta, Event, models
from sharedesk_transcript._memory import apost_text, aview_turns
from sharedesk_transcript.mapping import Turn, turns, with_corrections
from sharedesk_transcript.turn import News, Reply, atake_turn, initial_state

from .server import Server

SCENARIOS = Path(__file__).resolve().parents[2] / "conformance"
FILES = sorted(SCENARIOS.glob("*.json"))


def test_the_scenarios_are_there() -> None:
    assert len(FILES) >= 5, f"scenario files in {SCENARIOS}"


@dataclass
class Memory:
    """What an agent's turns told it: each row as it last heard of it, and every text it read."""

    rows: dict[int, tuple[str, bool]] = field(default_factory=dict)
    read: list[str] = field(default_factory=list)


@dataclass
class Stream:
    events: list[Event]
    task: asyncio.Task[None]


class Run:
    def __init__(self, server: Server, secrets: dict[str, str]) -> None:
        self.server = server
        self.secrets = secrets
        self.saved: dict[str, int] = {}
        self.states: dict[str, models.State] = {}
        self.memory: dict[str, Memory] = {}
        self.streams: dict[str, Stream] = {}
        self.desks: list[AsyncDesk] = []

    def ref(self, v: Any) -> int | None:
        """A step's value with every "$NAME" the seq saved under NAME."""
        if v is None:
            return None
        if isinstance(v, int):
            return v
        assert isinstance(v, str) and v.startswith("$"), f"not a seq: {v!r}"
        assert v[1:] in self.saved, f"no row saved as {v[1:]}"
        return self.saved[v[1:]]

    def refs(self, v: Any) -> list[int]:
        assert isinstance(v, list), f"a list of seqs: {v!r}"
        return [self.saved[x[1:]] if isinstance(x, str) else x for x in v]

    def desk(self, step: dict[str, Any]) -> AsyncDesk:
        secret = self.secrets.get(step["as"], "trs_not_a_token_of_this_desk")
        kw: dict[str, Any] = {}
        if "max_retries" in step:
            kw["max_retries"] = step["max_retries"]
        d = AsyncDesk(self.server.url, token=secret, desk="eng", **kw)
        self.desks.append(d)
        return d

    def save(self, step: dict[str, Any], row: models.Message | None) -> None:
        if "save" in step and row is not None:
            self.saved[step["save"]] = row.seq

    async def step(self, step: dict[str, Any]) -> None:
        e: dict[str, Any] = step.get("expect", {})
        do = step["do"]
        if do == "post":
            d = self.desk(step)
            row = None
            for n in range(1, step.get("repeat", 1) + 1):
                row = await d.post(
                    step["content"].replace("{n}", str(n)),
                    parent=self.ref(step.get("parent")),
                    audience=step.get("audience"),
                    key=step.get("key"),
                )
            self.save(step, row)
            if "seq" in e:
                assert row is not None and row.seq == self.ref(e["seq"]), "the stored row"
        elif do == "answer":
            posted = await apost_text(self.desk(step), self.ref(step.get("thread")), step["content"])
            self.save(step, posted)
            if "posted" in e:
                assert (posted is not None) == e["posted"], "whether the answer was posted"
        elif do == "edit":
            self.save(step, await self.desk(step).edit(self.ref(step["seq"]) or 0, step["content"]))
        elif do == "redact":
            self.save(step, await self.desk(step).redact(self.ref(step["seq"]) or 0))
        elif do == "view":
            view = await self.desk(step).view(
                thread=self.ref(step.get("thread")),
                window=step.get("window"),
                as_=step.get("view_as"),
                digest=step.get("digest", False),
            )
            if "messages" in e:
                assert [m.seq for m in view.messages or []] == self.refs(e["messages"]), "the view's messages"
            if "digest" in e and e["digest"] is None:
                assert view.digest is None, "the view carries no digest"
            elif "digest" in e:
                self.digest(view.digest, e["digest"])
            absent(view.model_dump_json(), e.get("absent"))
        elif do == "fold":
            self.digest(await asyncio.wait_for(self.fold(step), 30), e)
        elif do == "search":
            hits = await self.desk(step).search(step["words"])
            if "messages" in e:
                assert [m.seq for m in hits.messages or []] == self.refs(e["messages"]), "the hits"
        elif do == "delta":
            await self.delta(step, e)
        elif do == "turn":
            await self.turn(step, e)
        elif do == "holds":
            m = self.memory.setdefault(step["as"], Memory())
            for r, want in e.get("rows", {}).items():
                seq = self.ref(r)
                assert seq in m.rows, f"{step['as']} was told of {r}"
                content, redacted = m.rows[seq]
                if "redacted" in want:
                    assert redacted == want["redacted"], f"{step['as']} holds {r} redacted"
                if "content" in want:
                    assert content == want["content"], f"{step['as']} holds {r}'s content"
            absent("\n".join(m.read), e.get("never_read"), f"{step['as']} read")
        elif do == "turns":
            d = self.desk(step)
            thread = self.ref(step.get("thread"))
            got = await aview_turns(d, thread)
            want = self.service_turns(step["as"], thread)
            assert [(t.role, t.content) for t in got] == want, f"{step['as']}'s turns are what the service renders"
            self.roles(got, e.get("roles"))
            absent("\n".join(t.content for t in got), e.get("absent"))
            if "digest" in e:
                assert is_digest(got[0] if got else None) == e["digest"], "the first turn is the digest's"
        elif do == "events":
            d = self.desk(step)
            after = (await d.info()).head
            events: list[Event] = []

            async def read() -> None:
                async for ev in d.events(after=after):
                    events.append(ev)

            self.streams[step["stream"]] = Stream(events, asyncio.create_task(read()))
        elif do == "events_expect":
            s = self.streams[step["stream"]]
            want = self.refs(step["ids"])

            def ids() -> list[int]:
                return [ev.id for ev in s.events if ev.type == "message"]

            async def enough() -> None:
                while len(ids()) < len(want):
                    assert not s.task.done(), "the stream ended"
                    await asyncio.sleep(0.02)

            await asyncio.wait_for(enough(), 30)
            assert ids() == want, "each event once, in order"
        elif do == "kill":
            self.server.kill()
        elif do == "restart":
            await asyncio.to_thread(self.server.restart)
        else:
            raise AssertionError(f"unknown step {do}")

    async def delta(self, step: dict[str, Any], e: dict[str, Any]) -> None:
        name = step.get("state", step["as"])
        state = self.states.get(name, initial_state("eng"))
        d = self.desk(step)
        answer = await d.delta(state, conversation=self.ref(step.get("thread")), rendered=True)
        if not isinstance(answer, Delta):
            assert answer.reason == e.get("reinitialize"), "the delta reinitializes"
            return
        assert e.get("reinitialize") is None, "the delta reinitializes"
        if "messages" in e:
            assert [m.seq for m in answer.messages or []] == self.refs(e["messages"]), "the delta's messages"
        if "corrections" in e:
            assert [m.seq for m in answer.corrections or []] == self.refs(e["corrections"]), "the delta's corrections"
        if "turns" in e:
            rows, rendered = with_corrections(answer)
            self.roles(turns(await d.whoami(), rows, answer.elided or [], rendered), e["turns"])
        self.states[name] = answer.next

    async def turn(self, step: dict[str, Any], e: dict[str, Any]) -> None:
        who = step["as"]
        name = step.get("state", who)
        saved: list[models.State] = []
        given: list[list[Turn]] = []
        service: list[list[tuple[str, str]]] = []

        async def decide(news: News, me: models.Author) -> Reply | None:
            given.append(news.turns)
            if "digest" in e:  # before the reply
                service.append(await asyncio.to_thread(self.service_turns, who, self.ref(step.get("thread"))))
            if step.get("reply") == "ack":
                seqs = [t.seq for t in news.turns if t.seq]
                return Reply("ack: noted", answers=seqs[-1]) if seqs else None
            if step.get("reply") != "echo":
                return None
            others = [
                m for m in news.messages if (m.author.type, m.author.id, m.author.kind) != (me.type, me.id, me.kind)
            ]
            return Reply("echo: " + others[-1].content, answers=others[-1].seq) if others else None

        async def save(state: models.State) -> None:
            saved.append(state)

        result = await atake_turn(
            self.desk(step), decide, save, self.states.get(name), thread=self.ref(step.get("thread"))
        )
        assert saved == [result.state], "the turn saved its state once"
        self.states[name] = result.state
        self.save(step, result.reply)
        m = self.memory.setdefault(who, Memory())
        for n in result.news.messages:
            m.rows[n.seq] = (n.content, bool(n.redacted))
            m.read.append(n.content)
        for c in result.news.corrections:
            m.rows[c.corrects or 0] = (c.content, bool(c.redacted))
            m.read.append(c.content)
        news = result.news
        if "news" in e:
            assert [x.seq for x in news.messages] == self.refs(e["news"]), "the turn's news"
        if "corrections" in e:
            assert [x.seq for x in news.corrections] == self.refs(e["corrections"]), "the turn's corrections"
        if "elided" in e:
            assert [[x.from_, x.through] for x in news.elided] == [self.refs(p) for p in e["elided"]], "elisions"
        if "reinitialized" in e:
            assert news.reinitialized == e["reinitialized"], "the turn's reinitialization"
        assert given == [news.turns], "decide is given the turn's model input"
        self.roles(news.turns, e.get("turns"))
        absent("\n".join(t.content for t in news.turns), e.get("absent"))
        if "digest" in e:
            assert is_digest(news.turns[0] if news.turns else None) == e["digest"], (
                "the turn's first model turn is the digest's"
            )
            assert (news.digest is not None) == e["digest"], "the turn carries the digest"
            if e["digest"]:
                assert news.rendered is not None and news.turns[0].content == news.rendered.digest, "the digest's tag"
            if news.reinitialized is not None:
                model = [(t.role, t.content) for t in news.turns]
                assert service == [model], "a turn from a view is what the service renders"
        if "reply" in e:
            want = e["reply"]
            if want is None:
                assert result.reply is None, "the turn posts no reply"
            else:
                assert result.reply is not None, "the turn posts a reply"
                if "parent" in want:
                    assert result.reply.parent == self.ref(want["parent"]), "the reply's parent"
                if "content" in want:
                    assert result.reply.content == want["content"], "the reply's content"
        if "state" in e:
            want = e["state"]
            state = result.state
            if "thread" in want:
                assert state.conversation.thread == self.ref(want["thread"]), "the state's thread"
            if "viewer" in want:
                v = state.viewer
                got = None if v is None else v.type + (":" + (v.id or v.kind or "") if (v.id or v.kind) else "")
                assert got == want["viewer"], "the state's viewer"
            for seq in self.refs(want.get("present", [])):
                assert state.watermark >= seq or seq in (state.present or []), f"the state holds {seq} as seen"

    async def fold(self, step: dict[str, Any]) -> models.Digest:
        """POST …/digest as step's participant until the answer holds a digest (a background
        fold may overtake one and store it)."""
        params = {"thread": t} if (t := self.ref(step.get("thread"))) else {}
        async with httpx.AsyncClient() as http:
            while True:
                answer = await http.post(
                    self.server.url + "/v1/desks/eng/digest",
                    params=params,
                    headers={"Authorization": "Bearer " + self.secrets[step["as"]]},
                    timeout=30,
                )
                assert answer.status_code == 200, f"the fold's status: {answer.status_code}"
                folded = models.DigestAnswer.model_validate(answer.json())
                if folded.digest is not None:
                    return folded.digest
                await asyncio.sleep(0.05)

    def digest(self, got: models.Digest | None, want: dict[str, Any]) -> None:
        """Checks a digest against a step's expectation of it."""
        assert got is not None, "a digest"
        if "through" in want:
            assert got.through == self.ref(want["through"]), "the digest's through"
        for k in ("rows", "generation", "digester"):
            if k in want:
                assert getattr(got, k) == want[k], f"the digest's {k}"
        for w in want.get("holds", []):
            assert w in got.text, f"the digest holds {w!r}"
        absent(got.text, want.get("absent"), "the digest")

    def service_turns(self, who: str, thread: int | None) -> list[tuple[str, str]]:
        params: dict[str, str | int] = {"format": "openai", "digest": "true"}
        if thread is not None:
            params["thread"] = thread
        answer = httpx.get(
            self.server.url + "/v1/desks/eng/model",
            params=params,
            headers={"Authorization": "Bearer " + self.secrets[who]},
            timeout=30,
        ).raise_for_status()
        return [(t["role"], t["content"]) for t in answer.json()]

    def roles(self, got: list[Turn], want: dict[str, str] | None) -> None:
        for r, role in (want or {}).items():
            seq = self.ref(r)
            found = [t for t in got if t.seq == seq]
            assert found, f"a turn for {r}"
            assert found[0].role == role, f"{r}'s turn is the {role}'s"

    async def run(self, i: int, step: dict[str, Any]) -> None:
        where = f"step {i + 1} ({step['do']}{' as ' + step['as'] if 'as' in step else ''})"
        want = step.get("error")
        if want is None:
            try:
                await self.step(step)
            except AssertionError as err:
                raise AssertionError(f"{where}: {err}") from err
            return
        try:
            await self.step(step)
        except AssertionError:
            raise
        except Exception as err:
            names = [c.__name__ for c in type(err).__mro__]
            if "class" in want:
                assert want["class"] in names, f"{where}: want a {want['class']}, got {' < '.join(names)}: {err}"
            if "status" in want:
                assert getattr(err, "status", None) == want["status"], f"{where}: the status"
            if "retry_after_at_least" in want:
                assert (getattr(err, "retry_after", None) or 0) >= want["retry_after_at_least"], f"{where}: Retry-After"
            for secret in self.secrets.values():
                assert secret not in str(err), "no token in an error"
            return
        raise AssertionError(f"{where}: want an error, got an answer")

    async def close(self) -> None:
        for s in self.streams.values():
            s.task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await s.task
        for d in self.desks:
            await d.aclose()
        self.server.stop()


def is_digest(t: Turn | None) -> bool:
    """Whether t is the conversation's digest: a user turn of no row and no name, holding the
    service's digest tag."""
    return t is not None and (t.role, t.seq, t.name) == ("user", None, None) and t.content.startswith("<digest ")


def absent(text: str, words: list[str] | None, what: str = "the answer") -> None:
    for w in words or []:
        assert w not in text, f"{what} holds {w!r}"


@pytest.mark.parametrize("path", FILES, ids=[p.name for p in FILES])
async def test_scenario(path: Path) -> None:
    scenario = json.loads(path.read_text(encoding="utf-8"))
    server = Server(scenario.get("serve"))
    run = Run(server, {who: server.token("eng", p) for who, p in scenario["participants"].items()})
    try:
        for i, step in enumerate(scenario["steps"]):
            await run.run(i, step)
    finally:
        await run.close()
