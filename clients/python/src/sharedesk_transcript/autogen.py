"""The desk as an AutoGen model context (the ``autogen`` extra): one conversation, the
channel or a thread, as the token's participant reads it.

``get_messages`` is the participant's view, turn for turn what ``transcript view --digest
--format openai`` gives it: the conversation's digest, when it has one below the view,
first, as a ``UserMessage`` holding the digest's tag (source "transcript"); its own rows as
``AssistantMessage`` (source: its id), verbatim; every other row as a ``UserMessage``
holding the row in an envelope that names its author, with ``source`` the author's id (a
notice's kind, "operator" for the operator); rows it may not read as ``UserMessage``
elision text (source "transcript").

``add_message`` of the participant's ``AssistantMessage`` with text content — one whose
``source`` is the participant's id, or the ``source`` the context was made with (the
agent's name, when it is not the id) — posts it as the participant, in the context's
conversation. Other messages — the task handed to the agent, its tool calls and their
results, another agent's words in a shared context — are not rows: their authors write the
desk's rows. They are kept in memory for the turn in progress, after the view, so that the
agent reads its own tool loop back. A turn ends with a posted reply, or, when it ends
without one (a tool call's summary, a handoff), when the next turn's input arrives after
the tool loop or the model's answer; either way its memory is forgotten, as ``clear``
forgets it.
Nothing is ever removed from the desk. ``save_state`` keeps the conversation only (the
desk's name and the thread), never rows: the desk holds them.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from autogen_core.model_context import ChatCompletionContext
from autogen_core.models import AssistantMessage, FunctionExecutionResultMessage, LLMMessage, UserMessage

from ._desk import AsyncDesk, Desk
from ._memory import apost_text, aview_turns, awhoami
from .mapping import author_name

__all__ = ["ELISION_SOURCE", "TranscriptChatCompletionContext"]

ELISION_SOURCE = "transcript"
"""The source of the UserMessage an elision, or the conversation's digest, stands as."""


class TranscriptChatCompletionContext(ChatCompletionContext):
    """The participant's view of one conversation of desk (``thread``: a thread's root;
    None: the channel) as AutoGen LLM messages, and the participant's replies posted."""

    def __init__(self, desk: Desk | AsyncDesk, thread: int | None = None, *, source: str | None = None) -> None:
        super().__init__()
        self.desk = desk
        self.thread = thread or None
        self.source = source

    async def get_messages(self) -> list[LLMMessage]:
        """The view, oldest first, then the turn in progress's messages."""
        me = author_name(await awhoami(self.desk))
        out: list[LLMMessage] = []
        for t in await aview_turns(self.desk, self.thread):
            if t.role == "assistant":
                out.append(AssistantMessage(content=t.content, source=me))
            else:
                out.append(UserMessage(content=t.content, source=t.name or ELISION_SOURCE))
        return out + list(self._messages)

    async def add_message(self, message: LLMMessage) -> None:
        """Posts the participant's text reply and ends the turn; keeps any other message
        for the turn in progress, writing nothing. The input of a new turn, arriving after
        the last turn's tool loop or answer, forgets that turn first."""
        turn_output = (AssistantMessage, FunctionExecutionResultMessage)
        if isinstance(message, AssistantMessage) and isinstance(message.content, str):
            if await self._is_participant(message.source):
                await apost_text(self.desk, self.thread, message.content)
                self._messages = []
                return
        elif not isinstance(message, turn_output) and self._messages and isinstance(self._messages[-1], turn_output):
            self._messages = []  # the last turn ended without a text reply
        self._messages.append(message)

    async def _is_participant(self, source: str) -> bool:
        """Whether source names the context's participant: its id, or the source it was made with."""
        return source == self.source or source == author_name(await awhoami(self.desk))

    async def clear(self) -> None:
        """Forgets the turn in progress; the desk keeps every row."""
        self._messages = []

    async def save_state(self) -> Mapping[str, Any]:
        """The conversation: the desk's name and the thread, never rows."""
        return {"desk": self.desk.name, "thread": self.thread}

    async def load_state(self, state: Mapping[str, Any]) -> None:
        """Takes the conversation of a saved state, of this desk; the turn in progress is forgotten."""
        if state.get("desk") != self.desk.name:
            raise ValueError(f"a state of desk {state.get('desk')!r}, not of {self.desk.name!r}")
        thread = state.get("thread")
        if thread is not None and (isinstance(thread, bool) or not isinstance(thread, int)):
            raise ValueError("a state's thread is a row's seq")
        self.thread = thread or None
        self._messages = []
