"""Speed of the sheet numbers checks read (gmtags/sheet/numbers.py).

For the five-torches fixture and the 5e reference ruleset: µs to compute every
skill and save number of one character, on a fresh `SheetValues` each round
(so nothing is memoised across rounds), through `sheet_check_number` as a
check tag would call it.
"""

from __future__ import annotations

from pathlib import Path

from timing import best_of

from gmtags import Ruleset, Snapshot, load_ruleset
from gmtags.sheet.numbers import find_check_character, sheet_check_number
from gmtags.sheet.values import SheetValues

ROOT = Path(__file__).resolve().parent.parent

CARD = {
    "abilities": {"str": 12, "dex": 17, "con": 14, "int": 9, "wis": 13, "cha": 8},
    "fields": {"level": 7, "hp_rolled": 30, "armour": "heavy"},
    "skills": {"stealth": "expertise", "perception": "proficient", "arcana": "half"},
    "saves": {"dex_save": "proficient", "int_save": "proficient"},
}
LIVE = {"marks": {"exhaustion": ["fatigue"]}, "pools": {"hp": 20}}


def every_number(ruleset: Ruleset, snapshot: Snapshot, names: list[str]) -> None:
    """One round: a fresh sheet, then the number of every skill and save."""
    character, card = find_check_character(snapshot, None)
    live = snapshot.ruleset_live.get(character.key or "")
    values = SheetValues(ruleset, card, live)
    for name in names:
        sheet_check_number(ruleset, values, character, name)


def per_sheet(path: Path, rounds: int = 200) -> tuple[float, int]:
    """µs for every skill and save number of one character, and how many there are."""
    ruleset = load_ruleset(path)
    snapshot = Snapshot.model_validate(
        {"gameCharacterCards": {"Ada": CARD}, "rulesetLive": {"Ada": LIVE}}
    )
    names = [entry.label for entry in (*ruleset.sheet.skills, *ruleset.sheet.saves)]
    seconds = best_of(5, lambda: [every_number(ruleset, snapshot, names) for _ in range(rounds)])
    return seconds / rounds * 1e6, len(names)


def main() -> None:
    for title, path in (
        ("five-torches", ROOT / "fixtures/rulesets/sheets/five-torches.json"),
        ("5e reference", ROOT / "fixtures/rulesets/reference/ruleset-5e-2014.example.json"),
    ):
        micros, count = per_sheet(path)
        print(
            f"µs to compute every skill number of the {title} fixture: "
            f"{micros:8.1f} µs ({count} skills and saves)"
        )


if __name__ == "__main__":
    main()
