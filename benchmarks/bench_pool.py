"""Speed of a dice-pool check (gmtags/checks/dice_pool.py), through `process`.

A reply of 40 checks on the exWoD-like fixture, each a 10-die pool (Sinew 5
with Nerve 5) with tens exploding, ones cancelling and the `careful` re-throw
of faces up to 6, processed from the same snapshot each round. Reports µs per
check, parsing and receipt rendering included.
"""

from __future__ import annotations

from pathlib import Path

from timing import best_of

from gmtags import Snapshot, load_ruleset, process

ROOT = Path(__file__).resolve().parent.parent
RULESET = ROOT / "fixtures/rulesets/checks/exwod.json"
START = {"gameCharacterCards": {"Bram": {"abilities": {"sinew": 5, "nerve": 5}}}}
CHECK = '[skill_check: ability="Sinew" with="Nerve" dc="3" reroll="careful"]'
COUNT = 40
REPLY = "\n".join([CHECK] * COUNT)


def main() -> None:
    ruleset = load_ruleset(RULESET)
    start = Snapshot.model_validate(START)
    result = process(REPLY, ruleset, start, seed=1)
    assert len(result.receipts) == COUNT
    assert all(dict(r.outputs).get("pool") == "10" for r in result.receipts)
    rounds = 20
    seconds = best_of(5, lambda: [process(REPLY, ruleset, start, seed=s) for s in range(rounds)])
    micros = seconds / (rounds * COUNT) * 1e6
    print(f"[skill_check:] dice-pool, 10 dice, explode+cancel+reroll: {micros:8.1f} µs per check")


if __name__ == "__main__":
    main()
