"""Speed of `[sheet:]` commands (gmtags/engine/sheet.py), through `process`.

A reply of 40 mixed sheet commands on the five-torches fixture (two
characters; pools, temporary points, wound marks, plain tracks, conditions,
notes, an advance, a rest for the whole party, and a few refusals), processed
from the same snapshot each round. Reports µs per command, parsing and
receipt rendering included.
"""

from __future__ import annotations

from pathlib import Path

from timing import best_of

from gmtags import Snapshot, load_ruleset, process

ROOT = Path(__file__).resolve().parent.parent
RULESET = ROOT / "fixtures/rulesets/sheets/five-torches.json"

START = {
    "gameCharacterCards": {
        "Ada": {
            "abilities": {"con": 14},
            "fields": {"level": 5, "caster": "full", "hp_rolled": 20},
        },
        "Bram the Quiet": {"abilities": {"con": 12}, "fields": {"level": 3, "hp_rolled": 12}},
    },
    "rulesetLive": {"ada": {"pools": {"hp": 30}, "conditions": ["prone"]}},
}

COMMANDS = [
    '[sheet: op="damage" pool="hp" amount="4"]',
    '[sheet: op="temp" pool="Hit points" amount="5"]',
    '[sheet: who="Bram the Quiet" op="damage" pool="hp" amount="6"]',
    '[sheet: op="spend" pool="First-level spell slots" amount="1"]',
    '[sheet: op="damage" track="exhaustion" kind="fatigue" amount="1"]',
    '[sheet: op="track" track="death_saves" by="1"]',
    '[sheet: op="condition" condition="prone" state="off"]',
    '[sheet: op="condition" condition="Poisoned"]',
    '[sheet: op="note" field="concentration" value="Bless"]',
    '[sheet: op="heal" pool="hp" amount="3"]',
    '[sheet: who="bram the quiet" op="spend" pool="hit dice" amount="1"]',
    '[sheet: op="spend" pool="mana" amount="1"]',
    '[sheet: op="advance" field="hp_rolled" by="1"]',
    '[sheet: who="party" op="spend" pool="hp" amount="1"]',
    '[sheet: op="damage" track="exhaustion" amount="-1"]',
    '[sheet: op="track" track="death_saves" to="0"]',
    '[sheet: op="temp" pool="hit_dice" amount="1"]',
    '[sheet: op="restore" pool="slot_1" amount="1"]',
    '[sheet: who="Zed" op="spend" pool="hp" amount="1"]',
    '[sheet: who="party" op="rest" rest="Long rest"]',
]
REPLY = "\n".join(COMMANDS * 2)


def main() -> None:
    ruleset = load_ruleset(RULESET)
    start = Snapshot.model_validate(START)
    count = len(COMMANDS) * 2
    result = process(REPLY, ruleset, start, seed=1)
    assert len(result.receipts) == count and all(
        r.reason != "internal-error" for r in result.receipts
    )
    rounds = 20
    seconds = best_of(5, lambda: [process(REPLY, ruleset, start, seed=1) for _ in range(rounds)])
    micros = seconds / (rounds * count) * 1e6
    print(f"[sheet:] command, five-torches, {count} mixed: {micros:8.1f} µs per command")


if __name__ == "__main__":
    main()
