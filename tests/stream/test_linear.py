"""Time that stays linear in what a model writes (any model can write anything): a line of
thousands of tags in display, thousands of full-width heads, a broken tag whose next line
runs long.
Each bound is ten times what it takes here and a fraction of the quadratic time it replaced."""

from __future__ import annotations

import time
from functools import cache

import pytest

from gmtags import Ruleset, StreamProcessor, load_ruleset
from tests.conftest import FIXTURES


@cache
def clocks() -> Ruleset:
    return load_ruleset(FIXTURES / "rulesets" / "clocks-default.json")


def streamed_seconds(text: str, display: bool) -> float:
    processor = StreamProcessor(clocks(), seed=1, display=display)
    start = time.perf_counter()
    for i in range(0, len(text), 7):
        processor.feed(text[i : i + 7])
    processor.close()
    return time.perf_counter() - start


@pytest.mark.parametrize(
    ("text", "bound"),
    [
        ('[clock: a="1" ' * 20_000, 10.0),  # one line of tags in display: was 73 s
        ("［clock：" * 20_000, 10.0),  # full-width heads: was 22 s
        (('[clock: name="A"\n' + "a=b " * 900 + "\n") * 50, 2.0),  # was 9 s
    ],
    ids=["tags-on-one-line", "full-width-heads", "long-next-line"],
)
def test_stream_stays_linear(text: str, bound: float) -> None:
    assert streamed_seconds(text, display=True) < bound
