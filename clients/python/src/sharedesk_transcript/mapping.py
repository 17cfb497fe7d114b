"""The mapping every framework adapter shares: a participant's view as model turns, exactly
as ``transcript view --format openai`` renders it for that participant. Its own words are
the assistant's, verbatim; everyone else's are user turns holding the message in an
envelope that says who wrote it, which no content can forge; elisions are user turns of
their own. A correction row, and a redacted row, is never the assistant's own words: it is
shown in its envelope."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from .models import Author, Elision, Message


@dataclass(frozen=True)
class Turn:
    """One model turn of a participant's view. ``name`` is a user turn's author (its id, a
    notice's kind, or "operator"), None on elisions and assistant turns; ``seq`` is the row
    the turn renders, None for an elision."""

    role: Literal["user", "assistant"]
    content: str
    name: str | None = None
    seq: int | None = None


def author_name(a: Author) -> str:
    """The name a framework message carries for a: its id, a notice's kind, or "operator"."""
    return a.id or a.kind or a.type


def same_author(a: Author, b: Author) -> bool:
    """Whether a and b are one participant: type and id (a notice's kind); labels play no part."""
    return a.type == b.type and _ident(a) == _ident(b)


def turns(viewer: Author, messages: Sequence[Message], elided: Sequence[Elision] = ()) -> list[Turn]:
    """The view of viewer, one turn per message and per elision, in sequence order."""
    out: list[Turn] = []
    pending = list(elided)
    j = 0
    for m in messages:
        while j < len(pending) and pending[j].from_ < m.seq:
            out.append(Turn("user", elision_tag(pending[j])))
            j += 1
        if same_author(viewer, m.author) and not m.corrects and not m.redacted:
            out.append(Turn("assistant", m.content, seq=m.seq))
        else:
            out.append(Turn("user", envelope(m), name=author_name(m.author), seq=m.seq))
    out.extend(Turn("user", elision_tag(e)) for e in pending[j:])
    return out


def envelope(m: Message) -> str:
    """m's content inside the <message> element that says who wrote it."""
    s = f'<message seq="{m.seq}'
    if m.parent:
        s += f'" parent="{m.parent}'
    if m.corrects:
        s += f'" corrects="{m.corrects}'
    s += f'" kind="{_attr(m.author.type)}'
    if _ident(m.author):
        s += f'" id="{_attr(_ident(m.author))}'
    if m.author.label:
        s += f'" label="{_attr(m.author.label)}'
    if m.audience:
        s += f'" readers="{_readers_attr(_readers(m))}'
    if m.revised:
        s += f'" revised="{m.revised}'
    if m.redacted:
        return s + '" redacted="true"/>'
    return s + f'">\n{_content(m.content)}\n</message>'


def elision_tag(e: Elision) -> str:
    """The text an elision stands as: the run's bounds, count and readers."""
    return (
        f'<elided from="{e.from_}" through="{e.through}" count="{e.count}" '
        f'readers="{_readers_attr(list(e.readers or []))}"/>'
    )


_KIND_ORDER = {"operator": 0, "person": 1, "agent": 2, "system": 3}
_SURROGATE = re.compile("[\ud800-\udfff]")


def _ident(a: Author) -> str:
    """An author's identity within its type: its id, or a notice's kind."""
    return a.id or a.kind or ""


def _readers(m: Message) -> list[Author]:
    """An aside's readers: its author and audience, once each, by kind, then id's bytes."""
    ordered = sorted([m.author, *(m.audience or [])], key=lambda a: (_KIND_ORDER.get(a.type, 9), _ident(a).encode()))
    return [a for i, a in enumerate(ordered) if i == 0 or not same_author(a, ordered[i - 1])]


def _well_formed(s: str) -> str:
    return _SURROGATE.sub("\ufffd", s)


def _is_control(c: int) -> bool:
    return c < 0x20 or 0x7F <= c <= 0x9F or c in (0x2028, 0x2029)


def _content(s: str) -> str:
    return _well_formed(s).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def _attr(s: str) -> str:
    out = []
    for ch in _well_formed(s):
        if ch == "&":
            out.append("&amp;")
        elif ch == "<":
            out.append("&lt;")
        elif ch == ">":
            out.append("&gt;")
        elif ch == '"':
            out.append("&quot;")
        elif _is_control(ord(ch)):
            out.append(f"&#{ord(ch)};")
        else:
            out.append(ch)
    return "".join(out)


def _readers_attr(readers: list[Author]) -> str:
    return ",".join(
        _attr(a.type) + (":" + "&#44;".join(_attr(p) for p in _ident(a).split(",")) if _ident(a) else "")
        for a in readers
    )
