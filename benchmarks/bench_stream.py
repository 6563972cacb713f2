"""Speed of the stream filter (gmtags/stream): the whole stream against `process()`.

A ~20 KB reply with a few tags (a check, sheet commands, clock ticks, inline
and on lines of their own) is fed in 4-character chunks, in receipt and
display mode. Issue 16, goal 2: the whole stream (a new processor, every
`feed`, `close`) within 1.5× `process()` on the whole text, and a p99 per
chunk of at most 20 µs.

Two kinds of run, so that timing each chunk does not weigh on the whole:
- the floors: a `feed` that only returns its chunk, called once per chunk
  (what the stream costs at least in CPython, whatever the filter does), and
  one that also does the least a right filter must do with every chunk: check
  that it is text, keep it for the result (joined at the end), look for `[`;
- the whole stream, best of ROUNDS, interleaved with `process()` in the same
  rounds (this machine is shared: a ratio within one run is what holds);
- µs per `feed` call (median, p99, max over every chunk of RUNS runs), and
  what the slowest chunks hold.
"""

from __future__ import annotations

import json
import statistics
import time
from collections import Counter
from pathlib import Path

from gmtags import Snapshot, StreamProcessor, load_ruleset, process
from gmtags.limits import DEFAULT_LIMITS
from gmtags.tags.scan import find_spans

ROOT = Path(__file__).resolve().parent.parent
RULESET = load_ruleset(
    json.loads((ROOT / "fixtures/rulesets/sheets/five-torches.json").read_text(encoding="utf-8"))
)
START = Snapshot.model_validate(
    {
        "gameCharacterCards": {"Ada": {"abilities": {"con": 14}, "fields": {"level": 5}}},
        "rulesetClocks": [{"name": "Alarm", "size": 12, "filled": 0}],
    }
)
PARAGRAPH = (
    "The lantern gutters as Ada sets her shoulder to the gate [OOC: she is tired]. "
    "Somewhere below, a bell starts ringing, and the rain on the road [1] turns to “sleet”. "
    "Élise counts the steps — 12, 13 — and waits.\r\n"
)
TAGS = [
    '[skill_check: skill="athletics" dc="12" who="Ada"]',
    '[sheet: op="spend" pool="hp" amount="2" who="Ada"]',
    '[clock: name="Alarm" tick="1"]',
]
CHUNK = 4
ROUNDS = 15
RUNS = 5
GOAL_RATIO = 1.5
GOAL_P99_US = 20.0
MODES = (("receipts", False), ("display", True))


def reply() -> str:
    """About 20 KB: paragraphs with a tag inline every twenty-fifth one, tag-only lines too."""
    parts: list[str] = []
    i = 0
    while sum(len(p.encode()) for p in parts) < 20_000:
        parts.append(PARAGRAPH)
        if i % 25 == 12:
            parts.append(f"She braces. {TAGS[i % 3]} Then on.\n{TAGS[(i + 1) % 3]}\n")
        i += 1
    return "".join(parts)


def whole_stream(chunks: list[str], display: bool) -> float:
    """Seconds for one whole stream: a new processor, every chunk fed, closed."""
    begin = time.perf_counter()
    processor = StreamProcessor(RULESET, START, 1, display=display)
    feed = processor.feed
    for piece in chunks:
        feed(piece)
    processor.close()
    return time.perf_counter() - begin


class Echo:
    """A filter that only returns each chunk: what any per-chunk Python `feed` costs at least."""

    def feed(self, chunk: str) -> str:
        return chunk


class Keep:
    """A filter that checks, keeps and looks into each chunk: the least a right one does."""

    def __init__(self) -> None:
        self.chunks: list[str] = []

    def feed(self, chunk: str) -> str:
        if type(chunk) is str and "[" not in chunk:
            self.chunks.append(chunk)
            return chunk
        raise ValueError("Keep only takes narration")

    def close(self) -> str:
        return "".join(self.chunks)


def echo_stream(chunks: list[str]) -> float:
    """Seconds for feeding every chunk to `Echo`."""
    begin = time.perf_counter()
    feed = Echo().feed
    for piece in chunks:
        feed(piece)
    return time.perf_counter() - begin


