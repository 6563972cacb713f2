"""`save=` rolls the ruleset's saving throw in every kind that reads saves (issue 28).

000, "Tipos de resolución": a save, like a skill, is one number, its ability's
modifier plus its training tier (`flat`, or `multiplier` × the proficiency
bonus); dice-sum adds it to the dice, dice-highest throws that many dice, and
roll-against reads it as the target. Each expected number below is worked out
from the ruleset file and the card, never written in.
"""

from __future__ import annotations

import json
import math
from functools import cache
from typing import Any

from gmtags import Ruleset
from tests.checks.conftest import CHECKS, attrs, check, ruleset, snapshot

FIVE_E = "reference/ruleset-5e-2014.example.json"
ROLL_AGAINST = "checks/saves-roll-against.json"
DICE_HIGHEST = "checks/saves-dice-highest.json"


@cache
def data(name: str) -> Any:
    """The ruleset file as written."""
    return json.loads((CHECKS / name).read_text())


def _by_id(entries: list[Any], wanted: str) -> Any:
    return next(entry for entry in entries if entry["id"] == wanted)


def _ability_mod(file: Any, score: int) -> int:
    """000 `abilityModifier`: `identity` is the score, `floorHalfMinusTen` the 5e rule."""
    op = file["resolution"]["abilityModifier"]["op"]
    if op == "identity":
        return score
    assert op == "floorHalfMinusTen", op
    return math.floor((score - 10) / 2)


def _proficiency_bonus(file: Any, card: Any) -> int:
    """000 `proficiency.bonus`: the derived value it names, a step table over a field."""
    named = file["resolution"]["proficiency"]["bonus"]["derived"]
    derived = _by_id(file["sheet"]["derived"], named)
    assert derived["op"] == "stepTable", derived
    level = card["fields"][derived["from"]["field"]]
    return int(max(value for at, value in derived["table"] if at <= level))


def _tier_bonus(file: Any, card: Any, tier_id: str | None) -> int:
    """000 `proficiencyTiers`: the first tier for an untrained save; `flat` plus `multiplier`
    × the proficiency bonus, rounded down where the tier says so."""
    tiers = file["resolution"]["proficiencyTiers"]
    tier = _by_id(tiers, tier_id) if tier_id is not None else tiers[0]
    multiplier = tier.get("multiplier", 0)
    scaled = multiplier * _proficiency_bonus(file, card) if multiplier else 0
    rounded = math.floor(scaled) if tier.get("round") == "down" else round(scaled)
    return int(rounded + tier.get("flat", 0))


def expected_save(name: str, card: Any, save_id: str) -> int:
    """The number a save of this card rolls, read from the ruleset file (000, 002)."""
    file = data(name)
    save = _by_id(file["sheet"]["saves"], save_id)
    ability = _by_id(file["sheet"]["abilities"], save["ability"])
    score = card.get("abilities", {}).get(ability["id"], ability["default"])
    stored = card.get("saves", {}).get(save_id)
    tier_id = stored["tier"] if isinstance(stored, dict) else stored
    return _ability_mod(file, score) + _tier_bonus(file, card, tier_id)


def expected_ability(name: str, card: Any, ability_id: str) -> int:
    """The number an ability check of this card rolls, read from the ruleset file."""
    file = data(name)
    ability = _by_id(file["sheet"]["abilities"], ability_id)
    return _ability_mod(file, card.get("abilities", {}).get(ability_id, ability["default"]))


def roll(rules: Ruleset, tag: str, card: Any, seed: int) -> dict[str, str | None]:
    return attrs(check(rules, tag, snapshot({"Bram Ironfoot": card}), seed))


class TestDiceSumWithProficiency:
    RULES = ruleset(FIVE_E)
    CARD: Any = {
        "abilities": {"dex": 16, "con": 14},
        "fields": {"level": 5},
        "saves": {"dex_save": {"tier": "proficient"}},
    }

    def test_save_adds_ability_and_proficiency(self) -> None:
        """5e: `save="Dexterity"` adds the Dexterity modifier and the proficiency bonus of a
        proficient save (the Dexterity save), not the Dexterity check's modifier alone."""
        want = expected_save(FIVE_E, self.CARD, "dex_save")
        assert want != expected_ability(FIVE_E, self.CARD, "dex")
        out = roll(self.RULES, '[skill_check: save="Dexterity" dc="15"]', self.CARD, 3)
        assert out["modifier"] == str(want)
        assert int(out["total"] or "") == int(out["used"] or "") + want

    def test_receipt_keeps_save(self) -> None:
        """The receipt names the check under `save=`, as written, in the first place."""
        rules = self.RULES
        out = check(rules, '[skill_check: save="Dexterity" dc="15"]', snapshot({"B": self.CARD}))
        assert out.outputs[0] == ("save", "Dexterity")
        assert "skill" not in attrs(out)

    def test_untrained_save_adds_the_ability_only(self) -> None:
        """A save at the first tier adds what that tier gives (0 on 5e) to its ability's."""
        want = expected_save(FIVE_E, self.CARD, "con_save")
        out = roll(self.RULES, '[skill_check: save="Constitution" dc="15"]', self.CARD, 3)
        assert out["modifier"] == str(want) == str(expected_ability(FIVE_E, self.CARD, "con"))

    def test_every_name_of_the_save(self) -> None:
        """`save=` answers to the ability's label and short form, the save's label and id."""
        want = str(expected_save(FIVE_E, self.CARD, "dex_save"))
        for name in ("Dexterity", "DEX", "Dexterity save", "dex_save", "Dexterity saving throw"):
            out = roll(self.RULES, f'[skill_check: save="{name}" dc="15"]', self.CARD, 3)
            assert (out["modifier"], out["save"]) == (want, name)

    def test_ability_check_stays_an_ability_check(self) -> None:
        """`ability="Dexterity"` and `skill="Dexterity"` still roll the Dexterity check."""
        want = str(expected_ability(FIVE_E, self.CARD, "dex"))
        for key in ("ability", "skill"):
            out = roll(self.RULES, f'[skill_check: {key}="Dexterity" dc="15"]', self.CARD, 3)
            assert (out["modifier"], out["skill"]) == (want, "Dexterity")

    def test_save_naming_no_save_is_unknown(self) -> None:
        """`save=` never falls back to a skill or an ability: a name no save answers to is an
        unknown check, 0 from the sheet (ENGINE-NOTES §4)."""
        card = {**self.CARD, "skills": {"athletics": {"tier": "expertise"}}}
        out = roll(self.RULES, '[skill_check: save="Athletics" dc="15"]', card, 3)
        assert (out["modifier"], out["save"]) == ("0", "Athletics")

    def test_refused_save_echoes_save(self) -> None:
        """A refused save echoes the ask with its `save=` key."""
        receipt = check(self.RULES, '[skill_check: save="Dexterity" dc="Legendary"]')
        assert receipt.render() == (
            '[skill_check: save="Dexterity" dc="Legendary" result="refused" reason="unknown-dc"]'
        )


