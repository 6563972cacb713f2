"""OpenAI-style error replies, and JSON replies that any text can go out in.

An error is a status and `{"error": {"message", "type", "param", "code"}}`,
the shape OpenAI's own API and its clients (SillyTavern among them) read.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from starlette.responses import Response


def error_body(message: str, kind: str, code: str | int | None = None) -> dict[str, Any]:
    """The JSON body of an OpenAI-style error."""
    return {"error": {"message": message, "type": kind, "param": None, "code": code}}


def json_bytes(data: Any) -> bytes:
    """`data` as compact UTF-8 JSON; a lone UTF-16 surrogate half in it goes out escaped."""
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"))
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError:
        return json.dumps(data, separators=(",", ":")).encode("ascii")


def json_response(
    data: Any, status: int = 200, headers: Mapping[str, str] | None = None
) -> Response:
    """A JSON reply with `status` (see `json_bytes`)."""
    return Response(
        json_bytes(data), status_code=status, headers=headers, media_type="application/json"
    )


def error_response(
    status: int,
    message: str,
    kind: str,
    code: str | int | None = None,
    headers: Mapping[str, str] | None = None,
) -> Response:
    """An OpenAI-style error reply with `status`."""
    return json_response(error_body(message, kind, code), status, headers)
