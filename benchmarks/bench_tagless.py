"""`process()` on 5 MB of narration without tags, against gmtags before tag recovery.

Issue 28: reading the spellings models write (SPEC §2.1: variant names,
full-width brackets, wrapping, code fences, reasoning) must not slow the
narration that holds no tag. Goal: within 1.2× of gmtags at `BASELINE`, the
last commit before recovery, measured in one run: the baseline is checked out
into a temporary git worktree, and each round times both, one after the other,
in two child processes on the same text (best of ROUNDS each).

The text is the pipeline benchmark's (`run.py`): narration with stray brackets
(`[OOC: …]`, `[1]`), accents and dashes, plus `*actions*`, an `_aside_`, a
`<b>` and an inline `code` span, which the recovery looks at and lets pass.
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BASELINE = "957fc19"
"""The last commit before issue 28's recovery step."""
ROUNDS = 7
GOAL = 1.2

CHILD = r"""
import json, sys, time
sys.path.insert(0, sys.argv[1])
from gmtags import load_ruleset, process
ruleset = load_ruleset(json.loads(open(sys.argv[2], encoding="utf-8").read()))
paragraph = (
    "The lantern gutters as Bram sets his shoulder to the gate [OOC: he is tired]. "
    "*He grunts.* Somewhere below, a bell starts ringing, and the rain on the road [1] "
    "turns to sleet. Élise counts the steps — 12, 13 — and waits, _half asleep_, "
    "a <b>bold</b> idea and a `word` in her head.\n"
)
text = paragraph * (5_000_000 // len(paragraph.encode()) + 1)
assert not process(text, ruleset, seed=1).receipts
times = []
for _ in range(3):
    start = time.perf_counter()
    process(text, ruleset, seed=1)
    times.append(time.perf_counter() - start)
print(min(times))
"""


def _time(tree: Path) -> float:
    ruleset = ROOT / "fixtures/rulesets/clocks-default.json"
    out = subprocess.run(
        [sys.executable, "-c", CHILD, str(tree), str(ruleset)],
        check=True,
        capture_output=True,
        text=True,
    )
    return float(out.stdout)


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp) / "base"
        subprocess.run(
            ["git", "-C", str(ROOT), "worktree", "add", "--detach", "-q", str(base), BASELINE],
            check=True,
        )
        try:
            now, then = [], []
            for _ in range(ROUNDS):
                then.append(_time(base))
                now.append(_time(ROOT))
        finally:
            subprocess.run(
                ["git", "-C", str(ROOT), "worktree", "remove", "--force", str(base)], check=True
            )
    ratio = min(now) / min(then)
    verdict = "met" if ratio <= GOAL else "not met"
    print(
        f"process(), 5 MB without tags: {min(now) * 1e3:6.2f} ms now vs {min(then) * 1e3:6.2f} ms "
        f"at {BASELINE} = {ratio:.2f}× (goal ≤ {GOAL}×: {verdict})"
    )


if __name__ == "__main__":
    main()
