"""What every memory adapter reads and writes: the participant's view of one conversation
as turns, and a post of the participant's own text in it (a reply to the thread's root when
the conversation is a thread). Each works with a Desk or an AsyncDesk; a Desk's calls run in
a worker thread when awaited."""

from __future__ import annotations

import asyncio
import re

from ._desk import AsyncDesk, Desk
from .mapping import Turn, turns
from .models import Author, Message


def view_turns(desk: Desk | AsyncDesk, thread: int | None) -> list[Turn]:
    """The participant's view of the conversation, turn for turn, after the conversation's
    digest, when it has one below the view."""
    if isinstance(desk, AsyncDesk):
        raise TypeError("this desk is an AsyncDesk: use the adapter's async methods")
    view = desk.view(thread=thread, rendered=True, digest=True)
    return turns(desk.whoami(), view.messages or [], view.elided or [], view.rendered)


async def aview_turns(desk: Desk | AsyncDesk, thread: int | None) -> list[Turn]:
    """view_turns, awaitable."""
    if isinstance(desk, Desk):
        return await asyncio.to_thread(view_turns, desk, thread)
    view = await desk.view(thread=thread, rendered=True, digest=True)
    return turns(await desk.whoami(), view.messages or [], view.elided or [], view.rendered)


def post_text(desk: Desk | AsyncDesk, thread: int | None, content: str) -> Message | None:
    """Posts content as the participant in the conversation; blank content (an empty
    answer, which the desk would refuse) posts nothing."""
    if isinstance(desk, AsyncDesk):
        raise TypeError("this desk is an AsyncDesk: use the adapter's async methods")
    return None if _BLANK.fullmatch(content) else desk.post(content, parent=thread)


async def apost_text(desk: Desk | AsyncDesk, thread: int | None, content: str) -> Message | None:
    """post_text, awaitable."""
    if isinstance(desk, Desk):
        return await asyncio.to_thread(post_text, desk, thread, content)
    return None if _BLANK.fullmatch(content) else await desk.post(content, parent=thread)


# A text the service takes as blank: Unicode White_Space alone, or nothing (str.strip takes
# more, the information separators U+001C to U+001F among them).
_BLANK = re.compile("[\t-\r \x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]*")

APPEND_ONLY = "a desk is append-only: its rows are never removed"


async def awhoami(desk: Desk | AsyncDesk) -> Author:
    """The desk's participant, awaitable with either kind of desk."""
    if isinstance(desk, Desk):
        return await asyncio.to_thread(desk.whoami)
    return await desk.whoami()
