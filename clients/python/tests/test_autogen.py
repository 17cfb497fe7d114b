"""TranscriptChatCompletionContext: an AssistantAgent's model reads the participant's view,
and the agent's reply lands on the desk as the participant."""

from __future__ import annotations

import pytest
from autogen_agentchat.agents import AssistantAgent
from autogen_core import FunctionCall
from autogen_core.models import (
    AssistantMessage,
    FunctionExecutionResult,
    FunctionExecutionResultMessage,
    LLMMessage,
    SystemMessage,
    UserMessage,
)
from autogen_ext.models.replay import ReplayChatCompletionClient

from sharedesk_transcript.autogen import ELISION_SOURCE, TranscriptChatCompletionContext

from .conftest import Fixture
from .scene import REDACTED, SECRET, Scene, build, digest_scene, model_input, newest


@pytest.fixture
def scene(fx: Fixture) -> Scene:
    return build(fx)


def role_and_content(m: LLMMessage) -> tuple[str, object]:
    return ("assistant" if isinstance(m, AssistantMessage) else "user", m.content)


@pytest.mark.parametrize("who", ["triage", "review"])
async def test_messages_are_the_participants_view(fx: Fixture, scene: Scene, who: str) -> None:
    for thread in (None, scene.thread.seq):
        for desk in (fx.async_desk(who), fx.desk(who)):
            messages = await TranscriptChatCompletionContext(desk, thread=thread).get_messages()
            want = [(m["role"], m["content"]) for m in model_input(fx, who, thread)]
            assert [role_and_content(m) for m in messages] == want, (who, thread)
            for m in messages:
                assert isinstance(m, (AssistantMessage, UserMessage))
                assert REDACTED not in str(m.content)
                if isinstance(m, AssistantMessage):
                    assert m.source == who, "its own words are the assistant's, by its id"
                elif str(m.content).startswith("<elided "):
                    assert m.source == ELISION_SOURCE
                else:
                    assert f'id="{m.source}"' in str(m.content) or f'kind="{m.source}"' in str(m.content)
            if who == "review":
                assert all(SECRET not in str(m.content) for m in messages), "the aside shows only as its elision"


async def test_the_digest_comes_first(fx: Fixture) -> None:
    tag = digest_scene(fx)
    messages = await TranscriptChatCompletionContext(fx.async_desk("triage")).get_messages()
    assert [role_and_content(m) for m in messages] == [(m["role"], m["content"]) for m in model_input(fx, "triage")]
    first = messages[0]
    assert isinstance(first, UserMessage) and first.content == tag and first.source == ELISION_SOURCE


async def test_an_assistant_agent_reads_the_view_and_replies_as_the_participant(fx: Fixture, scene: Scene) -> None:
    client = ReplayChatCompletionClient(["Reviewer: rolling back #41 now."])
    context = TranscriptChatCompletionContext(fx.async_desk("review"), source="reviewer")
    agent = AssistantAgent("reviewer", model_client=client, model_context=context, system_message="You review.")
    want = [(m["role"], m["content"]) for m in model_input(fx, "review")]
    head = fx.desk("operator").info().head

    result = await agent.run(task="What now?")
    assert result.messages[-1].to_text() == "Reviewer: rolling back #41 now."
    sent = list(client.create_calls[0]["messages"])
    assert isinstance(sent[0], SystemMessage)
    assert [role_and_content(m) for m in sent[1:-1]] == want, "the model received Reviewer's view"
    assert isinstance(sent[-1], UserMessage) and sent[-1].content == "What now?", "then the task"
    own = [m for m in sent if isinstance(m, AssistantMessage)]
    assert own and all(m.source == "review" for m in own), "its own words as assistant turns"
    triage = [m for m in sent if isinstance(m, UserMessage) and m.source == "triage"]
    assert triage and all(str(m.content).startswith('<message seq="') for m in triage), "the other agent's, enveloped"
    elisions = [m for m in sent if isinstance(m, UserMessage) and m.source == ELISION_SOURCE]
    assert len(elisions) == 1 and str(elisions[0].content).startswith(f'<elided from="{scene.aside.seq}" ')
    assert all(SECRET not in str(m.content) for m in sent)

    posted = newest(fx)
    assert posted.content == "Reviewer: rolling back #41 now."
    assert posted.author.type == "agent" and posted.author.id == "review"
    assert fx.desk("operator").info().head == head + 1, "only the reply is written, not the task"
    assert [role_and_content(m) for m in await context.get_messages()][-1] == (
        "assistant",
        "Reviewer: rolling back #41 now.",
    ), "the posted reply ends the turn: the view holds it, the task is forgotten"


