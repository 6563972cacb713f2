"""Speed of checks: µs per check for each resolution kind, and whole tags per second.

The comparison is with the `d20` package (avrae/d20) parsing and rolling
`1d20+5` with its parse cache defeated (a new string every call), against a
whole `[skill_check:]` tag through `process()` (scan, Lark parse, sheet
number, roll, receipt) for a 1d20+5 check. `make bench` installs d20 with
`--no-deps` in its own benchmark environment (its release pins an old
`lark-parser`); without it that line is skipped.
"""

from __future__ import annotations

import importlib.util
import random
from pathlib import Path

from timing import best_of

from gmtags import Snapshot, load_ruleset, process
from gmtags.engine.context import Context
from gmtags.engine.skill_check import apply_skill_check
from gmtags.limits import DEFAULT_LIMITS
from gmtags.tags.parse import parse_span
from gmtags.tags.receipt import ENGINE_ATTRS
from gmtags.tags.scan import find_spans

RULESETS = Path(__file__).resolve().parent.parent / "fixtures" / "rulesets"

CASES = [
    (
        "dice-sum (5e-style d20 + skill)",
        "sheets/five-torches.json",
        '[skill_check: skill="Stealth" dc="15"]',
        {"Ada": {"abilities": {"dex": 16}, "skills": {"stealth": "proficient"}}},
    ),
    (
        "roll-against (CoC d100, bonus die)",
        "checks/coc.json",
        '[skill_check: skill="Spot Hidden" bonus="+1"]',
        {"Ada": {"skills": {"spot_hidden": {"tier": "base", "bonus": 60}}}},
    ),
    (
        "dice-highest (Blades, 3 dice)",
        "sheets/crows.json",
        '[skill_check: ability="Hunt"]',
        {"Vex": {"abilities": {"hunt": 3}}},
    ),
]


def per_kind() -> None:
    rounds = 2000
    for label, path, text, cards in CASES:
        rules = load_ruleset(RULESETS / path)
        state = Snapshot.model_validate({"gameCharacterCards": cards})
        (span,) = list(find_spans(text, DEFAULT_LIMITS))
        tag = parse_span(text, span, ENGINE_ATTRS["skill_check"])
        context = Context(rules, random.Random(1), DEFAULT_LIMITS)

        def work(tag=tag, state=state, context=context) -> None:  # type: ignore[no-untyped-def]
            for _ in range(rounds):
                apply_skill_check(tag, state, context)

        seconds = best_of(5, work)
        print(f"{label:38} {seconds / rounds * 1e6:8.1f} µs per check")


def tags_per_second() -> tuple[float, float]:
    """Whole checks through `process()`: the same tag text each reply, and a new one each reply."""
    rules = load_ruleset(RULESETS / "checks/d20-naturals.json")
    state = Snapshot.model_validate({"gameCharacterCards": {"Ada": {"abilities": {"dex": 20}}}})
    text = '[skill_check: ability="Dexterity" dc="15"]'
    assert process(text, rules, state, seed=1).receipts[0].attr("modifier") == "5"
    rounds = 2000
    seconds = best_of(5, lambda: [process(text, rules, state, seed=i) for i in range(rounds)])
    rate = rounds / seconds
    print(f"{'whole tag via process(), 1d20+5':38} {rate:8.0f} tags/s ({1e6 / rate:.1f} µs)")
    # A new text each reply defeats the parse cache, as d20's bench below defeats its own.
    texts = [
        f'[skill_check: ability="Dexterity"{" " * (1 + i % 40)}dc="15"{" " * (i // 40)}]'
        for i in range(rounds)
    ]
    assert len(set(texts)) == rounds
    seconds = best_of(5, lambda: [process(t, rules, state, seed=i) for i, t in enumerate(texts)])
    fresh = rounds / seconds
    print(f"{'  a new tag text each reply':38} {fresh:8.0f} tags/s ({1e6 / fresh:.1f} µs)")
    reply = "\n".join([text] * 40)
    seconds = best_of(3, lambda: [process(reply, rules, state, seed=i) for i in range(50)])
    print(f"{'  in replies of 40 checks':38} {50 * 40 / seconds:8.0f} tags/s")
    seconds = best_of(5, lambda: [random.Random(i) for i in range(rounds)])
    print(
        f"{'  of which random.Random(seed) alone':38} {rounds / seconds:8.0f} /s"
        f" ({seconds / rounds * 1e6:.1f} µs: every reply seeds one)"
    )
    return rate, fresh


def d20_rate() -> float | None:
    if importlib.util.find_spec("d20") is None:
        print("d20 not installed: skipped (make bench installs it)")
        return None
    import d20  # type: ignore[import-not-found]

    rounds = 2000
    # A new string each call defeats d20's parse cache, as a fresh model reply would.
    exprs = [f"{' ' * (i % 40)}1d20+5{' ' * (i // 40)}" for i in range(rounds)]
    seconds = best_of(5, lambda: [d20.roll(e) for e in exprs])
    rate = rounds / seconds
    print(f"{'d20.roll(new 1d20+5 string)':38} {rate:8.0f} rolls/s ({1e6 / rate:.1f} µs)")
    return rate


def main() -> None:
    per_kind()
    ours, fresh = tags_per_second()
    theirs = d20_rate()
    if theirs:
        print(f"{'ratio gmtags / d20 (goal: 2×)':38} {ours / theirs:8.2f}×")
        print(f"{'  a new tag text each reply':38} {fresh / theirs:8.2f}×")


if __name__ == "__main__":
    main()
