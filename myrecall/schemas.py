from typing import Any

from ninja import Schema


class ErrorOut(Schema):
    message: str
    extra: dict[str, Any]
