"""What naming a reply by its first words costs as it is stored (gmtags.history.excerpt).

The proxy makes each reply's excerpt when it stores the reply, on the path of every
streamed reply, so it is measured beside the fingerprint made at the same moment:

    python benchmarks/bench_excerpt.py

Each text is a new one (a number in front), so nothing the scanner keeps by text helps.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from gmtags.history.excerpt import excerpt
from gmtags.history.fingerprint import fingerprint

NARRATION = "The lantern gutters as Bram sets his shoulder to the gate. " * 10
CHECK = '[skill_check: skill="Ward" dc="2" who="Bram" rolls="3|4" total="8" result="success"]\n'
REPLY = (NARRATION + CHECK) * 6
"""About 4 kB: six paragraphs of narration, each ending in a check's receipt."""
COUNT = 2000


def per_reply(make: Callable[[str], object]) -> float:
    """Microseconds `make` takes on one new reply, over `COUNT` of them."""
    texts = [f"{n} {REPLY}" for n in range(COUNT)]
    started = time.perf_counter()
    for text in texts:
        make(text)
    return (time.perf_counter() - started) / COUNT * 1e6


def main() -> None:
    excerpt_us = per_reply(excerpt)
    print_us = per_reply(fingerprint)
    print(f"bench_excerpt: a {len(REPLY)}-character reply, {COUNT} new texts")
    print(f"  excerpt     {excerpt_us:7.1f} µs")
    print(f"  fingerprint {print_us:7.1f} µs")
    print(f"  excerpt / fingerprint {excerpt_us / print_us:.2f}x")


if __name__ == "__main__":
    main()
