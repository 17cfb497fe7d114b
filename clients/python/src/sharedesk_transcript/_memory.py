"""What every memory adapter reads and writes: the participant's view of one conversation
as turns, and a post of the participant's own text in it (a reply to the thread's root when
the conversation is a thread). Each works with a Desk or an AsyncDesk; a Desk's calls run in
a worker thread when awaited."""

from __future__ import annotations

import asyncio

from ._desk import AsyncDesk, Desk
from ._errors import BadRequestError
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
    """Posts content as the participant in the conversation and returns the stored row;
    content the service refuses as blank (an empty answer) posts nothing, and is None. What
    is blank is the service's to say."""
    if isinstance(desk, AsyncDesk):
        raise TypeError("this desk is an AsyncDesk: use the adapter's async methods")
    try:
        return desk.post(content, parent=thread)
    except BadRequestError as err:
        if err.type == BLANK_PROBLEM:
            return None
        raise


async def apost_text(desk: Desk | AsyncDesk, thread: int | None, content: str) -> Message | None:
    """post_text, awaitable."""
    if isinstance(desk, Desk):
        return await asyncio.to_thread(post_text, desk, thread, content)
    try:
        return await desk.post(content, parent=thread)
    except BadRequestError as err:
        if err.type == BLANK_PROBLEM:
            return None
        raise


# The type of the service's refusal of blank content: what is blank is the service's to say.
BLANK_PROBLEM = "tag:sharedesk.dev,2025:problem:blank"

APPEND_ONLY = "a desk is append-only: its rows are never removed"


async def awhoami(desk: Desk | AsyncDesk) -> Author:
    """The desk's participant, awaitable with either kind of desk."""
    if isinstance(desk, Desk):
        return await asyncio.to_thread(desk.whoami)
    return await desk.whoami()
