"""Reasoning is never play through the proxy (SPEC §2.1): reasoning fields and `<think>` pass
through untouched and nothing in them is applied."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from openai.types.chat import ChatCompletionChunk

from gmtags.history.store import HistoryStore
from gmtags.server.demo_upstream import MODEL, ScriptedUpstream
from tests.server.conftest import Proxy

FIRST = [{"role": "system", "content": "You are the GM."}, {"role": "user", "content": "I push."}]
THOUGHT = 'Maybe [clock: name="Thought" size="4"] and **[Clock: name="Thought" tick="1"]**.'
REPLY = (
    '<think>Tick it? [clock: name="Inner" size="4"]</think>The gate holds.\n'
    '[clock: name="Gate" size="4"]\n'
    "<thinking>never closed [clock: name=Inner size=6]"
)


def ask(proxy: Proxy, stream: bool, field: str) -> tuple[str, str]:
    """The reply's content and its reasoning field, as the official client reads them."""
    client = proxy.client("reasoning")
    if not stream:
        reply = client.chat.completions.create(model=MODEL, messages=FIRST)  # type: ignore[arg-type]
        message = reply.choices[0].message
        extra: dict[str, Any] = message.model_extra or {}
        return message.content or "", extra.get(field, "")
    content, reasoning = [], []
    for chunk in client.chat.completions.create(model=MODEL, messages=FIRST, stream=True):  # type: ignore[arg-type]
        if isinstance(chunk, ChatCompletionChunk) and chunk.choices:
            delta = chunk.choices[0].delta
            content.append(delta.content or "")
            reasoning.append((delta.model_extra or {}).get(field) or "")
    return "".join(content), "".join(reasoning)


@pytest.mark.parametrize("field", ["reasoning_content", "reasoning"])
@pytest.mark.parametrize("stream", [False, True])
def test_reasoning_passes_untouched_and_is_not_applied(
    make_proxy: Callable[..., Proxy], stream: bool, field: str
) -> None:
    """A tag in `reasoning_content` (DeepSeek, vLLM) or `reasoning` (OpenRouter), or in
    `<think>`/`<thinking>` (closed or not) in the content, reaches the client byte for byte
    and changes nothing; the tag outside is played."""
    upstream = ScriptedUpstream(
        replies=(REPLY,), reasoning=THOUGHT, reasoning_field=field, chunk_size=5
    )
    proxy = make_proxy(upstream)
    content, reasoning = ask(proxy, stream, field)
    assert reasoning == THOUGHT
    before, _, after = REPLY.partition('[clock: name="Gate" size="4"]')
    assert content.startswith(before) and content.endswith(after)
    assert '[clock: name="Gate" size="4" result="ok" now="0/4"]' in content
    with HistoryStore(proxy.config.db) as store:
        node = store.nodes("reasoning")[-1]
        before_reply, after_reply = store.snapshot(node.before), store.snapshot(node.after)
    names = [clock.name for clock in after_reply.ruleset_clocks]
    assert names == [*(clock.name for clock in before_reply.ruleset_clocks), "Gate"]
    assert len(node.receipts) == 1
