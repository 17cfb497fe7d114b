"""The client's answers besides the generated models: a delta's two outcomes and the
events of a stream."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from pydantic import BaseModel, ConfigDict

from . import models

ReinitializeReason = Literal["conversation_changed", "gap_too_large", "watermark_unavailable", "digest_corrected"]


class Delta(models.Delta):
    """What the participant has not seen since its state (messages, elided, corrections),
    and ``next``, the state to commit once the turn is durable. ``remaining`` counts newer
    messages and corrections that did not fit in the answer: the next delta, from ``next``,
    holds them. ``rendered`` is the service's text of each message, correction and elision,
    when the delta was asked for with ``rendered=True``."""

    remaining: int = 0
    rendered: models.Rendered | None = None


class Reinitialize(BaseModel):
    """Why the state cannot give a delta: the caller reads a view and starts a state at its
    head (recording the view's digest, when it has one). digest_corrected: a row the digest
    the state records may stand for was edited or redacted since. With conversation_changed,
    ``conversation`` is the one asked for and ``state_conversation`` the one the state is
    bound to, when they differ, and ``state_viewer`` the participant the state belongs to,
    when not the one reading."""

    model_config = ConfigDict(extra="ignore")

    reason: ReinitializeReason
    conversation: models.Conversation | None = None
    state_conversation: models.Conversation | None = None
    state_viewer: models.Author | None = None


@dataclass(frozen=True)
class MessageEvent:
    """A message the participant may read, new on the stream."""

    id: int
    data: models.Message
    type: Literal["message"] = "message"


@dataclass(frozen=True)
class ElidedEvent:
    """A run of rows the participant may not read, said in their place."""

    id: int
    data: models.Elision
    type: Literal["elided"] = "elided"


@dataclass(frozen=True)
class CorrectionEvent:
    """An edit or a redaction of a row the participant saw: ``data.corrects`` names it."""

    id: int
    data: models.Message
    type: Literal["correction"] = "correction"


@dataclass(frozen=True)
class ReinitializeEvent:
    """The stream cannot go on from its position: the last event; read a view and start over."""

    id: int
    data: models.ReinitializeEvent
    type: Literal["reinitialize"] = "reinitialize"


Event = MessageEvent | ElidedEvent | CorrectionEvent | ReinitializeEvent
"""One event of a desk's stream: ``id`` is its seq, ``data`` its model; narrow on ``type``."""
