"""TranscriptChatMessageHistory: the participant's view as LangChain messages, and only its
own AI messages written, through a RunnableWithMessageHistory round trip."""

from __future__ import annotations

from typing import Any

import pytest
from langchain_core.language_models.fake_chat_models import FakeListChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage
from langchain_core.runnables import RunnableLambda
from langchain_core.runnables.history import RunnableWithMessageHistory

from sharedesk_transcript.langchain import TranscriptChatMessageHistory

from .conftest import Fixture
from .scene import REDACTED, SECRET, Scene, build, digest_scene, model_input, newest


@pytest.fixture
def scene(fx: Fixture) -> Scene:
    return build(fx)


def roles_and_contents(messages: list[BaseMessage]) -> list[tuple[str, Any]]:
    return [("assistant" if isinstance(m, AIMessage) else "user", m.content) for m in messages]


@pytest.mark.parametrize("who", ["triage", "review"])
async def test_messages_are_the_participants_view(fx: Fixture, scene: Scene, who: str) -> None:
    for thread in (None, scene.thread.seq):
        history = TranscriptChatMessageHistory(fx.desk(who), thread=thread)
        messages = history.messages
        want = [(m["role"], m["content"]) for m in model_input(fx, who, thread)]
        assert roles_and_contents(messages) == want, (who, thread)
        async_history = TranscriptChatMessageHistory(fx.async_desk(who), thread=thread)
        assert roles_and_contents(await async_history.aget_messages()) == want
        for m in messages:
            assert isinstance(m, (AIMessage, HumanMessage))
            if isinstance(m, HumanMessage) and str(m.content).startswith("<message "):
                assert (m.name and f'id="{m.name}"' in m.content) or f'kind="{m.name}"' in m.content
            assert REDACTED not in str(m.content)
        if who == "review":
            assert all(SECRET not in str(m.content) for m in messages), "the aside shows only as its elision"
            if thread is None:
                assert any(str(m.content).startswith("<elided ") for m in messages)
    names = {m.name for m in TranscriptChatMessageHistory(fx.desk("triage")).messages if isinstance(m, HumanMessage)}
    assert {"ci", "ana", "operator", "review"} <= names


async def test_the_digest_comes_first(fx: Fixture) -> None:
    tag = digest_scene(fx)
    messages = await TranscriptChatMessageHistory(fx.async_desk("triage")).aget_messages()
    assert roles_and_contents(messages) == [(m["role"], m["content"]) for m in model_input(fx, "triage")]
    first = messages[0]
    assert isinstance(first, HumanMessage) and first.content == tag and first.name is None


async def test_a_round_trip_posts_the_models_reply_as_the_participant(fx: Fixture, scene: Scene) -> None:
    history = TranscriptChatMessageHistory(fx.desk("review"), thread=scene.thread.seq)
    model = FakeListChatModel(responses=["Rolling back #41 now."])
    received: list[BaseMessage] = []

    def respond(value: dict[str, list[BaseMessage]]) -> BaseMessage:
        received.extend([*value["history"], *value["input"]])
        return model.invoke(received)

    chain = RunnableWithMessageHistory(
        RunnableLambda(respond),
        lambda session_id: history,
        input_messages_key="input",
        history_messages_key="history",
    )
    want = [m["content"] for m in model_input(fx, "review", scene.thread.seq)]
    answer = chain.invoke({"input": []}, config={"configurable": {"session_id": "review-thread"}})
    assert answer.content == "Rolling back #41 now."
    assert [m.content for m in received] == want, "the model received Reviewer's view of the thread"
    posted = newest(fx, scene.thread.seq)
    assert posted.content == "Rolling back #41 now." and posted.parent == scene.thread.seq
    assert posted.author.type == "agent" and posted.author.id == "review"

    await TranscriptChatMessageHistory(fx.async_desk("triage")).aadd_messages([AIMessage("Async, in the channel.")])
    channel = newest(fx)
    assert channel.content == "Async, in the channel." and channel.author.id == "triage" and not channel.parent


async def test_other_kinds_are_refused_and_nothing_is_posted(fx: Fixture, scene: Scene) -> None:
    history = TranscriptChatMessageHistory(fx.desk("triage"))
    head = fx.desk("operator").info().head
    refused: list[BaseMessage] = [
        HumanMessage("I am Ana"),
        SystemMessage("You are the operator"),
        AIMessage("", tool_calls=[{"name": "lookup", "args": {}, "id": "1"}]),
        AIMessage(content=[{"type": "text", "text": "blocks"}]),
    ]
    for m in refused:
        with pytest.raises(ValueError):
            history.add_messages([AIMessage("fine"), m])
        with pytest.raises(ValueError):
            await TranscriptChatMessageHistory(fx.async_desk("triage")).aadd_messages([AIMessage("fine"), m])
    assert fx.desk("operator").info().head == head, "a refusal posts nothing"
    history.add_messages([AIMessage("  "), AIMessage(" \n\t\x85\u3000")])
    assert fx.desk("operator").info().head == head, "a blank answer posts nothing"
    with pytest.raises(NotImplementedError, match="append-only"):
        history.clear()
    with pytest.raises(NotImplementedError, match="append-only"):
        await history.aclear()
    assert fx.desk("operator").info().head == head
    with pytest.raises(TypeError, match="AsyncDesk"):
        _ = TranscriptChatMessageHistory(fx.async_desk("triage")).messages
    history.add_messages([AIMessage("\x1c")])  # str.strip takes it for blank; the service does not
    assert newest(fx).content == "\x1c", "a text the service keeps is posted, blank as it may look"
