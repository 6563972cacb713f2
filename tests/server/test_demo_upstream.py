"""gmtags/server/demo_upstream.py and demo.py: the scripted upstream and `serve_demo`."""

from __future__ import annotations

import threading
from typing import Any

import httpx
import pytest

from gmtags import process
from gmtags.server import demo
from gmtags.server.background import BackgroundServer
from gmtags.server.demo_upstream import DEMO_REPLIES, MODEL, ScriptedUpstream


class TestScriptedUpstream:
    def test_one_reply_per_user_turn(self) -> None:
        """The reply is chosen by the number of user messages, round and round."""
        upstream = ScriptedUpstream()
        user = {"role": "user", "content": "x"}
        assert upstream.reply_for([user]) == DEMO_REPLIES[0]
        assert upstream.reply_for([user] * 2) == DEMO_REPLIES[1]
        assert upstream.reply_for([user] * (len(DEMO_REPLIES) + 1)) == DEMO_REPLIES[0]

    def test_stream_and_whole_give_the_same_text(self) -> None:
        """The streamed deltas join into the text the non-streaming reply carries."""
        body = {"model": MODEL, "messages": [{"role": "user", "content": "x"}]}
        with BackgroundServer(ScriptedUpstream().app) as server:
            url = f"{server.url}/v1/chat/completions"
            whole = httpx.post(url, json=body, timeout=10).json()
            streamed = httpx.post(url, json={**body, "stream": True}, timeout=10).text
        assert whole["choices"][0]["message"]["content"] == DEMO_REPLIES[0]
        assert streamed.endswith("data: [DONE]\n\n")

    def test_replies_play_the_demo_ruleset(self) -> None:
        """Every canned reply's tags apply to the demo ruleset and state without a refusal."""
        config = demo.demo_config("http://127.0.0.1:1/v1")
        snapshot = config.start
        for reply in DEMO_REPLIES:
            result = process(reply, config.ruleset, snapshot, seed=1)
            assert result.receipts
            assert all(receipt.result != "refused" for receipt in result.receipts)
            snapshot = result.snapshot


class TestServeDemo:
    def test_serves_the_proxy_against_the_scripted_upstream(
        self, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        """`serve_demo` runs the proxy app with the demo ruleset in front of a live upstream."""
        replies: list[Any] = []

        def run(app: Any, host: str, port: int, log_level: str) -> None:
            with BackgroundServer(app) as proxy:
                body = {"model": MODEL, "messages": [{"role": "user", "content": "x"}]}
                replies.append(
                    httpx.post(f"{proxy.url}/v1/chat/completions", json=body, timeout=10).json()
                )

        monkeypatch.setattr("uvicorn.run", run)
        worker = threading.Thread(target=demo.serve_demo, args=("127.0.0.1", 0))
        worker.start()
        worker.join(30)
        assert not worker.is_alive()
        assert 'result="' in replies[0]["choices"][0]["message"]["content"]
