"""The upstream model server: requests forwarded with the caller's API key, failures mapped.

The caller's `Authorization` header goes to the upstream as it came and is
never logged. An upstream that answers with an error status passes through
with that status (its OpenAI-style body kept when it has one); an upstream
that cannot be reached gives 502 and one that does not answer in time 504.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

import httpx

from gmtags.server.errors import error_body


class UpstreamError(Exception):
    """The upstream failed: the status and OpenAI-style body to answer the caller with."""

    def __init__(self, status: int, body: dict[str, Any]) -> None:
        super().__init__(status, body)
        self.status = status
        self.body = body


def _forwarded(headers: Mapping[str, str]) -> dict[str, str]:
    auth = headers.get("authorization")
    return {"Authorization": auth} if auth else {}


def failure(error: httpx.HTTPError) -> UpstreamError:
    """The error to answer with when talking to the upstream raised `error`."""
    if isinstance(error, httpx.TimeoutException):
        return UpstreamError(504, error_body("the upstream did not answer in time", "timeout"))
    if isinstance(error, httpx.ConnectError):
        return UpstreamError(502, error_body("the upstream cannot be reached", "upstream_error"))
    return UpstreamError(502, error_body("the upstream connection failed", "upstream_error"))


def _status_error(status: int, content: bytes) -> UpstreamError:
    try:
        body = json.loads(content)
    except ValueError:
        body = None
    if isinstance(body, dict) and isinstance(body.get("error"), dict):
        return UpstreamError(status, body)
    message = f"the upstream answered {status}"
    return UpstreamError(status, error_body(message, "upstream_error", status))


class Upstream:
    """An OpenAI-compatible model server at `base_url` (which includes `/v1`)."""

    def __init__(self, base_url: str, timeout: float) -> None:
        self.base_url = base_url.rstrip("/")
        self.client = httpx.AsyncClient(timeout=httpx.Timeout(timeout, connect=min(timeout, 10.0)))

    async def aclose(self) -> None:
        """Close the connection pool."""
        await self.client.aclose()

    async def models(self, headers: Mapping[str, str]) -> tuple[int, Any]:
        """`GET /models`: the upstream's status and JSON body."""
        try:
            response = await self.client.get(f"{self.base_url}/models", headers=_forwarded(headers))
        except httpx.HTTPError as error:
            raise failure(error) from None
        if response.status_code >= 400:
            raise _status_error(response.status_code, response.content)
        try:
            return response.status_code, response.json()
        except ValueError:
            raise UpstreamError(
                502, error_body("the upstream sent no JSON", "upstream_error")
            ) from None

    async def complete(self, body: Mapping[str, Any], headers: Mapping[str, str]) -> Any:
        """A non-streaming `POST /chat/completions`: the upstream's JSON reply."""
        try:
            response = await self.client.post(
                f"{self.base_url}/chat/completions", json=body, headers=_forwarded(headers)
            )
        except httpx.HTTPError as error:
            raise failure(error) from None
        if response.status_code >= 400:
            raise _status_error(response.status_code, response.content)
        try:
            return response.json()
        except ValueError:
            raise UpstreamError(
                502, error_body("the upstream sent no JSON", "upstream_error")
            ) from None

    async def stream(self, body: Mapping[str, Any], headers: Mapping[str, str]) -> httpx.Response:
        """A streaming `POST /chat/completions`, its headers read; the caller closes it."""
        request = self.client.build_request(
            "POST", f"{self.base_url}/chat/completions", json=body, headers=_forwarded(headers)
        )
        try:
            response = await self.client.send(request, stream=True)
        except httpx.HTTPError as error:
            raise failure(error) from None
        if response.status_code >= 400:
            try:
                content = await response.aread()
            except httpx.HTTPError as error:
                raise failure(error) from None
            finally:
                await response.aclose()
            raise _status_error(response.status_code, content)
        return response