async def test_other_messages_are_kept_for_the_turn_and_never_written(fx: Fixture, scene: Scene) -> None:
    context = TranscriptChatCompletionContext(fx.async_desk("triage"), thread=scene.thread.seq)
    head = fx.desk("operator").info().head
    view = await context.get_messages()
    turn: list[LLMMessage] = [
        UserMessage(content="I am Ana", source="user"),
        SystemMessage(content="You are the operator"),
        FunctionExecutionResultMessage(content=[FunctionExecutionResult(content="ok", call_id="1", name="lookup")]),
    ]
    for m in turn:
        await context.add_message(m)
    assert (await context.get_messages()) == view + turn, "the turn in progress follows the view"
    assert fx.desk("operator").info().head == head, "nothing but the participant's reply is written"
    state = await context.save_state()
    assert state == {"desk": "eng", "thread": scene.thread.seq}, "the conversation only, never rows"
    await context.clear()
    assert (await context.get_messages()) == view, "clear forgets the turn, not the desk"

    other = TranscriptChatCompletionContext(fx.async_desk("triage"))
    await other.load_state(state)
    assert other.thread == scene.thread.seq and (await other.get_messages()) == view
    with pytest.raises(ValueError, match="desk"):
        await other.load_state({"desk": "other", "thread": None})
    with pytest.raises(ValueError, match="thread"):
        await other.load_state({"desk": "eng", "thread": True})

    await context.add_message(AssistantMessage(content="In the thread.", source="triage"))
    posted = newest(fx, scene.thread.seq)
    assert posted.content == "In the thread." and posted.author.id == "triage" and posted.parent == scene.thread.seq


async def test_only_the_participants_own_reply_is_posted(fx: Fixture, scene: Scene) -> None:
    context = TranscriptChatCompletionContext(fx.async_desk("triage"))
    head = fx.desk("operator").info().head
    view = await context.get_messages()
    other = AssistantMessage(content="I am the reviewer, speaking in a shared context.", source="review")
    await context.add_message(other)
    assert fx.desk("operator").info().head == head, "another agent's words are not posted as the participant"
    assert (await context.get_messages()) == [*view, other], "they stay in the turn in progress"
    await context.add_message(AssistantMessage(content="Triage: on it.", source="triage"))
    posted = newest(fx)
    assert posted.content == "Triage: on it." and posted.author.id == "triage", "its own, by its id, is posted"


async def test_a_turn_without_a_text_reply_is_forgotten_when_the_next_begins(fx: Fixture, scene: Scene) -> None:
    context = TranscriptChatCompletionContext(fx.async_desk("triage"), source="triage-agent")
    head = fx.desk("operator").info().head
    view = await context.get_messages()
    tool_only: list[LLMMessage] = [
        UserMessage(content="Look up build 812.", source="user"),
        AssistantMessage(content=[FunctionCall(id="1", name="lookup", arguments="{}")], source="triage-agent"),
        FunctionExecutionResultMessage(content=[FunctionExecutionResult(content="red", call_id="1", name="lookup")]),
    ]
    for m in tool_only:
        await context.add_message(m)
    assert (await context.get_messages()) == view + tool_only, "the tool loop, during its turn"
    task = UserMessage(content="And now?", source="user")
    await context.add_message(task)
    assert (await context.get_messages()) == [*view, task], "the next turn starts with no memory of the last"
    handoff = AssistantMessage(content=[FunctionCall(id="2", name="transfer_to_review", arguments="{}")], source="x")
    await context.add_message(handoff)
    await context.add_message(UserMessage(content="Next.", source="user"))
    assert (await context.get_messages())[len(view) :] == [UserMessage(content="Next.", source="user")]
    await context.add_message(AssistantMessage(content="Done.", source="triage-agent"))
    assert newest(fx).content == "Done." and fx.desk("operator").info().head == head + 1, "the reply, by source="
    assert (await context.get_messages())[-1] == AssistantMessage(content="Done.", source="triage")
