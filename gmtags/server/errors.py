"""OpenAI-style error replies: a status and `{"error": {"message", "type", "code"}}`."""

from __future__ import annotations

from typing import Any

from starlette.responses import JSONResponse


def error_body(message: str, kind: str, code: str | int | None = None) -> dict[str, Any]:
    """The JSON body of an OpenAI-style error."""
    return {"error": {"message": message, "type": kind, "param": None, "code": code}}


def error_response(
    status: int, message: str, kind: str, code: str | int | None = None
) -> JSONResponse:
    """An OpenAI-style error reply with `status`."""
    return JSONResponse(error_body(message, kind, code), status_code=status)
