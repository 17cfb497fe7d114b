"""Each route of the service as a request and the parse of its answer: what Desk and
AsyncDesk send, shared, so that the two differ only in how they wait."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar
from urllib.parse import quote

from pydantic import BaseModel

from . import models
from .types import Delta, Reinitialize

T = TypeVar("T")

StateLike = models.State | Mapping[str, Any]
"""A state: the model, or the JSON object a caller saved."""

AudienceLike = Sequence[str | models.Author]
"""An aside's readers besides its author: "agent:ID", "person:ID", … or Author models."""


@dataclass(frozen=True)
class Call(Generic[T]):
    """One request: its name in errors, method, path below the service's root, query, JSON
    body, how its answer becomes T, and whether it may be sent again after a failure (a
    read, or a write that carries a key; an empty key is none, as the service takes it)."""

    what: str
    method: str
    path: str
    parse: Callable[[Any], T]
    params: dict[str, str | int] = field(default_factory=dict)
    body: dict[str, Any] | None = None
    retryable: bool = True


def query(**values: str | int | None) -> dict[str, str | int]:
    """The query parameters that are set; ``as_`` is sent as ``as``."""
    return {k.rstrip("_"): v for k, v in values.items() if v is not None}


def desk_path(desk: str, *rest: str) -> str:
    return "/v1/desks/" + quote(desk, safe="") + "".join("/" + r for r in rest)


def dump(value: BaseModel | Mapping[str, Any]) -> Any:
    """A model or mapping as the JSON the service reads: aliases, no absent fields."""
    if isinstance(value, BaseModel):
        return value.model_dump(mode="json", by_alias=True, exclude_none=True)
    return dict(value)


def list_desks() -> Call[models.DeskList]:
    return Call("list desks", "GET", "/v1/desks", models.DeskList.model_validate)


def view(
    desk: str,
    thread: int | None,
    before: int | None,
    window: int | None,
    as_: str | None,
    rendered: bool = False,
    digest: bool = False,
) -> Call[models.Projection]:
    return Call(
        "view",
        "GET",
        desk_path(desk, "view"),
        models.Projection.model_validate,
        query(
            thread=thread,
            before=before,
            window=window,
            as_=as_,
            rendered="true" if rendered else None,
            digest="true" if digest else None,
        ),
    )


def post(
    desk: str, content: str, parent: int | None, audience: AudienceLike | None, key: str | None
) -> Call[models.Message]:
    body: dict[str, Any] = {"content": content}
    if parent is not None:
        body["parent"] = parent
    if audience is not None:
        body["audience"] = [a if isinstance(a, str) else dump(a) for a in audience]
    if key:
        body["key"] = key
    path = desk_path(desk, "messages")
    return Call("post", "POST", path, models.Message.model_validate, body=body, retryable=bool(key))


def parse_delta(answer: Any) -> Delta | Reinitialize:
    result = models.DeltaResult.model_validate(answer)
    if result.reinitialize is not None:
        return Reinitialize(
            reason=result.reinitialize,
            conversation=result.conversation,
            state_conversation=result.state_conversation,
            state_viewer=result.state_viewer,
        )
    if result.delta is None:
        raise ValueError("a delta answer with neither delta nor reinitialize")
    return Delta.model_validate({**dump(result.delta), "remaining": result.remaining or 0, "rendered": result.rendered})


def delta(
    desk: str, state: StateLike, thread: int | None, before: int | None, as_: str | None, rendered: bool = False
) -> Call[Delta | Reinitialize]:
    body: dict[str, Any] = {"state": dump(state)}
    if thread is not None:
        body["conversation"] = {"thread": thread}
    if before is not None:
        body["before"] = before
    params = query(as_=as_, rendered="true" if rendered else None)
    return Call("delta", "POST", desk_path(desk, "delta"), parse_delta, params, body)


def threads(desk: str, before: int | None, limit: int | None, as_: str | None) -> Call[models.ThreadList]:
    return Call(
        "threads",
        "GET",
        desk_path(desk, "threads"),
        models.ThreadList.model_validate,
        query(before=before, limit=limit, as_=as_),
    )


def edit(desk: str, seq: int, content: str, key: str | None) -> Call[models.Message]:
    body: dict[str, Any] = {"content": content}
    if key:
        body["key"] = key
    path = desk_path(desk, "messages", str(seq))
    return Call("edit", "PATCH", path, models.Message.model_validate, body=body, retryable=bool(key))


def redact(desk: str, seq: int, key: str | None) -> Call[models.Message]:
    body: dict[str, Any] = {"key": key} if key else {}
    path = desk_path(desk, "messages", str(seq))
    return Call("redact", "DELETE", path, models.Message.model_validate, body=body, retryable=bool(key))


def search(
    desk: str, words: str, thread: int | None, before: int | None, limit: int | None, as_: str | None
) -> Call[models.SearchAnswer]:
    return Call(
        "search",
        "GET",
        desk_path(desk, "search"),
        models.SearchAnswer.model_validate,
        query(q=words, thread=thread, before=before, limit=limit, as_=as_),
    )


def desk_of(name: str, answer: models.DeskList) -> models.Desk:
    """The desk named name among those the token may use."""
    for d in answer.desks or []:
        if d.name == name:
            return d
    raise ValueError(f"the token is not for desk {name}")
