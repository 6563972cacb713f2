"""Speed of the strict JSON reader (gmtags/jsonfile.py) on a 5 MB chat and a 1 MiB body.

`loads` refuses what `json` reads silently (SPEC §8: NaN, huge integers, deep
nesting, a repeated key, and with `surrogates=False` a lone surrogate half).
Reports, best of several runs interleaved so the load of the machine falls on
every way alike, the time to read `benchmarks/bench_transcript.py`'s 26,000-message
chat (5 MB) line by line and as one document, and a 1 MiB request body:
- plain `json.loads`, the reference;
- `loads(text, duplicates=True)`, how a chat file's lines are read (no hook on
  objects: a repeated key is kept, the last one winning);
- `loads(text)`, every other file (each object checked for a repeated key);
- `loads(text, surrogates=False)`, request bodies, rulesets and answers.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable

from bench_transcript import generate

from gmtags.jsonfile import loads

MESSAGES = 26_000
RUNS = 9


def main() -> None:
    text = generate(MESSAGES)
    lines = [line for line in text.split("\n") if line.strip()]
    document = json.dumps({"messages": [json.loads(line) for line in lines]}, ensure_ascii=False)
    body = json.dumps({"messages": [json.loads(line) for line in lines[:5_000]]})
    size = len(text.encode()) / 1e6
    print(f"jsonfile.loads: a {size:.1f} MB chat of {len(lines):,} lines; body {len(body):,} B")
    ways: dict[str, Callable[[str], object]] = {
        "json.loads": json.loads,
        "loads(duplicates=True)": lambda t: loads(t, duplicates=True),
        "loads()": loads,
        "loads(surrogates=False)": lambda t: loads(t, surrogates=False),
    }
    works: dict[tuple[str, str], Callable[[], object]] = {}
    for name, way in ways.items():
        works[(name, "chat line by line")] = lambda way=way: [way(line) for line in lines]
        works[(name, "5 MB document")] = lambda way=way: way(document)
        works[(name, "1 MiB body")] = lambda way=way: way(body)
    best = dict.fromkeys(works, float("inf"))
    for _ in range(RUNS):
        for key, work in works.items():
            start = time.process_time()
            work()
            best[key] = min(best[key], time.process_time() - start)
    for what in ("chat line by line", "5 MB document", "1 MiB body"):
        row = "  ".join(f"{name} {best[(name, what)] * 1000:6.1f}" for name in ways)
        print(f"  {what:18} ms: {row}")


if __name__ == "__main__":
    main()
