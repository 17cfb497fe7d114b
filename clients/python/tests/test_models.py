"""The models are the service's OpenAPI document: generating them again from the served
document gives the checked-in file, byte for byte."""

from __future__ import annotations

from .conftest import Fixture
from .generate import MODELS, generate, served_document


def test_models_match_the_served_openapi_document(fx: Fixture) -> None:
    want = generate(served_document(fx.server))
    assert MODELS.read_text(encoding="utf-8") == want, (
        "src/sharedesk_transcript/models.py drifted from the service's OpenAPI document: "
        "run `python -m tests.generate` in clients/python"
    )
