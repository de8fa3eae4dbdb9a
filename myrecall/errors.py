"""The one error shape for every 4xx: {"message": ..., "extra": {...}}."""

from typing import Any


class ApplicationError(Exception):
    status_code = 400

    def __init__(self, message: str, *, extra: dict[str, Any] | None = None, status_code: int | None = None):
        super().__init__(message)
        self.message = message
        self.extra = extra or {}
        if status_code is not None:
            self.status_code = status_code


class NotFound(ApplicationError):
    status_code = 404


def error_body(message: str, extra: dict[str, Any] | None = None) -> dict[str, Any]:
    return {"message": message, "extra": extra or {}}
