"""Requests the proxy forwards as they are (SPEC §7.2): what a client asks the model server that
is not a reply in the game.

- The routes of `gmtags.server.shapes.PASSED_THROUGH`: model lists
  (`GET /v1/models`, Ollama's `GET /api/tags`), a server's version and
  properties, and the helper routes SillyTavern's Text Completion calls on
  its backend (llama.cpp's `POST /tokenize`, KoboldCpp's
  `POST /api/extra/abort`, TabbyAPI's `GET /v1/model/list`, …).
- A client's background task (Open WebUI's titles, tags, follow-ups,
  queries, autocompletion: `gmtags.server.tasks`): the request goes to its
  shape's route with no instructions, its reply comes back unrewritten, and
  no node or chat is made.

The reply (its status, its `Content-Type` and its bytes, streamed as they
come) goes back to the client as the upstream sent it. A body is read no
further than `--max-body`; an upstream that cannot be reached or does not
answer in time is an error in the client's API shape (502, 504).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterable

from starlette.responses import Response, StreamingResponse

from gmtags.server.bodies import BodyError
from gmtags.server.errors import json_response
from gmtags.server.shapes import Shape
from gmtags.server.upstream import (
    UPSTREAM_FAILED,
    Upstream,
    UpstreamError,
    body_chunks,
    failure,
    forwarded,
)

KEPT_REPLY_HEADERS = ("content-type", "cache-control")
"""The upstream reply's headers a passed-through request gets back."""


async def relay(
    upstream: Upstream,
    shape: Shape | None,
    method: str,
    route: str,
    content: bytes | None,
    headers: Iterable[tuple[bytes, bytes]],
    reply_headers: dict[str, str] | None = None,
) -> Response:
    """Send `method route` upstream as it came and stream the reply back as it comes; `shape`
    (None: a route of no shape) says which auth header a key on the server goes in."""
    sent = forwarded(headers, shape, upstream.key)
    if content is not None:
        sent.append((b"content-type", b"application/json"))
    try:
        response = await upstream.send(method, route, content, sent)
    except UPSTREAM_FAILED as error:
        raise failure(error) from None
    kept = {name: value for name in KEPT_REPLY_HEADERS if (value := response.headers.get(name))}

    async def body() -> AsyncIterator[bytes]:
        try:
            async for chunk in body_chunks(response):
                yield chunk
        except UPSTREAM_FAILED:
            return  # the upstream broke off: the client sees its stream end
        finally:
            response.release()

    media = kept.pop("content-type", None)
    return StreamingResponse(
        body(),
        status_code=response.status,
        headers={**kept, **(reply_headers or {})},
        media_type=media,
    )


def refused(shape: Shape, error: UpstreamError | BodyError) -> Response:
    """The error of a passed-through request, in the client's API shape."""
    if isinstance(error, BodyError):
        return json_response(shape.error_body(error.message, "invalid_request_error"), error.status)
    return json_response(error.body(shape), error.status)