def keep_stream(chunks: list[str]) -> float:
    """Seconds for feeding every chunk (its `[` made narration) to `Keep`, and joining them."""
    plain = [piece.replace("[", "(") for piece in chunks]
    begin = time.perf_counter()
    keep = Keep()
    feed = keep.feed
    for piece in plain:
        feed(piece)
    keep.close()
    return time.perf_counter() - begin


def whole_process(text: str) -> float:
    """Seconds for `process()` on the whole text."""
    begin = time.perf_counter()
    process(text, RULESET, START, seed=1)
    return time.perf_counter() - begin


def per_chunk(chunks: list[str], display: bool) -> list[float]:
    """µs per `feed` call, chunk by chunk, for one stream."""
    processor = StreamProcessor(RULESET, START, 1, display=display)
    feed = processor.feed
    clock = time.perf_counter_ns
    timings: list[float] = []
    for piece in chunks:
        begin = clock()
        feed(piece)
        timings.append((clock() - begin) / 1000)
    processor.close()
    return timings


def kinds(text: str, chunks: list[str]) -> list[str]:
    """What each chunk holds: a tag's closing `]`, tag text, a stray `[`, or narration."""
    spans = list(find_spans(text, DEFAULT_LIMITS))
    out: list[str] = []
    pos = 0
    for piece in chunks:
        end = pos + len(piece)
        if any(pos < span.end <= end for span in spans):
            out.append("tag end")
        elif any(span.start < end and pos < span.end for span in spans):
            out.append("in a tag")
        elif "[" in piece:
            out.append("stray [")
        else:
            out.append("narration")
        pos = end
    return out


def main() -> None:
    text = reply()
    chunks = [text[i : i + CHUNK] for i in range(0, len(text), CHUNK)]
    result = process(text, RULESET, START, seed=1)
    size = len(text.encode()) / 1000
    print(
        f"reply: {size:.1f} KB, {len(result.receipts)} tags, {len(chunks)} chunks of {CHUNK} chars"
    )

    best = {"process": float("inf"), "echo": float("inf"), "keep": float("inf")}
    best |= {label: float("inf") for label, _ in MODES}
    for _ in range(ROUNDS):
        best["process"] = min(best["process"], whole_process(text))
        best["echo"] = min(best["echo"], echo_stream(chunks))
        best["keep"] = min(best["keep"], keep_stream(chunks))
        for label, display in MODES:
            best[label] = min(best[label], whole_stream(chunks, display))
    reference = best["process"]
    print(f"process() on the whole text: {reference * 1e3:6.2f} ms (best of {ROUNDS})")
    print(
        f"floor: {len(chunks)} calls of a feed that returns its chunk: {best['echo'] * 1e3:6.2f} ms"
        f" ({best['echo'] / reference:.2f}× process; process + floor"
        f" = {(reference + best['echo']) / reference:.2f}×); that also checks, keeps and looks"
        f" into it: {best['keep'] * 1e3:6.2f} ms ({best['keep'] / reference:.2f}×; process + it"
        f" = {(reference + best['keep']) / reference:.2f}×)"
    )
    for label, _ in MODES:
        ratio = best[label] / reference
        verdict = "met" if ratio <= GOAL_RATIO else "not met"
        print(
            f"stream, {label:8}: whole stream {best[label] * 1e3:6.2f} ms vs process()"
            f" {reference * 1e3:6.2f} ms = {ratio:.2f}× (goal ≤ {GOAL_RATIO}×: {verdict})"
        )

    kind = kinds(text, chunks)
    for label, display in MODES:
        runs = [per_chunk(chunks, display) for _ in range(RUNS)]
        timings = sorted(t for run in runs for t in run)
        p99 = timings[int(len(timings) * 0.99)]
        slowest = Counter(
            kind[i] for run in runs for i, t in enumerate(run) if t >= p99
        ).most_common()
        worst = max(range(len(chunks)), key=lambda i: statistics.median(r[i] for r in runs))
        print(
            f"stream, {label:8}: {statistics.median(timings):5.2f} µs median,"
            f" {p99:5.2f} µs p99 (goal ≤ {GOAL_P99_US:.0f}: "
            f"{'met' if p99 <= GOAL_P99_US else 'not met'}), max {timings[-1]:6.1f} µs per chunk;"
            f" the slowest 1%: {', '.join(f'{n} {k}' for k, n in slowest)};"
            f" slowest chunk {chunks[worst]!r} ({kind[worst]})"
        )


if __name__ == "__main__":
    main()
