"""Speed of the character builder: `build_character` on the 5e builder sample with a full set
of answers (a half-elf wizard: every step answered), median of many builds, in ms.

Each build recomputes the whole card from the answers (SPEC §10), so this is also what a
page or the wizard pays on every change. Building on the card it gave (the next change)
is measured too, and what the page asks with each build: every step's view and what the
character so far holds back (`gmtags.builder.view`), as a ratio to the build.

    python benchmarks/bench_builder.py
"""

from __future__ import annotations

import json
import statistics
import time
from pathlib import Path

from gmtags import build_character, load_ruleset
from gmtags.builder.view import holds, views

ROOT = Path(__file__).resolve().parent.parent
RULESET = ROOT / "fixtures" / "rulesets" / "builder" / "5e-builder.json"
ANSWERS = ROOT / "fixtures" / "answers" / "5e-half-elf-wizard.json"


def median_ms(work: object, runs: int = 200) -> float:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        work()  # type: ignore[operator]
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1000


def main() -> None:
    ruleset = load_ruleset(RULESET)
    answers = json.loads(ANSWERS.read_text(encoding="utf-8"))
    card = build_character(ruleset, answers).card
    blank = median_ms(lambda: build_character(ruleset, answers))
    again = median_ms(lambda: build_character(ruleset, answers, card))
    print(f"build_character, 5e half-elf wizard, every step answered: {blank:6.2f} ms median")
    print(f"  the same, on the card it built (the next change):        {again:6.2f} ms median")
    res = build_character(ruleset, answers)
    drawn = median_ms(lambda: (views(ruleset, res), holds(ruleset, res)))
    print(f"  every step's view and holds, as the page asks with it:   {drawn:6.2f} ms median"
          f" ({drawn / blank:.2f} of a build)")  # fmt: skip


if __name__ == "__main__":
    main()
