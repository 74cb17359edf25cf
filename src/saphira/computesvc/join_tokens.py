"""Join tokens as the compute API redeems them (the API database's repository below)."""

from __future__ import annotations

from sqlalchemy.orm import Session

from saphira.db.api import join_tokens


def redeem(session: Session, token_id: str, secret: str, by: str) -> None:
    """Use the token once, or raise ComputeTokenInvalid (unknown, forged, expired, used)."""
    join_tokens.redeem(session, token_id, secret, by)
