from typing import Any

from ninja import Schema


class ErrorOut(Schema):
    message: str
    extra: dict[str, Any]


def responses(answers: dict, *errors: int) -> dict:
    """An operation's documented answers: its own, the error codes it names, and the two every
    operation can give: 400 (input not as its schema says) and 401 (no token or login)."""
    return {**answers, **{code: ErrorOut for code in (400, 401, *errors)}}
