"""Speed of gmtags: run with `make bench` (not part of CI).

Reports, in one run, the pipeline numbers below and then every
`benchmarks/bench_*.py` module's `main()`:
- MB/s of `process` on a 5 MB reply with no tags (narration with stray brackets);
- MB/s of a bare `regex` search for "[" over the same text, as the reference;
- µs per `[clock:]` tag, on replies of 40 ticks.
"""

from __future__ import annotations

import contextlib
import importlib.util
import io
import json
import sys
from pathlib import Path
from typing import TextIO

import regex
from timing import best_of

from gmtags import Snapshot, load_ruleset, process
from gmtags.state.snapshot import Clock

ROOT = Path(__file__).resolve().parent.parent
RULESET = load_ruleset(json.loads((ROOT / "fixtures/rulesets/clocks-default.json").read_text()))
PARAGRAPH = (
    "The lantern gutters as Bram sets his shoulder to the gate [OOC: he is tired]. "
    "Somewhere below, a bell starts ringing, and the rain on the road [1] turns to sleet. "
    "Élise counts the steps — 12, 13 — and waits.\n"
)


def main() -> None:
    text = PARAGRAPH * (5_000_000 // len(PARAGRAPH.encode()) + 1)
    megabytes = len(text.encode()) / 1_000_000
    bracket = regex.compile(r"\[")

    seconds = best_of(5, lambda: process(text, RULESET, seed=1))
    reference = best_of(5, lambda: sum(1 for _ in bracket.finditer(text)))
    print(f"process, no tags:        {megabytes / seconds:8.1f} MB/s  ({megabytes:.1f} MB)")
    print(f"regex finditer '[' only: {megabytes / reference:8.1f} MB/s")

    ticks = '[clock: name="Alarm raised" tick="1"]\n' * 40
    start = Snapshot(rulesetClocks=(Clock(name="Alarm raised", size=12, filled=0),))
    rounds = 50
    seconds = best_of(5, lambda: [process(ticks, RULESET, start, seed=1) for _ in range(rounds)])
    print(f"[clock:] tag:            {seconds / (rounds * 40) * 1e6:8.1f} µs per tag")


class _Tee(io.TextIOBase):
    """Writes through to the real stdout and keeps every line that names a goal."""

    def __init__(self, out: TextIO) -> None:
        self.out = out
        self.goals: list[str] = []
        self._line = ""

    def write(self, text: str) -> int:
        self.out.write(text)
        self._line += text
        *lines, self._line = self._line.split("\n")
        self.goals += [line for line in lines if "goal" in line]
        return len(text)

    def flush(self) -> None:
        self.out.flush()


def run_all() -> None:
    """The pipeline benchmark, then each `bench_*.py` module beside this file; then every
    line that names one of issue 16's goals again, together."""
    tee = _Tee(sys.stdout)
    with contextlib.redirect_stdout(tee):
        main()
        for path in sorted(Path(__file__).resolve().parent.glob("bench_*.py")):
            spec = importlib.util.spec_from_file_location(path.stem, path)
            if spec is None or spec.loader is None:
                continue
            module = importlib.util.module_from_spec(spec)
            sys.modules[path.stem] = module  # (dataclasses look their module up there)
            spec.loader.exec_module(module)
            print(f"-- {path.stem}")
            module.main()
    print("-- the goals (issue 16), as printed above")
    for line in tee.goals:
        print(line.strip())


if __name__ == "__main__":
    run_all()
