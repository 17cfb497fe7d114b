"""A client of transcript serve: one desk as one participant sees it.

``Desk`` (and ``AsyncDesk``, the same awaitable) reads the token's participant's view of the
channel or a thread, posts as it, asks what is new since a saved state, edits, redacts and
searches, and streams events that resume by themselves. ``turn.take_turn`` is one agent's
turn, committed only once its reply is stored. The adapters ``sharedesk_transcript.langchain``,
``.autogen`` and ``.openai_agents`` (each an extra) give a framework the desk as its memory,
every message still saying who wrote it.
"""

from . import models
from ._desk import AsyncDesk, Desk
from ._errors import (
    APIConnectionError,
    APITimeoutError,
    AuthenticationError,
    BadRequestError,
    ConflictError,
    InternalServerError,
    NotFoundError,
    PermissionDeniedError,
    ProblemError,
    RateLimitError,
    UnprocessableEntityError,
)
from ._tokenid import token_id
from .types import (
    CorrectionEvent,
    Delta,
    ElidedEvent,
    Event,
    MessageEvent,
    Reinitialize,
    ReinitializeEvent,
)

__all__ = [
    "APIConnectionError",
    "APITimeoutError",
    "AsyncDesk",
    "AuthenticationError",
    "BadRequestError",
    "ConflictError",
    "CorrectionEvent",
    "Delta",
    "Desk",
    "ElidedEvent",
    "Event",
    "InternalServerError",
    "MessageEvent",
    "NotFoundError",
    "PermissionDeniedError",
    "ProblemError",
    "RateLimitError",
    "Reinitialize",
    "ReinitializeEvent",
    "UnprocessableEntityError",
    "models",
    "token_id",
]
