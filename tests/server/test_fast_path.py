"""gmtags/server/completions.py: an event the rewrite leaves as it was goes on as it came.

The fast path (`_rewritten` with the bytes `_Reader` kept) must give the
caller exactly what the full path (the event's JSON read, rewritten and
written again) gives: the same events, the same text, the same stored reply,
for any way the upstream cuts its stream. When the upstream spells its JSON
as gmtags does (compact UTF-8), the bytes are the same too.
"""

from __future__ import annotations

import asyncio
import itertools
import json
from collections.abc import Callable
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from gmtags.server.completions import _Reader, _Relay, _rewritten
from gmtags.server.demo import demo_config
from gmtags.server.errors import json_bytes
from gmtags.server.shapes.base import Shape
from gmtags.server.shapes.chat import Chat
from gmtags.server.shapes.ollama import OllamaChat
from gmtags.server.sse import DONE
from gmtags.stream import StreamProcessor

CONFIG = demo_config("http://unused/v1")
TAG = '[skill_check: skill="Ward" difficulty="Hard" who="Bram the Quiet"]'
FRAGMENTS = (
    "The lantern gutters. ",
    "Bram sets his shoulder to the gate",
    "\n",
    "\n\n",
    " ",
    TAG,
    '[clock: name="Alarm raised" tick="2"]',
    "[not a tag]",
    "*",
    "_",
    "<think>",
    "`",
    "é",
    "😀",
    "“quoted”",
    "\\",
)
Spell = Callable[[Any], bytes]


def ascii_spaced(data: Any) -> bytes:
    """JSON as Python's `json.dumps` writes it by default (what the scripted upstream sends)."""
    return json.dumps(data).encode()


SPELLINGS: tuple[Spell, ...] = (ascii_spaced, json_bytes)


