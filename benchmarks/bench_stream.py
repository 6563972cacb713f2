"""Speed of the stream filter (gmtags/stream): overhead per chunk against `process()`.

A ~20 KB reply with a few tags (a check, sheet commands, clock ticks) is fed
in 4-character chunks, in receipt and display mode. Reported: µs per `feed`
call (median and p99 over every chunk of five runs), the whole stream
(feeds + close) per reply, and `process()` on the whole text for reference.
"""

from __future__ import annotations

import json
import statistics
import time
from pathlib import Path

from gmtags import Snapshot, StreamProcessor, load_ruleset, process

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
RUNS = 5


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


def stream_once(text: str, display: bool) -> tuple[list[float], float]:
    """Feed `text` in chunks; µs per feed, and seconds for the whole stream."""
    processor = StreamProcessor(RULESET, START, 1, display=display)
    timings: list[float] = []
    clock = time.perf_counter_ns
    begin = time.perf_counter()
    for i in range(0, len(text), CHUNK):
        piece = text[i : i + CHUNK]
        t0 = clock()
        processor.feed(piece)
        timings.append((clock() - t0) / 1000)
    processor.close()
    return timings, time.perf_counter() - begin


def main() -> None:
    text = reply()
    chunks = -(-len(text) // CHUNK)
    whole = float("inf")
    for _ in range(RUNS):
        begin = time.perf_counter()
        result = process(text, RULESET, START, seed=1)
        whole = min(whole, time.perf_counter() - begin)
    size = len(text.encode()) / 1000
    print(f"reply: {size:.1f} KB, {len(result.receipts)} tags, {chunks} chunks of {CHUNK} chars")
    print(
        f"process() on the whole text: {whole * 1e3:7.2f} ms"
        f" ({whole / chunks * 1e6:.2f} µs per chunk's share)"
    )
    for label, display in (("receipts", False), ("display", True)):
        timings: list[float] = []
        best = float("inf")
        for _ in range(RUNS):
            run, seconds = stream_once(text, display)
            timings.extend(run)
            best = min(best, seconds)
        timings.sort()
        p99 = timings[int(len(timings) * 0.99)]
        print(
            f"stream, {label:8}: {statistics.median(timings):6.2f} µs median,"
            f" {p99:6.2f} µs p99 per chunk; whole stream {best * 1e3:6.2f} ms"
            f" ({best / whole:.1f}× process)"
        )


if __name__ == "__main__":
    main()
