"""The desk as an OpenAI Agents SDK session (the ``openai-agents`` extra): one conversation,
the channel or a thread, as the token's participant reads it.

``get_items`` is the participant's view as input items, turn for turn what ``transcript view
--digest --format openai`` gives it: the conversation's digest, when it has one below the
view, first, as a user message holding the digest's tag; its own rows as completed assistant
messages, verbatim; every other row as a user message holding the row in an envelope that
names its author; rows it may not read as the elision text that stands for them.
``add_items`` posts the text of each completed assistant message, the agent's answer, as the
participant, in the session's conversation; it posts nothing else: the run's input is the
caller's, not a row, and tool calls and reasoning stay in the run. ``pop_item`` and
``clear_session`` raise: a desk is append-only.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, cast

from ._desk import AsyncDesk, Desk
from ._memory import APPEND_ONLY, apost_text, aview_turns
from .mapping import Turn

if TYPE_CHECKING:
    from agents import TResponseInputItem
    from agents.memory import SessionSettings

__all__ = ["TranscriptSession"]


class TranscriptSession:
    """The participant's view of one conversation of desk (``thread``: a thread's root;
    None: the channel) as an Agents SDK session; ``session_id`` is "DESK/THREAD" (0: the
    channel)."""

    session_settings: SessionSettings | None = None

    def __init__(self, desk: Desk | AsyncDesk, thread: int | None = None) -> None:
        self.desk = desk
        self.thread = thread or None
        self.session_id = f"{desk.name}/{self.thread or 0}"

    async def get_items(self, limit: int | None = None) -> list[TResponseInputItem]:
        """The view as input items, oldest first; with limit, the newest limit of them."""
        items = [_item(t) for t in await aview_turns(self.desk, self.thread)]
        if limit is not None and limit >= 0:
            items = items[len(items) - min(limit, len(items)) :]
        return items

    async def add_items(self, items: list[TResponseInputItem]) -> None:
        """Posts the text of each completed assistant message, in order; every other item
        (the input, tool calls and their output, reasoning) is skipped, with no request."""
        for item in items:
            answer = _answer(cast("dict[str, Any]", item))
            if answer is not None:
                await apost_text(self.desk, self.thread, answer)

    async def pop_item(self) -> TResponseInputItem | None:
        """Raises: a desk's rows are never removed."""
        raise NotImplementedError(APPEND_ONLY)

    async def clear_session(self) -> None:
        """Raises: a desk's history cannot be cleared."""
        raise NotImplementedError(APPEND_ONLY)


def _item(t: Turn) -> TResponseInputItem:
    if t.role == "assistant":
        return cast(
            "TResponseInputItem",
            {
                "type": "message",
                "role": "assistant",
                "status": "completed",
                "content": [{"type": "output_text", "text": t.content, "annotations": []}],
            },
        )
    return cast("TResponseInputItem", {"type": "message", "role": "user", "content": t.content})


def _answer(item: dict[str, Any]) -> str | None:
    """The text of a completed assistant message (its output_text parts), else None."""
    if item.get("role") != "assistant" or item.get("status") != "completed":
        return None
    content = item.get("content")
    if isinstance(content, str):
        return content
    return "".join(c.get("text", "") for c in content or [] if isinstance(c, dict) and c.get("type") == "output_text")