class TestRollAgainst:
    RULES = ruleset(ROLL_AGAINST)
    CARD: Any = {"abilities": {"con": 13, "dex": 9}, "saves": {"poison": "hardy"}}

    def test_save_is_the_target(self) -> None:
        """roll-against: the save's number (its ability plus its tier) is the target, the
        receipt's `dc`."""
        want = expected_save(ROLL_AGAINST, self.CARD, "poison")
        assert want != expected_ability(ROLL_AGAINST, self.CARD, "con")
        for seed in range(5):
            out = roll(self.RULES, '[skill_check: save="Poison"]', self.CARD, seed)
            assert (out["dc"], out["modifier"], out["resolution"]) == (str(want), "0", "against")
            rolled = int(out["total"] or "")
            assert out["result"] == ("success" if rolled <= want else "failure")

    def test_save_on_the_ability(self) -> None:
        """`save="Constitution"` is the only save rolled with Constitution."""
        want = str(expected_save(ROLL_AGAINST, self.CARD, "poison"))
        out = roll(self.RULES, '[skill_check: save="Constitution"]', self.CARD, 1)
        assert (out["dc"], out["save"]) == (want, "Constitution")

    def test_untrained_save(self) -> None:
        """A save at the first tier reads its ability's score alone."""
        want = expected_save(ROLL_AGAINST, self.CARD, "dodge")
        assert want == expected_ability(ROLL_AGAINST, self.CARD, "dex")
        out = roll(self.RULES, '[skill_check: save="Dodge"]', self.CARD, 1)
        assert out["dc"] == str(want)

    def test_ability_check_reads_the_score(self) -> None:
        """`ability="Constitution"` is the Constitution check: its score, no tier."""
        want = str(expected_ability(ROLL_AGAINST, self.CARD, "con"))
        out = roll(self.RULES, '[skill_check: ability="Constitution"]', self.CARD, 1)
        assert (out["dc"], out["skill"]) == (want, "Constitution")


class TestDiceHighest:
    RULES = ruleset(DICE_HIGHEST)
    CARD: Any = {"abilities": {"prowess": 2, "insight": 1}, "saves": {"resist_prowess": "rating_1"}}

    def test_save_is_the_number_of_dice(self) -> None:
        """dice-highest: the save's number (its ability plus its tier) is how many dice are
        thrown; the receipt keeps `modifier="0"` and the highest die as its total."""
        want = expected_save(DICE_HIGHEST, self.CARD, "resist_prowess")
        assert want != expected_ability(DICE_HIGHEST, self.CARD, "prowess")
        for seed in range(5):
            out = roll(self.RULES, '[skill_check: save="Prowess" dc="4"]', self.CARD, seed)
            faces = [int(face) for face in (out["rolls"] or "").split("|")]
            assert (out["dice"], len(faces), out["modifier"]) == (f"{want}d6", want, "0")
            assert out["total"] == str(max(faces)) and out["save"] == "Prowess"

    def test_untrained_save(self) -> None:
        """A save at the first tier throws its ability's rating in dice."""
        want = expected_save(DICE_HIGHEST, self.CARD, "resist_insight")
        assert want == expected_ability(DICE_HIGHEST, self.CARD, "insight")
        out = roll(self.RULES, '[skill_check: save="Insight resistance" dc="4"]', self.CARD, 2)
        assert out["dice"] == f"{want}d6"

    def test_ability_check_throws_the_rating(self) -> None:
        """`ability="Prowess"` throws the rating alone."""
        want = expected_ability(DICE_HIGHEST, self.CARD, "prowess")
        out = roll(self.RULES, '[skill_check: ability="Prowess" dc="4"]', self.CARD, 2)
        assert out["dice"] == f"{want}d6"