def utf16_pieces(text: str, cuts: list[int]) -> list[str]:
    """`text` cut at `cuts` counted in UTF-16 code units (a pair's halves may part)."""
    units = text.encode("utf-16-le", "surrogatepass")
    points = sorted({2 * (cut % (len(units) // 2 + 1)) for cut in cuts} | {0, len(units)})
    return [
        units[start:end].decode("utf-16-le", "surrogatepass")
        for start, end in itertools.pairwise(points)
    ]


def chat_stream(
    pieces: list[str], spell: Spell, reasoning: str = "", finish_content: str | None = None
) -> bytes:
    """An OpenAI chat stream carrying `pieces` (reasoning first, when given)."""

    def chunk(delta: dict[str, Any], finish: str | None = None) -> bytes:
        data = {
            "id": "chatcmpl-1",
            "object": "chat.completion.chunk",
            "created": 0,
            "model": "m",
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
        }
        return b"data: " + spell(data) + b"\n\n"

    out = chunk({"role": "assistant", "content": ""})
    if reasoning:
        out += chunk({"reasoning_content": reasoning})
    for piece in pieces:
        out += chunk({"content": piece})
    final = {} if finish_content is None else {"content": finish_content}
    return out + chunk(final, "stop") + b"data: [DONE]\n\n"


def cut(data: bytes, cuts: list[int]) -> list[bytes]:
    points = sorted({cut % (len(data) + 1) for cut in cuts} | {0, len(data)})
    return [data[start:end] for start, end in itertools.pairwise(points)]


def relayed(chunks: list[bytes], fast: bool, shape: Shape | None = None) -> tuple[bytes, str]:
    """What the caller gets for the upstream's `chunks` (with or without the fast path), and
    the reply's text as stored."""
    shape = Chat() if shape is None else shape
    relay = _Relay(StreamProcessor(CONFIG.ruleset, CONFIG.start, seed=7))
    reader = _Reader(shape.framing)

    async def run() -> bytes:
        out = b""
        for parsed in [*(reader.feed(chunk) for chunk in chunks), reader.close()]:
            for got, raw in parsed:
                if got.data == DONE:
                    out += b"data: [DONE]\n\n"
                    continue
                out += await _rewritten(shape, relay, got, raw if fast else None)
        return out

    out = asyncio.run(run())
    relay.close()
    return out, relay.shown


def events(body: bytes) -> list[Any]:
    """The data of each SSE event written by `frame`, as JSON values."""
    parts = body.split(b"\n\n")
    assert parts[-1] == b""
    values = []
    for part in parts[:-1]:
        assert part.startswith(b"data: ") and b"\n" not in part
        data = part[6:]
        values.append(DONE if data == b"[DONE]" else json.loads(data))
    return values


def text_of(values: list[Any]) -> str:
    return "".join(
        value["choices"][0]["delta"].get("content") or ""
        for value in values
        if isinstance(value, dict)
    )


class TestSameAsTheFullPath:
    @settings(max_examples=150, deadline=None)
    @given(
        st.lists(st.sampled_from(FRAGMENTS), min_size=1, max_size=12),
        st.lists(st.integers(min_value=0), max_size=30),
        st.lists(st.integers(min_value=0), max_size=30),
        st.sampled_from(SPELLINGS),
    )
    def test_any_chunking(
        self, fragments: list[str], deltas: list[int], cuts: list[int], spell: Spell
    ) -> None:
        """For any reply cut into any deltas (by UTF-16 units) and any cut of the bytes, the
        fast path gives the full path's events, text and stored reply; the same bytes when the
        upstream spells JSON as gmtags does."""
        stream = chat_stream(utf16_pieces("".join(fragments), deltas), spell)
        fast, fast_text = relayed(cut(stream, cuts), fast=True)
        slow, slow_text = relayed(cut(stream, cuts), fast=False)
        assert events(fast) == events(slow)
        assert fast_text == slow_text == text_of(events(fast))
        if spell is json_bytes:
            assert fast == slow

    def test_narration_goes_as_it_came(self) -> None:
        """Quiet narration is forwarded with the upstream's own spelling (no JSON written
        again), and a tag's events are rewritten."""
        stream = chat_stream(["The lantern ", "gutters.", " " + TAG[:20], TAG[20:]], ascii_spaced)
        fast, text = relayed([stream], fast=True)
        assert b'"content": "gutters."' in fast  # the upstream's `": "`, kept
        assert TAG not in text and 'result="' in text  # its receipt
        assert events(fast) == events(relayed([stream], fast=False)[0])


class TestEdges:
    def test_surrogate_pair_split_across_chunks(self) -> None:
        """An emoji sent as two escaped halves in two deltas arrives whole, the same on both
        paths."""
        stream = chat_stream(["Bram smiles \ud83d", "\ude00 and waits."], ascii_spaced)
        for chunks in ([stream], [bytes([b]) for b in stream]):
            fast, text = relayed(chunks, fast=True)
            slow, _ = relayed(chunks, fast=False)
            assert text == "Bram smiles 😀 and waits."
            assert events(fast) == events(slow)

    def test_tag_split_across_chunks(self) -> None:
        """A tag cut over many deltas and bytes becomes its receipt; both paths agree."""
        pieces = ["Gate. "] + [TAG[i : i + 3] for i in range(0, len(TAG), 3)] + [" On."]
        stream = chat_stream(pieces, ascii_spaced)
        chunks = cut(stream, list(range(0, len(stream), 5)))
        fast, text = relayed(chunks, fast=True)
        slow, slow_text = relayed(chunks, fast=False)
        assert TAG not in text and 'result="' in text  # its receipt
        assert events(fast) == events(slow) and text == slow_text

    def test_finish_reason_chunk_carries_what_was_held(self) -> None:
        """A reply ending inside a held-back span: the `finish_reason` chunk carries the rest,
        on both paths."""
        stream = chat_stream(["Bram waits ", "[not a ta"], ascii_spaced, finish_content="g]")
        fast, text = relayed([stream], fast=True)
        slow, _ = relayed([stream], fast=False)
        assert events(fast) == events(slow)
        assert text == "Bram waits [not a tag]"
        final = [v for v in events(fast) if isinstance(v, dict)][-1]
        assert final["choices"][0]["finish_reason"] == "stop"

    def test_reasoning_fields_untouched(self) -> None:
        """Reasoning (with brackets a tag could start with) passes as it came on the fast path,
        never fed to the processor."""
        reasoning = "Maybe [skill_check: skill=Ward]? <think>"
        stream = chat_stream(["Bram nods."], ascii_spaced, reasoning=reasoning)
        fast, text = relayed([stream], fast=True)
        got = [
            v["choices"][0]["delta"].get("reasoning_content")
            for v in events(fast)
            if isinstance(v, dict)
        ]
        assert reasoning in got and text == "Bram nods."
        assert events(fast) == events(relayed([stream], fast=False)[0])

    def test_multi_line_data_is_written_again(self) -> None:
        """An event whose data spans lines cannot go as it came (it would break the framing):
        it is written on one line."""
        stream = b'data: {"choices":[{"index":0,\ndata: "delta":{"content":"Hi."}}]}\n\n'
        fast, text = relayed([stream + b"data: [DONE]\n\n"], fast=True)
        assert text == "Hi." and len(events(fast)) == 2

    def test_ndjson_closing_line(self) -> None:
        """Ollama's last line, which the shape completes with a message, is written again."""
        lines = [
            {
                "model": "m",
                "message": {"role": "assistant", "content": "Bram [not a"},
                "done": False,
            },
            {"model": "m", "done": True},
        ]
        body = b"".join(json.dumps(line).encode() + b"\n" for line in lines)
        fast, text = relayed([body], fast=True, shape=OllamaChat())
        slow, _ = relayed([body], fast=False, shape=OllamaChat())
        assert text == "Bram [not a"
        assert [json.loads(x) for x in fast.splitlines()] == [
            json.loads(x) for x in slow.splitlines()
        ]
