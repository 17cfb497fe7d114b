"""One turn of an agent: what is new since its saved state, its reply, and the next state,
committed only once the reply is stored.

A turn is a delta from the state (without a state, or on reinitialization: the view with
the conversation's digest, and a state at its head), the caller's decision, the reply posted
with a key made of the token's ID and the row it answers, and the next state saved with the
reply in its present set, so that the next turn does not bring the agent's own words back as
news. A turn that fails before the save runs again from the old state: the same news, and
the same key, which the service answers with the row it stored, never a second one. When the
run again decides another reply to the same row (a model is not deterministic), the earlier
run's reply, which its news holds, is the turn's, and the new answer is not posted.

The state saved is never past a correction the turn does not report: ``News.corrections``
holds the delta's edits and redactions of rows the agent was shown. A reply that answers an
aside and sets neither parent nor audience is posted inside that aside (a reply to it), so
it is read by the aside's readers only, never by the channel.
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from . import models
from ._desk import AsyncDesk, Desk
from ._errors import ConflictError
from .mapping import Turn, same_author, turns, with_corrections
from .types import Delta, Reinitialize

PRESENT_SET_LIMIT = 64
"""The most rows a state's present set holds: the service refuses a state with more."""

FIRST_READ = "first_read"
"""``News.reinitialized`` of a turn without a state, the agent's first: it starts from a view."""


@dataclass(frozen=True)
class Reply:
    """A reply a turn posts: its content, parent and audience as a post's, and ``answers``,
    the row it answers, from which its key is made."""

    content: str
    answers: int
    parent: int | None = None
    audience: Sequence[str | models.Author] | None = None


@dataclass(frozen=True)
class News:
    """What a turn brings: messages and elisions (oldest first), corrections of rows seen
    before, why the turn started from a view, when it did (``FIRST_READ`` without a state,
    else the reason the state could not give a delta), the service's text of each message,
    correction and elision, in their order, as the agent's model reads them, the
    conversation's digest below the view, when the turn started from a view and the
    conversation has one (``rendered.digest`` is its tag; a delta is news and carries none),
    and ``turns``, the turn's model input: the digest first, when there is one, as a user
    turn holding its tag, then the messages, corrections and elisions in sequence order, as
    ``mapping.turns`` maps them."""

    messages: list[models.Message]
    elided: list[models.Elision]
    corrections: list[models.Message] = field(default_factory=list)
    reinitialized: str | None = None
    rendered: models.Rendered | None = None
    digest: models.Digest | None = None
    turns: list[Turn] = field(default_factory=list)


@dataclass(frozen=True)
class TurnResult:
    news: News
    state: models.State
    """The state saved."""
    reply: models.Message | None = None
    """The stored reply, if the turn posted one."""


Decide = Callable[[News, models.Author], Reply | None]
"""The caller's decision: the news (its model input: ``News.turns``) and who the participant
is; None: no reply."""


def initial_state(desk: str, thread: int | None = None) -> models.State:
    """The state of an agent that has seen nothing of the channel, or of a thread."""
    return models.State(conversation=models.Conversation(desk=desk, thread=thread), watermark=0, present=[])


def note_present(state: models.State, seq: int) -> models.State:
    """state with seq, a row above its watermark, in its present set."""
    present = list(state.present or [])
    if seq <= state.watermark or seq in present:
        return state
    if len(present) >= PRESENT_SET_LIMIT:
        raise ValueError(f"the state's present set is full ({PRESENT_SET_LIMIT} rows)")
    return state.model_copy(update={"present": sorted([*present, seq])})


def reply_key(desk: Desk | AsyncDesk, answers: int) -> str:
    """The key of a turn's reply to row answers: the same on every retry of the turn."""
    return f"turn:{desk.token_id}:{answers}"


def reply_parent(reply: Reply, news: News) -> int | None:
    """The parent a reply is posted with: its own; else, when it sets no audience either and
    the row it answers is an aside, that aside, so the reply stays among its readers. The row
    answered may be a correction of an aside, or the aside a correction corrects: a
    correction keeps its row's readers, and the reply goes to the aside it corrects (no row
    replies to a correction)."""
    if reply.parent is not None or reply.audience is not None:
        return reply.parent
    answered = next((m for m in news.messages if m.seq == reply.answers), None)
    if answered is not None:
        return answered.seq if answered.audience else None
    correction = next((c for c in news.corrections if reply.answers in (c.seq, c.corrects)), None)
    return correction.corrects if correction is not None and correction.corrects and correction.audience else None


def _earlier_reply(news: News, me: models.Author, key: str) -> models.Message | None:
    """The reply an earlier run of the turn stored: the message of the news with key whose
    author is me; None when the news holds none."""
    return next((m for m in news.messages if m.key == key and same_author(m.author, me)), None)


