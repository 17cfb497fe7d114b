"""The mapping every framework adapter shares: a participant's view as model turns, exactly as
``transcript view --digest --format openai`` renders it for that participant. The
conversation's digest, when it has one, is the first user turn, holding the service's digest
tag; the participant's own words are the assistant's, verbatim; everyone else's are user
turns holding the message in the envelope the service rendered, which says who wrote it and
which no content can forge; elisions are user turns holding the service's tag. A correction
row, and a redacted row, is never the assistant's own words: it is shown in its envelope.
The escaping is the service's alone: this module maps roles and names, never text."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from .models import Author, Elision, Message, Rendered
from .types import Delta


@dataclass(frozen=True)
class Turn:
    """One model turn of a participant's view. ``name`` is a user turn's author (its id, a
    notice's kind, or "operator"), None on elisions, the digest and assistant turns; ``seq``
    is the row the turn renders, None for an elision and the digest."""

    role: Literal["user", "assistant"]
    content: str
    name: str | None = None
    seq: int | None = None


def author_name(a: Author) -> str:
    """The name a framework message carries for a: its id, a notice's kind, or "operator"."""
    return a.id or a.kind or a.type


def same_author(a: Author, b: Author) -> bool:
    """Whether a and b are one participant: type and id (a notice's kind); labels play no part."""
    return a.type == b.type and (a.id or a.kind or "") == (b.id or b.kind or "")


def turns(
    viewer: Author, messages: Sequence[Message], elided: Sequence[Elision], rendered: Rendered | None
) -> list[Turn]:
    """The rows of viewer's view (or of a delta, see with_corrections), one turn per message
    and per elision, in sequence order, with the service's rendered text of each (read with
    ``rendered=True``); when rendered holds a view's digest tag (read with ``digest=True``),
    a user turn holding it comes first. Raises ValueError when rendered does not match the
    rows."""
    texts = list(rendered.messages or []) if rendered else []
    tags = list(rendered.elided or []) if rendered else []
    if rendered is None or len(texts) != len(messages) or len(tags) != len(elided):
        raise ValueError("rows without the service's rendered text: read them with rendered=True")
    out: list[Turn] = [Turn("user", rendered.digest)] if rendered.digest else []
    j = 0
    for m, text in zip(messages, texts, strict=True):
        while j < len(elided) and elided[j].from_ < m.seq:
            out.append(Turn("user", tags[j]))
            j += 1
        if same_author(viewer, m.author) and not m.corrects and not m.redacted:
            out.append(Turn("assistant", m.content, seq=m.seq))
        else:
            out.append(Turn("user", text, name=author_name(m.author), seq=m.seq))
    out.extend(Turn("user", tag) for tag in tags[j:])
    return out


def with_corrections(delta: Delta) -> tuple[list[Message], Rendered | None]:
    """A delta's messages and corrections as one list of rows in sequence order, and their
    rendered text, for turns: a correction is a user turn in its envelope, even the viewer's
    own. The text is None when the delta was read without ``rendered=True``."""
    r = delta.rendered
    texts: list[str | None] = [*(r.messages or []), *(r.corrections or [])] if r else []
    rows = [*(delta.messages or []), *(delta.corrections or [])]
    if len(texts) != len(rows):
        texts = [None] * len(rows)
    ordered = sorted(zip(rows, texts, strict=True), key=lambda pair: pair[0].seq)
    messages = [m for m, _ in ordered]
    if r is None or any(t is None for _, t in ordered):
        return messages, None
    return messages, Rendered(messages=[t for _, t in ordered if t is not None], elided=list(r.elided or []))
