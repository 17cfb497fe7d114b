"""Fixtures: a server on a new database whose desk "eng" has a token for each participant."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import pytest

from sharedesk_transcript import AsyncDesk, Desk

from .server import Server, remove_built

PARTICIPANTS = {
    "operator": "operator",
    "triage": "agent:triage:Triage",
    "review": "agent:review:Reviewer",
    "ana": "person:ana:Ana",
    "ci": "system:ci:CI",
}


@dataclass
class Fixture:
    server: Server
    secrets: dict[str, str]

    def desk(self, who: str, name: str = "eng") -> Desk:
        return Desk(self.server.url, token=self.secrets[who], desk=name)

    def async_desk(self, who: str, name: str = "eng") -> AsyncDesk:
        return AsyncDesk(self.server.url, token=self.secrets[who], desk=name)


def desk_fixture(flags: list[str] | None = None) -> Fixture:
    server = Server(flags)
    return Fixture(server, {who: server.token("eng", p) for who, p in PARTICIPANTS.items()})


@pytest.fixture(scope="session", autouse=True)
def _built_binary() -> Iterator[None]:
    yield
    remove_built()


@pytest.fixture
def fx() -> Iterator[Fixture]:
    """A fresh server and desk for one test."""
    f = desk_fixture()
    try:
        yield f
    finally:
        f.server.stop()
