"""Tests that run each case against Desk and AsyncDesk alike."""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any, TypeVar

import pytest

from sharedesk_transcript import AsyncDesk, Desk, ProblemError

from .conftest import Fixture

T = TypeVar("T")

both = pytest.mark.parametrize("kind", ["sync", "async"])
"""Runs a test with kind "sync" and "async"."""


def desk(fx: Fixture, kind: str, who: str, name: str = "eng") -> Desk | AsyncDesk:
    return fx.desk(who, name) if kind == "sync" else fx.async_desk(who, name)


async def call(value: Any) -> Any:
    """The value, awaited when it is an AsyncDesk's coroutine."""
    return await value if inspect.isawaitable(value) else value


async def refused(fx: Fixture, make: Callable[[], Any], status: int, type: str | None = None) -> ProblemError:
    """The ProblemError the call make makes raises, checked: its status, type, a title, no secret."""
    with pytest.raises(ProblemError) as caught:
        await call(make())
    err = caught.value
    assert err.status == status, str(err)
    if type is not None:
        assert type in err.type, err.type
    assert err.title, "a problem has a title"
    for secret in fx.secrets.values():
        assert secret not in str(err) and secret not in repr(err), "no token in an error"
    return err
