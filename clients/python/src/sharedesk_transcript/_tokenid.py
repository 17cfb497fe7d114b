"""A token's public ID, from its secret."""

from __future__ import annotations

import hashlib


def token_id(secret: str) -> str:
    """The secret's public ID (tok_…), as the service computes it: a hash of its SHA-256."""
    digest = hashlib.sha256(secret.encode("utf-8")).digest()
    return "tok_" + hashlib.sha256(digest).hexdigest()[:12]
