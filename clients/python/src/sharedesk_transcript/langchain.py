"""The desk as LangChain chat history (the ``langchain`` extra): one conversation, the
channel or a thread, as the token's participant reads it.

``messages`` is the participant's view, turn for turn what ``transcript view --digest
--format openai`` gives it: the conversation's digest, when it has one below the view,
first, as a ``HumanMessage`` holding the digest's tag, without a name; its own rows as
``AIMessage``, verbatim; every other row as a ``HumanMessage`` holding the row in an
envelope that names its author, with ``name`` the author's id (a notice's kind, "operator"
for the operator); rows it may not read as the elision text that stands for them.
``add_messages`` posts each ``AIMessage`` with text content as the participant, in the
history's conversation, after checking them all: any other message (a human's, a system
prompt, a tool call) is refused and nothing is posted, since the desk's other rows are
written by their own authors. ``clear`` raises: a desk is append-only.

With ``RunnableWithMessageHistory``, give the turn's input as an empty list of messages
under ``input_messages_key``: the desk is the input, and only the model's reply is written.
"""

from __future__ import annotations

from collections.abc import Sequence

from langchain_core.chat_history import BaseChatMessageHistory
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage

from ._desk import AsyncDesk, Desk
from ._memory import APPEND_ONLY, apost_text, aview_turns, post_text, view_turns
from .mapping import Turn

__all__ = ["TranscriptChatMessageHistory"]


class TranscriptChatMessageHistory(BaseChatMessageHistory):
    """The participant's view of one conversation of desk (``thread``: a thread's root;
    None: the channel) as LangChain messages. With an AsyncDesk use the async methods."""

    def __init__(self, desk: Desk | AsyncDesk, thread: int | None = None) -> None:
        self.desk = desk
        self.thread = thread or None

    @property
    def messages(self) -> list[BaseMessage]:  # type: ignore[override]
        """The view, oldest first."""
        return [_message(t) for t in view_turns(self.desk, self.thread)]

    async def aget_messages(self) -> list[BaseMessage]:
        """The view, oldest first."""
        return [_message(t) for t in await aview_turns(self.desk, self.thread)]

    def add_messages(self, messages: Sequence[BaseMessage]) -> None:
        """Posts each AIMessage's text as the participant; any other message refuses them all."""
        for content in [_postable(m) for m in messages]:
            post_text(self.desk, self.thread, content)

    async def aadd_messages(self, messages: Sequence[BaseMessage]) -> None:
        """add_messages, awaitable."""
        for content in [_postable(m) for m in messages]:
            await apost_text(self.desk, self.thread, content)

    def clear(self) -> None:
        """Raises: a desk's history cannot be cleared."""
        raise NotImplementedError(APPEND_ONLY)

    async def aclear(self) -> None:
        """Raises: a desk's history cannot be cleared."""
        raise NotImplementedError(APPEND_ONLY)


def _message(t: Turn) -> BaseMessage:
    if t.role == "assistant":
        return AIMessage(content=t.content)
    return HumanMessage(content=t.content, name=t.name) if t.name else HumanMessage(content=t.content)


def _postable(m: BaseMessage) -> str:
    """m's text, if the participant may post it: an AIMessage's, without tool calls."""
    if not isinstance(m, AIMessage):
        raise ValueError(
            f"only the participant's own AI messages are posted, not a {m.type} message: "
            "the desk's other rows are written by their authors"
        )
    if m.tool_calls or m.invalid_tool_calls:
        raise ValueError("an AI message with tool calls is not posted to a desk")
    if not isinstance(m.content, str):
        raise ValueError("only an AI message with text content is posted")
    return m.content
