"""TranscriptSession: an Agents SDK run reads the participant's view and writes only its
answer, as the participant."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest
from agents import Agent, Runner, set_tracing_disabled
from agents.items import ModelResponse, TResponseInputItem, TResponseStreamEvent
from agents.models.interface import Model
from agents.usage import Usage
from openai.types.responses import ResponseOutputMessage, ResponseOutputText

from sharedesk_transcript.openai_agents import TranscriptSession

from .conftest import Fixture
from .scene import REDACTED, SECRET, Scene, build, digest_scene, model_input, newest

set_tracing_disabled(True)


@pytest.fixture
def scene(fx: Fixture) -> Scene:
    return build(fx)


class ScriptedModel(Model):
    """A model that records its input and answers with a fixed text: no network."""

    def __init__(self, answer: str) -> None:
        self.answer = answer
        self.inputs: list[str | list[TResponseInputItem]] = []

    async def get_response(self, system_instructions: Any, input: Any, *args: Any, **kwargs: Any) -> ModelResponse:
        self.inputs.append(input)
        text = ResponseOutputText(type="output_text", text=self.answer, annotations=[])
        message = ResponseOutputMessage(
            id="msg_1", type="message", role="assistant", status="completed", content=[text]
        )
        return ModelResponse(output=[message], usage=Usage(), response_id=None)

    def stream_response(self, *args: Any, **kwargs: Any) -> AsyncIterator[TResponseStreamEvent]:
        raise NotImplementedError


def text_of(item: Any) -> str:
    content = item["content"]
    return content if isinstance(content, str) else "".join(c["text"] for c in content)


@pytest.mark.parametrize("who", ["triage", "review"])
async def test_items_are_the_participants_view(fx: Fixture, scene: Scene, who: str) -> None:
    for thread in (None, scene.thread.seq):
        session = TranscriptSession(fx.async_desk(who), thread=thread)
        items = await session.get_items()
        want = [(m["role"], m["content"]) for m in model_input(fx, who, thread)]
        assert [(i["role"], text_of(i)) for i in items] == want, (who, thread)  # type: ignore[typeddict-item]
        assert (await session.get_items(limit=2)) == items[-2:]
        assert await TranscriptSession(fx.desk(who), thread=thread).get_items() == items, "a sync Desk too"
        assert all(REDACTED not in text_of(i) for i in items)
        if who == "review":
            assert all(SECRET not in text_of(i) for i in items), "the aside shows only as its elision"


async def test_the_digest_comes_first(fx: Fixture) -> None:
    tag = digest_scene(fx)
    items = await TranscriptSession(fx.async_desk("triage")).get_items()
    want = [(m["role"], m["content"]) for m in model_input(fx, "triage")]
    assert [(i["role"], text_of(i)) for i in items] == want  # type: ignore[typeddict-item]
    assert items[0] == {"type": "message", "role": "user", "content": tag}


async def test_a_run_reads_the_view_and_posts_the_answer_as_the_participant(fx: Fixture, scene: Scene) -> None:
    session = TranscriptSession(fx.async_desk("review"), thread=scene.thread.seq)
    assert session.session_id == f"eng/{scene.thread.seq}"
    model = ScriptedModel("Rolling back #41 now.")
    agent = Agent(name="Reviewer", instructions="You review deploys.", model=model)
    head = fx.desk("operator").info().head
    want = [(m["role"], m["content"]) for m in model_input(fx, "review", scene.thread.seq)]
    result = await Runner.run(agent, "What now?", session=session)
    assert result.final_output == "Rolling back #41 now."
    sent = model.inputs[0]
    assert isinstance(sent, list)
    got = [(i["role"], text_of(i)) for i in sent]  # type: ignore[typeddict-item]
    assert got[: len(want)] == want, "the model received Reviewer's view of the thread"
    assert got[len(want) :] == [("user", "What now?")], "then the run's input"
    posted = newest(fx, scene.thread.seq)
    assert posted.content == "Rolling back #41 now." and posted.parent == scene.thread.seq
    assert posted.author.type == "agent" and posted.author.id == "review"
    assert fx.desk("operator").info().head == head + 1, "the input is not posted: only the answer"


async def test_only_completed_assistant_output_is_written(fx: Fixture, scene: Scene) -> None:
    session = TranscriptSession(fx.async_desk("triage"))
    head = fx.desk("operator").info().head
    ignored: list[Any] = [
        {"role": "user", "content": "I am Ana"},
        {"role": "system", "content": "You are the operator"},
        {"type": "function_call", "call_id": "1", "name": "lookup", "arguments": "{}"},
        {"type": "message", "role": "assistant", "status": "in_progress", "content": []},
        {"type": "message", "role": "assistant", "status": "completed", "content": " \n"},
    ]
    await session.add_items(ignored)
    assert fx.desk("operator").info().head == head, "nothing but the agent's answer is posted"
    answer: Any = {"type": "message", "role": "assistant", "status": "completed", "content": "Done."}
    await session.add_items([*ignored, answer])
    assert fx.desk("operator").info().head == head + 1 and newest(fx).content == "Done.", "the answer alone is posted"
    head += 1
    with pytest.raises(NotImplementedError, match="append-only"):
        await session.pop_item()
    with pytest.raises(NotImplementedError, match="append-only"):
        await session.clear_session()
    assert fx.desk("operator").info().head == head


async def test_add_items_sends_only_the_answers(fx: Fixture) -> None:
    """A run's input, tool calls and tool output are skipped without a request: a tool-heavy
    run spends one post, not one per item."""
    desk = fx.async_desk("review")
    sent: list[str] = []

    async def keep(request: httpx.Request) -> None:
        sent.append(f"{request.method} {request.url.path}")

    desk._http.event_hooks["request"] = [keep]
    items: list[Any] = [{"type": "message", "role": "user", "content": "deploy it"}]
    for i in range(25):
        items.append({"type": "function_call", "call_id": f"c{i}", "name": "step", "arguments": "{}"})
        items.append({"type": "function_call_output", "call_id": f"c{i}", "output": "ok"})
    items.append({"type": "reasoning", "id": "r1", "summary": []})
    items.append(
        {
            "type": "message",
            "role": "assistant",
            "status": "completed",
            "content": [{"type": "output_text", "text": "deployed after 25 steps", "annotations": []}],
        }
    )
    await TranscriptSession(desk).add_items(items)
    assert sent == ["POST /v1/desks/eng/messages"], sent
    assert newest(fx).content == "deployed after 25 steps"
    await desk.aclose()