def turn_thread(thread: int | None, state: models.State | None) -> int | None:
    """The thread a turn is taken in: ``thread`` (0: the channel), else the one ``state`` is
    of; None for the channel."""
    if thread is None and state is not None:
        thread = state.conversation.thread
    return thread or None


def take_turn(
    desk: Desk,
    decide: Decide,
    save: Callable[[models.State], None],
    state: models.State | None = None,
    *,
    thread: int | None = None,
) -> TurnResult:
    """Takes one turn of the desk's participant in ``thread`` (0: the channel; None: the
    conversation ``state`` is of, the channel without one), from ``state`` (None: an agent
    that has seen nothing, whose turn starts from the view), calling ``save`` with the next
    state only once the reply, if any, is stored. A state of another conversation, or of
    another participant, starts over from the view; every state saved names the
    participant. When the desk refuses the reply's key as one naming another row (the turn
    run again after a failed save, its decision not the same), the reply the earlier run
    stored, which the news holds, is the turn's, and the new answer is not posted; without
    it in the news, the ConflictError is raised."""
    thread = turn_thread(thread, state)
    me = desk.whoami()
    answer = desk.delta(state, conversation=thread, rendered=True) if state is not None else None
    view = None if isinstance(answer, Delta) else desk.view(thread=thread, rendered=True, digest=True)
    news, next_state = _news(answer, view, desk.name, thread, me)
    reply = decide(news, me)
    stored = None
    if reply is not None:
        key = reply_key(desk, reply.answers)
        try:
            stored = desk.post(reply.content, parent=reply_parent(reply, news), audience=reply.audience, key=key)
        except ConflictError:
            stored = _earlier_reply(news, me, key)
            if stored is None:
                raise
        next_state = note_present(next_state, stored.seq)
    save(next_state)
    return TurnResult(news, next_state, stored)


async def atake_turn(
    desk: AsyncDesk,
    decide: Callable[[News, models.Author], Awaitable[Reply | None]],
    save: Callable[[models.State], Awaitable[None]],
    state: models.State | None = None,
    *,
    thread: int | None = None,
) -> TurnResult:
    """take_turn, awaitable: ``decide`` and ``save`` are coroutines."""
    thread = turn_thread(thread, state)
    me = await desk.whoami()
    answer = await desk.delta(state, conversation=thread, rendered=True) if state is not None else None
    view = None if isinstance(answer, Delta) else await desk.view(thread=thread, rendered=True, digest=True)
    news, next_state = _news(answer, view, desk.name, thread, me)
    reply = await decide(news, me)
    stored = None
    if reply is not None:
        key = reply_key(desk, reply.answers)
        try:
            stored = await desk.post(reply.content, parent=reply_parent(reply, news), audience=reply.audience, key=key)
        except ConflictError:
            stored = _earlier_reply(news, me, key)
            if stored is None:
                raise
        next_state = note_present(next_state, stored.seq)
    await save(next_state)
    return TurnResult(news, next_state, stored)


def _news(
    answer: Delta | Reinitialize | None,
    view: models.Projection | None,
    desk: str,
    thread: int | None,
    me: models.Author,
) -> tuple[News, models.State]:
    """The news and next state of a delta's answer, or of the view read after a
    reinitialization or without a state (answer None): a state at its head that belongs to
    me (its type and id, no label) and records the view's digest, if any, so that the
    service says digest_corrected once a row it stands for is edited or redacted."""
    if isinstance(answer, Delta):
        rows, rendered = with_corrections(answer)
        model = turns(me, rows, answer.elided or [], rendered)
        news = News(
            answer.messages or [], answer.elided or [], answer.corrections or [], rendered=answer.rendered, turns=model
        )
        return news, answer.next
    assert view is not None
    model = turns(me, view.messages or [], view.elided or [], view.rendered)
    news = News(
        view.messages or [],
        view.elided or [],
        reinitialized=FIRST_READ if answer is None else answer.reason,
        rendered=view.rendered,
        digest=view.digest,
        turns=model,
    )
    viewer = me.model_copy(update={"label": None})
    update: dict[str, object] = {"watermark": view.head, "viewer": viewer}
    if view.digest is not None:
        update["digest"] = view.digest.through
    return news, initial_state(desk, thread).model_copy(update=update)


def load_state(path: str | os.PathLike[str]) -> models.State | None:
    """The state saved at path, or None when there is none yet."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except FileNotFoundError:
        return None
    return models.State.model_validate_json(text)


def save_state(path: str | os.PathLike[str], state: models.State) -> None:
    """Replaces the state file at path atomically: a crash leaves the old state or the new."""
    target = Path(path)
    fd, tmp = tempfile.mkstemp(dir=target.parent.resolve(), prefix="." + target.name, suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            json.dump(state.model_dump(mode="json", by_alias=True, exclude_none=True), f, indent=2)
            f.write("\n")
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, target)
    except BaseException:
        os.unlink(tmp)
        raise
