"""The adapters' desk: an operator, two agents, a person and a CI notice; a thread; an edit
and a redaction; an aside Reviewer may not read, and Triage's reply to it. digest_scene
makes a channel long enough to hold a digest."""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

import httpx

from sharedesk_transcript import models

from .conftest import Fixture

SECRET = "Triage: hold the spend alerts until Monday."
REDACTED = "my password is hunter2"


@dataclass
class Scene:
    thread: models.Message
    aside: models.Message


def build(fx: Fixture) -> Scene:
    op, triage, review, ana, ci = (fx.desk(w) for w in ("operator", "triage", "review", "ana", "ci"))
    ci.post("Build 812 failed: migration step timed out.")
    thread = ana.post("Deploy #41 is red. Has anyone seen the migration hang?")
    triage.post('The migration waits on a lock on <orders> & "billing".', parent=thread.seq)
    wrong = review.post("I think it is the network.", parent=thread.seq)
    review.edit(wrong.seq, "It is the lock: the network is fine.")
    oops = ana.post(REDACTED)
    ana.redact(oops.seq)
    aside = op.post(SECRET, audience=["agent:triage"])
    triage.post("Understood: holding them.", parent=aside.seq)
    review.post("Reviewer here: shall I roll back?")
    return Scene(thread, aside)


def model_input(fx: Fixture, who: str, thread: int | None = None) -> list[dict[str, Any]]:
    """The service's own rendering of who's view for its model (OpenAI chat messages), the
    conversation's digest first when it has one, as ``view --digest --format openai``."""
    params: dict[str, str | int] = {"format": "openai", "digest": "true"}
    if thread is not None:
        params["thread"] = thread
    answer = httpx.get(
        fx.server.url + "/v1/desks/eng/model",
        params=params,
        headers={"Authorization": "Bearer " + fx.secrets[who]},
        timeout=30,
    )
    answer.raise_for_status()
    value = answer.json()
    assert isinstance(value, list) and value, "a view with turns"
    return value


FOLDED = "Quokka"
"""A word of each row digest_scene posts before the rows it leaves live."""


def digest_scene(fx: Fixture) -> str:
    """Fills the channel until its history folds (the service's policy: the newest 30 of
    its qualifying rows stay live, and 20 more fold), folds it now, and returns the
    digest's tag, as the service renders it for a model."""
    ana = fx.desk("ana")
    for n in range(20):
        ana.post(f"Folded note {n}: {FOLDED} checks")
    for n in range(30):
        ana.post(f"Live note {n}")
    for _ in range(600):  # a background fold may overtake the operator's and store the digest
        answer = httpx.post(
            fx.server.url + "/v1/desks/eng/digest",
            headers={"Authorization": "Bearer " + fx.secrets["operator"]},
            timeout=30,
        ).raise_for_status()
        if answer.json().get("digest"):
            break
        time.sleep(0.05)
    rendered = fx.desk("triage").view(rendered=True, digest=True).rendered
    assert rendered is not None and rendered.digest and FOLDED in rendered.digest, "a digest of the folded rows"
    return rendered.digest


def newest(fx: Fixture, thread: int | None = None) -> models.Message:
    """The desk's newest row of the channel or a thread, as the operator sees it."""
    messages = fx.desk("operator").view(thread=thread).messages or []
    return messages[-1]
