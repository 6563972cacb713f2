"""Speed of a symbol-pool check (gmtags/checks/symbol_pool.py).

µs per 6-die Genesys roll: Brawn 3 and rank 1 (one proficiency and two
ability dice) against three difficulty dice, through `resolve_symbol_pool`
with a fresh tray each roll, as a `[skill_check:]` tag would call it; the
sheet's number is worked out once, outside the timing.
"""

from __future__ import annotations

import random
import time
from pathlib import Path

from gmtags import Snapshot, load_ruleset
from gmtags.checks.context import CheckInput
from gmtags.checks.dice import Tray
from gmtags.checks.request import CheckRequest
from gmtags.checks.symbol_pool import resolve_symbol_pool
from gmtags.limits import DEFAULT_LIMITS
from gmtags.ruleset.resolution import SymbolPool
from gmtags.sheet.numbers import check_number

ROOT = Path(__file__).resolve().parent.parent


def per_roll(rolls: int = 20_000, runs: int = 5) -> float:
    """The fastest of `runs` timings of `rolls` checks, in µs per check."""
    ruleset = load_ruleset(ROOT / "fixtures/rulesets/checks/genesys.json")
    rules = ruleset.resolution_rules
    assert isinstance(rules, SymbolPool)
    snapshot = Snapshot.model_validate(
        {
            "gameCharacterCards": {
                "Kira": {"abilities": {"brawn": 3}, "skills": {"athletics": "rank_one"}}
            }
        }
    )
    request = CheckRequest(name="Athletics", name_key="skill", dc=3)
    number = check_number(ruleset, snapshot, None, "Athletics")
    source = random.Random(2026)
    best = float("inf")
    for _ in range(runs):
        start = time.perf_counter()
        for _ in range(rolls):
            tray = Tray(source, 2 * DEFAULT_LIMITS.dice_per_roll)
            resolve_symbol_pool(rules, CheckInput(request, number, tray, DEFAULT_LIMITS))
        best = min(best, time.perf_counter() - start)
    return best / rolls * 1e6


def main() -> None:
    """Print µs per 6-die Genesys roll."""
    print(f"symbol-pool: {per_roll():.1f} µs per 6-die Genesys roll (3 pool dice vs 3 difficulty)")


if __name__ == "__main__":
    main()
