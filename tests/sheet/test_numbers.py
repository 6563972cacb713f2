"""Tests for gmtags/sheet/numbers.py: the number a check rolls (000, 002, 004; ENGINE-NOTES §4)."""

from __future__ import annotations

import copy
import gc
import json
from functools import cache
from typing import Any

import pytest

from gmtags import Ruleset, Snapshot, load_ruleset
from gmtags.sheet import numbers
from gmtags.sheet.numbers import (
    UNKNOWN,
    CheckCharacter,
    CheckNumber,
    check_name,
    check_number,
    find_check_character,
    match_ability,
    match_check,
    sheet_check_number,
)
from gmtags.sheet.values import SheetValues
from gmtags.state.snapshot import CharacterCard
from tests.conftest import FIXTURES, REFERENCE_RULESETS

BASE: dict[str, Any] = json.loads((FIXTURES / "rulesets" / "sheet-base.json").read_text())

POOL_RESOLUTION: dict[str, Any] = {
    "kind": "dice-pool",
    "die": {"sides": 10},
    "abilityModifier": {"op": "identity"},
    "proficiencyTiers": [
        {"id": "untrained", "label": "Untrained"},
        {"id": "trained", "label": "Trained", "flat": 1},
    ],
    "pool": {"min": 1, "max": 10},
    "target": {"default": 6, "min": 6, "max": 6},
    "stances": [
        {"id": "bold", "label": "Bold", "count": "above", "skills": ["scrap"]},
        {"id": "careful", "label": "Careful", "count": "below", "skills": []},
    ],
}
"""A small dice pool with two stances, Scrap counted in the bold one."""

TEXT = {"type": "text", "maxLength": 60}
RATING = {"type": "number", "min": 0, "max": 5}

SCIENCES: dict[str, Any] = {
    "id": "sciences",
    "label": "Sciences",
    "columns": [
        {"id": "name", "label": "Name", **TEXT},
        {"id": "rating", "label": "Rating", **RATING},
    ],
    "checks": [{"id": "science", "name": "name", "rating": "rating", "ability": "heart"}],
}
"""004, "Filas que son pruebas por sí mismas": the seed's science list, one check per row."""

STEWS: dict[str, Any] = {
    "id": "stews",
    "label": "Stews",
    "columns": [
        {"id": "name", "label": "Name", **TEXT},
        {"id": "rating", "label": "Rating", **RATING},
    ],
    "checks": [
        {"id": "bold_stew", "name": "name", "rating": "rating", "label": "bold", "stance": "bold"},
        {
            "id": "careful_stew",
            "name": "name",
            "rating": "rating",
            "label": "careful",
            "stance": "careful",
        },
    ],
}
"""1.161/1.212: two checks on one list, two stances backed by one rating ("Fire stew (bold)")."""


@cache
def reference(name: str) -> Ruleset:
    return load_ruleset(REFERENCE_RULESETS / name)


@cache
def system(name: str) -> Ruleset:
    return load_ruleset(FIXTURES / "rulesets" / "sheets" / f"{name}.json")


def gravewatch() -> Ruleset:
    return reference("gravewatch.json")


def ember_roads() -> Ruleset:
    return reference("ember-roads.json")


def five_e() -> Ruleset:
    return reference("ruleset-5e-2014.example.json")


@cache
def rows_ruleset() -> Ruleset:
    """The base sheet as a dice pool with the science and stew lists."""
    data = copy.deepcopy(BASE)
    data["resolution"] = copy.deepcopy(POOL_RESOLUTION)
    data["sheet"]["lists"] = [SCIENCES, STEWS]
    return load_ruleset(data)


def inline(resolution: dict[str, Any] | None = None, **sheet: Any) -> Ruleset:
    """The base sheet with resolution keys and sheet keys replaced."""
    data = copy.deepcopy(BASE)
    data["resolution"].update(resolution or {})
    data["sheet"].update(sheet)
    return load_ruleset(data)


def snapshot(*cards: tuple[str, dict[str, Any]], live: dict[str, Any] | None = None) -> Snapshot:
    return Snapshot.model_validate({"gameCharacterCards": dict(cards), "rulesetLive": live or {}})


def bram(card: dict[str, Any], live: dict[str, Any] | None = None) -> Snapshot:
    """A snapshot whose only character, Bram the Quiet, has this card and live state."""
    return snapshot(("Bram the Quiet", card), live={"bram the quiet": live or {}})


def values(ruleset: Ruleset, card: dict[str, Any]) -> SheetValues:
    return SheetValues(ruleset, CharacterCard.model_validate(card), None)


class TestCheckName:
    @pytest.mark.parametrize(
        ("written", "expected"),
        [
            ("Sleight of Hand", "sleight of hand"),
            ("  DEX_save ", "dex save"),
            ("Fire stew (bold)", "fire stew bold"),
            ("Élan", "elan"),
            ("!!", ""),
        ],
    )
    def test_normalised(self, written: str, expected: str) -> None:
        """ENGINE-NOTES §4: lower-cased, every run of other characters one space, trimmed."""
        assert check_name(written) == expected


class TestMatchCheck:
    def test_save_by_full_name(self) -> None:
        """ENGINE-NOTES §4: saves are tried first (Gravewatch's Steel)."""
        target = match_check(gravewatch(), "Steel")
        assert (target.kind, target.id, target.ability) == ("save", "steel", "nerve")

    @pytest.mark.parametrize("written", ["Dexterity saving throw", "DEX save", "dex_save"])
    def test_save_worded_name(self, written: str) -> None:
        """A save-worded name is the only save on the ability it names (5e)."""
        assert match_check(five_e(), written).id == "dex_save"

    def test_save_worded_by_shortened_name(self) -> None:
        """A save-worded name also matches a save by its name without the suffix."""
        assert match_check(gravewatch(), "Steel saving throw").id == "steel"

    def test_save_worded_name_never_falls_back(self) -> None:
        """A save-worded name with no such save is unknown, never an ability check."""
        assert match_check(ember_roads(), "Brawn save") == UNKNOWN

    @pytest.mark.parametrize("written", ["Dexterity", "DEX", "Dexterity save", "dex_save"])
    def test_save_key_reads_saves(self, written: str) -> None:
        """A name written as `save=` is save-worded: "Dexterity" is the Dexterity save (issue
        28), where the same name as `skill=` is the Dexterity check."""
        assert match_check(five_e(), written, name_key="save").id == "dex_save"
        assert match_check(five_e(), "Dexterity").kind == "ability"

    def test_save_key_never_falls_back(self) -> None:
        """`save=` naming no save is unknown, never a skill or an ability check."""
        assert match_check(five_e(), "Athletics", name_key="save") == UNKNOWN
        assert match_check(ember_roads(), "Brawn", name_key="save") == UNKNOWN

    def test_skill_and_suffix(self) -> None:
        """Skills come next, by id, label or with " check" removed."""
        assert match_check(five_e(), "Sleight of Hand").id == "sleight_of_hand"
        assert match_check(five_e(), "sleight_of_hand").id == "sleight_of_hand"
        assert match_check(five_e(), "Athletics check").kind == "skill"

    def test_full_name_beats_shortened_name(self) -> None:
        """A skill matching the full name wins over one matching it without the suffix."""
        skills = [
            {"id": "ward", "label": "Ward", "ability": "heart"},
            {"id": "ward_check", "label": "Ward check", "ability": "brawn"},
        ]
        ruleset = inline(skills=skills)
        assert match_check(ruleset, "Ward check").id == "ward_check"
        assert match_check(ruleset, "Ward").id == "ward"

    @pytest.mark.parametrize(
        "written", ["Strength", "STR", "str", "Strength check", "Strength ability check"]
    )
    def test_ability(self, written: str) -> None:
        """Abilities come last, by id, label or short form, a suffix tried removed."""
        target = match_check(five_e(), written)
        assert (target.kind, target.id, target.label) == ("ability", "str", "Strength")

    def test_save_before_skill_before_ability(self) -> None:
        """A name a save, a skill and an ability share is the save, then the skill."""
        skills = [{"id": "grit_skill", "label": "Heart", "ability": "brawn"}]
        saves = [{"id": "steel", "label": "Brawn", "ability": "heart"}]
        ruleset = inline(skills=skills, saves=saves)
        assert match_check(ruleset, "Brawn").kind == "save"
        assert match_check(ruleset, "Heart").kind == "skill"

    def test_unknown(self) -> None:
        """ENGINE-NOTES §4: a name the sheet does not have matches nothing."""
        assert match_check(five_e(), "Basket weaving") == UNKNOWN
        assert match_check(five_e(), "  ") == UNKNOWN

    def test_skill_in_a_stance(self) -> None:
        """000: a skill listed in a pool stance carries that stance."""
        assert match_check(rows_ruleset(), "Scrap").stance == "bold"

    def test_names_cached_per_ruleset(self) -> None:
        """The name index is built once per ruleset and forgotten with it."""
        ruleset = inline()
        assert match_check(ruleset, "Scrap").id == "scrap"
        key = id(ruleset)
        assert key in numbers._INDEXES
        del ruleset
        gc.collect()
        assert key not in numbers._INDEXES


class TestMatchAbility:
    @pytest.mark.parametrize("written", ["Warmth", "wrm", "warmth", "Warmth check"])
    def test_by_id_label_or_short(self, written: str) -> None:
        """`with=` names an ability by id, label or short form."""
        ability = match_ability(gravewatch(), written)
        assert ability is not None and ability.id == "warmth"

    def test_unknown(self) -> None:
        """000: an ability the sheet does not offer is None (ignored)."""
        assert match_ability(gravewatch(), "Charm") is None
        assert match_ability(gravewatch(), "") is None


class TestRowChecks:
    def sheet(self, **lists: list[dict[str, Any]]) -> SheetValues:
        return values(rows_ruleset(), {"abilities": {"heart": 2}, "lists": lists})

    def test_row_by_name(self) -> None:
        """004, 1.161: each row is a check the GM calls by the row's name."""
        sheet = self.sheet(
            sciences=[{"name": "Science (Physics)", "rating": 3}, {"name": "Science (Biology)"}]
        )
        target = match_check(rows_ruleset(), "Science (Biology)", sheet)
        assert (target.kind, target.id, target.list, target.row) == (
            "row",
            "science",
            "sciences",
            1,
        )
        assert target.label == "Science (Biology)" and target.ability == "heart"

    def test_row_with_suffix(self) -> None:
        """A row's name with " check" after it matches the row."""
        sheet = self.sheet(sciences=[{"name": "Physics", "rating": 3}])
        assert match_check(rows_ruleset(), "Physics check", sheet).kind == "row"

    def test_labelled_checks(self) -> None:
        """004, 1.161: two checks on one list are told apart by the label after the name."""
        sheet = self.sheet(stews=[{"name": "Fire stew", "rating": 2}])
        bold = match_check(rows_ruleset(), "Fire stew (bold)", sheet)
        careful = match_check(rows_ruleset(), "fire stew careful", sheet)
        assert (bold.id, bold.label, bold.stance) == ("bold_stew", "Fire stew (bold)", "bold")
        assert (careful.id, careful.stance) == ("careful_stew", "careful")

    def test_bare_name_of_two_checks_is_unknown(self) -> None:
        """A row name two checks answer to, without a label, names no one check."""
        sheet = self.sheet(stews=[{"name": "Fire stew", "rating": 2}])
        assert match_check(rows_ruleset(), "Fire stew", sheet) == UNKNOWN

    def test_name_two_rows_share(self) -> None:
        """004, 1.161: a name two rows share is no check until one is renamed."""
        sheet = self.sheet(sciences=[{"name": "Physics"}, {"name": "physics"}])
        assert match_check(rows_ruleset(), "Physics", sheet) == UNKNOWN

    def test_sheet_entries_first(self) -> None:
        """004, 1.161: the sheet's own skills, saves and abilities are matched first."""
        sheet = self.sheet(sciences=[{"name": "Scrap", "rating": 5}, {"name": "Heart"}])
        assert match_check(rows_ruleset(), "Scrap", sheet).kind == "skill"
        assert match_check(rows_ruleset(), "Heart", sheet).kind == "ability"

    def test_nameless_rows_are_no_checks(self) -> None:
        """A row without a name is no check."""
        sheet = self.sheet(sciences=[{"rating": 4}, {"name": "  "}])
        assert match_check(rows_ruleset(), "", sheet) == UNKNOWN

    def test_row_number(self) -> None:
        """004, 1.161: a row's number is its rating plus its ability like a skill's."""
        snap = bram(
            {"abilities": {"heart": 2}, "lists": {"sciences": [{"name": "Physics", "rating": 3}]}}
        )
        result = check_number(rows_ruleset(), snap, None, "Physics")
        assert (result.kind, result.rating, result.ability_modifier) == ("row", 3, 2)
        assert (result.sheet_number, result.number, result.untrained) == (5, 5, "normal")

    def test_row_with_ability(self) -> None:
        """004, 1.161: `with=` works on a row check as on a skill."""
        card = {
            "abilities": {"heart": 2, "brawn": -1},
            "lists": {"sciences": [{"name": "Physics", "rating": 3}]},
        }
        result = check_number(rows_ruleset(), bram(card), None, "Physics", "Brawn")
        assert (result.ability, result.with_ability, result.sheet_number) == ("brawn", "brawn", 2)

    def test_row_without_ability(self) -> None:
        """A row check without an ability is its rating alone."""
        card = {"abilities": {"heart": 2}, "lists": {"stews": [{"name": "Fire stew", "rating": 4}]}}
        result = check_number(rows_ruleset(), bram(card), None, "Fire stew (careful)")
        assert (result.sheet_number, result.target.stance, result.abilities) == (4, "careful", ())

    def test_hidden_list_has_no_row_checks(self) -> None:
        """002: a list the sheet hides is not on it, so its rows are no checks."""
        data = copy.deepcopy(BASE)
        data["resolution"] = copy.deepcopy(POOL_RESOLUTION)
        data["sheet"]["lists"] = [SCIENCES | {"hideWhen": {"field": "toughness", "equals": 0}}]
        ruleset = load_ruleset(data)
        rows = {"sciences": [{"name": "Physics", "rating": 3}]}
        shown = values(ruleset, {"lists": rows})
        hidden = values(ruleset, {"lists": rows, "fields": {"toughness": 0}})
        assert match_check(ruleset, "Physics", shown).kind == "row"
        assert match_check(ruleset, "Physics", hidden) == UNKNOWN

    def test_stranger_has_no_rows(self) -> None:
        """A stranger has no rows, so a row's name is unknown for them."""
        card = {"lists": {"sciences": [{"name": "Physics", "rating": 3}]}}
        result = check_number(rows_ruleset(), bram(card), "Nobody", "Physics")
        assert result.kind == "unknown"


class TestFindCheckCharacter:
    TWO = snapshot(("Bram the Quiet", {}), ("Élise", {}))

    def test_no_who_is_the_player(self) -> None:
        """SPEC §4: an omitted (or blank) `who` is the first character."""
        character, card = find_check_character(self.TWO, None)
        assert character == CheckCharacter("character", "Bram the Quiet", "bram the quiet")
        assert card is not None
        assert find_check_character(self.TWO, "  ")[0].name == "Bram the Quiet"

    def test_who_matches_by_normalised_name(self) -> None:
        """SPEC §4: `who` matches the stored name after normalising both."""
        character, _ = find_check_character(self.TWO, "ELISE")
        assert (character.status, character.name, character.key) == ("character", "Élise", "elise")

    def test_stranger(self) -> None:
        """ENGINE-NOTES §4: a `who` matching nobody is a stranger, kept as written."""
        character, card = find_check_character(self.TWO, "Old Tom")
        assert character == CheckCharacter("stranger", "Old Tom") and card is None
        assert not character.has_sheet

    def test_ambiguous(self) -> None:
        """Two cards sharing a name, neither the player's, are ambiguous: no card, and the
        check is refused `ambiguous-character` (SPEC §2.1 over ENGINE-NOTES §4's unmodified
        roll)."""
        snap = snapshot(("Bram", {}), ("Tom", {}), ("tom", {}))
        character, card = find_check_character(snap, "TOM")
        assert (character.status, character.refusal, card) == (
            "ambiguous",
            "ambiguous-character",
            None,
        )

    def test_first_name(self) -> None:
        """SPEC §4: a name no card has is the one card whose name starts with its words."""
        snap = snapshot(("Ada", {}), ("Bram the Quiet", {}))
        character, card = find_check_character(snap, "bram")
        assert character == CheckCharacter("character", "Bram the Quiet", "bram the quiet")
        assert card is not None

    def test_first_name_of_two(self) -> None:
        """SPEC §4: two cards whose names start with it are ambiguous, `ambiguous-who`."""
        snap = snapshot(("Bram the Quiet", {}), ("Bram Stoker", {}))
        character, card = find_check_character(snap, "Bram")
        assert (character.status, character.refusal, card) == ("ambiguous", "ambiguous-who", None)

    def test_player_wins_a_shared_name(self) -> None:
        """ENGINE-NOTES §4: a name shared with the player's card is the player's."""
        snap = snapshot(("Tom", {"abilities": {"brawn": 2}}), ("tom", {}))
        character, card = find_check_character(snap, "tom")
        assert character.name == "Tom" and card is not None and card.abilities == {"brawn": 2}

    def test_no_character(self) -> None:
        """With no card and no `who` there is no character at all."""
        character, card = find_check_character(Snapshot(), None)
        assert (character, card) == (CheckCharacter("none"), None)


class TestSkillNumber:
    def test_parts(self) -> None:
        """000: ability modifier + tier bonus + free bonus (5e Stealth, proficient at level 5)."""
        card = {
            "abilities": {"dex": 17},
            "fields": {"level": 5},
            "skills": {"stealth": {"tier": "proficient", "bonus": 1}},
        }
        result = check_number(five_e(), bram(card), "Bram the Quiet", "Stealth")
        assert (result.kind, result.id, result.label) == ("skill", "stealth", "Stealth")
        assert (result.ability, result.ability_modifier) == ("dex", 3)
        assert (result.tier, result.tier_bonus, result.free_bonus) == ("proficient", 3, 1)
        assert (result.sheet_number, result.number, result.untrained) == (7, 7, "normal")
        assert result.character.name == "Bram the Quiet" and result.has_sheet

    def test_save(self) -> None:
        """A save reads like a skill with its own tiers (5e: +2 proficiency on Wisdom)."""
        card = {"abilities": {"wis": 12}, "saves": {"wis_save": "proficient"}}
        result = check_number(five_e(), bram(card), None, "Wisdom saving throw")
        assert (result.kind, result.id, result.sheet_number) == ("save", "wis_save", 3)

    def test_untrained_by(self) -> None:
        """002: `{by}` is reported and counted in the number (Ember Roads' Tinker)."""
        result = check_number(ember_roads(), bram({"abilities": {"wits": 2}}), None, "Tinker")
        assert (result.untrained, result.untrained_by, result.sheet_number) == ("by", -2, 0)

    @pytest.mark.parametrize(("skill", "rule"), [("Dig", "refuse"), ("Listen", "harder")])
    def test_untrained_word(self, skill: str, rule: str) -> None:
        """002: `refuse` and `harder` are reported; the number is the sheet's as ever."""
        result = check_number(
            gravewatch(), bram({"abilities": {"sinew": 3, "nerve": 3}}), None, skill
        )
        assert (result.untrained, result.untrained_by, result.sheet_number) == (rule, 0, 3)

    def test_trained_is_normal(self) -> None:
        """002: a trained entry rolls normally whatever its section says."""
        card = {"abilities": {"sinew": 3}, "skills": {"dig": "rating_1"}}
        result = check_number(gravewatch(), bram(card), None, "Dig")
        assert (result.untrained, result.sheet_number) == ("normal", 4)

    def test_cap_bites(self) -> None:
        """002: Gravewatch caps Soothe at the Resolve left, and says so."""
        card = {"abilities": {"warmth": 4}, "skills": {"soothe": "rating_2"}}
        result = check_number(gravewatch(), bram(card, {"pools": {"resolve": 1}}), None, "Soothe")
        assert (result.uncapped, result.cap, result.capped, result.sheet_number) == (6, 1, True, 1)

    def test_cap_holds_back_with(self) -> None:
        """002: `with=` replaces the ability before the cap and is capped again."""
        card = {"abilities": {"warmth": 1, "nerve": 5}, "skills": {"soothe": "rating_1"}}
        snap = bram(card, {"pools": {"resolve": 3}})
        plain = check_number(gravewatch(), snap, None, "Soothe")
        swapped = check_number(gravewatch(), snap, None, "Soothe", "Nerve")
        assert (plain.sheet_number, plain.capped) == (2, False)
        assert (swapped.ability, swapped.ability_modifier, swapped.uncapped) == ("nerve", 5, 6)
        assert (swapped.sheet_number, swapped.capped) == (3, True)
        assert (swapped.with_ability, swapped.with_label) == ("nerve", "Nerve")

    def test_with_replaces_the_ability(self) -> None:
        """000: 5e rolls Intimidation with Strength through `with=`."""
        card = {"abilities": {"str": 16, "cha": 8}, "skills": {"intimidation": "proficient"}}
        plain = check_number(five_e(), bram(card), None, "Intimidation")
        strong = check_number(five_e(), bram(card), None, "Intimidation", "Strength")
        assert (plain.sheet_number, strong.sheet_number) == (-1 + 2, 3 + 2)
        assert strong.abilities == ("str",)

    def test_unknown_with_is_ignored(self) -> None:
        """000: a `with=` ability the sheet does not offer is ignored."""
        card = {"abilities": {"cha": 14}}
        result = check_number(five_e(), bram(card), None, "Persuasion", "Luck")
        assert (result.with_ability, result.ability, result.sheet_number) == (None, "cha", 2)

    def test_fractional_parts_stay_exact(self) -> None:
        """A fractional free bonus is kept as it is; whole numbers are ints."""
        card = {"skills": {"scrap": {"tier": "trained", "bonus": 0.5}}}
        result = check_number(inline(), bram(card), None, "Scrap")
        assert result.sheet_number == 1.5 and isinstance(result.tier_bonus, int)


class TestAbilityNumber:
    def test_ability_check(self) -> None:
        """000: an ability check rolls the ability's modifier, with no training."""
        result = check_number(five_e(), bram({"abilities": {"str": 8}}), None, "Strength check")
        assert (result.kind, result.ability, result.sheet_number) == ("ability", "str", -1)
        assert (result.tier, result.untrained) == (None, "normal")

    def test_pool_pairs_two_abilities(self) -> None:
        """000: with `abilityPlusAbility`, `with=` adds a second ability (Nerve and Warmth)."""
        card = {"abilities": {"nerve": 3, "warmth": 2}}
        result = check_number(gravewatch(), bram(card), None, "Nerve", "Warmth")
        assert (result.second_ability, result.second_modifier) == ("warmth", 2)
        assert (result.sheet_number, result.abilities, result.with_ability) == (
            5,
            ("nerve", "warmth"),
            "warmth",
        )

    def test_pool_without_pairs_ignores_with(self) -> None:
        """000: without `abilityPlusAbility`, `with=` means nothing on an ability check."""
        card = {"abilities": {"might": 3, "wits": 2}}
        result = check_number(system("ashfall"), bram(card), None, "Might", "Wits")
        assert (result.second_ability, result.with_ability, result.sheet_number) == (None, None, 3)

    def test_sum_ignores_with(self) -> None:
        """000: on a sum ruleset `with=` adds nothing to an ability check."""
        card = {"abilities": {"str": 14, "dex": 14}}
        result = check_number(five_e(), bram(card), None, "Strength", "Dexterity")
        assert (result.sheet_number, result.with_ability) == (2, None)

    def test_computed_ability(self) -> None:
        """004, 1.156: a computed attribute rolls its computed score (crows' Insight)."""
        card = {"abilities": {"hunt": 2, "study": 1}}
        result = check_number(system("crows"), bram(card), None, "Insight")
        assert (result.id, result.sheet_number) == ("insight_rating", 2)


class TestAdjust:
    GEAR = [{"name": "Anvil", "bulk": 3}, {"name": "Rope", "bulk": 1, "packed": False}]

    def test_per_ability(self) -> None:
        """002: Ember Roads' Burden and Stance ride on every Brawn roll, not on Wits."""
        card = {"abilities": {"brawn": 1, "wits": 1}, "lists": {"gear": self.GEAR}}
        snap = bram(card, {"states": {"stance": "reckless"}})
        scrap = check_number(ember_roads(), snap, None, "Scrap")
        sneak = check_number(ember_roads(), snap, None, "Sneak")
        assert [(part.index, part.value) for part in scrap.adjust] == [(0, -1), (1, 2)]
        assert (scrap.adjust_total, scrap.sheet_number, scrap.number) == (1, 1, 2)
        assert (sneak.adjust, sneak.number) == ((), 1)

    def test_follows_with(self) -> None:
        """002: a skill rolled with an ability through `with=` takes that ability's entries."""
        card = {"abilities": {"brawn": 1, "wits": 1}, "lists": {"gear": self.GEAR}}
        sneak = check_number(ember_roads(), bram(card), None, "Sneak", "Brawn")
        assert (sneak.abilities, sneak.adjust_total) == (("brawn",), -1)

    def test_ability_pair(self) -> None:
        """002: an ability pair including a listed ability takes its entries (Gravewatch light)."""
        snap = bram({}, {"states": {"light": "out"}})
        warmth = check_number(gravewatch(), snap, None, "Warmth")
        paired = check_number(gravewatch(), snap, None, "Warmth", "Nerve")
        assert (warmth.adjust_total, paired.adjust_total) == (0, -2)
        assert paired.adjust[0].abilities == ("nerve",)

    def test_unlimited_entries_apply_everywhere(self) -> None:
        """002: an entry without `abilities` applies to every check, an unknown one too."""
        resolution = {"adjust": [{"value": {"field": "toughness"}}]}
        ruleset = inline(resolution)
        for name in ("Scrap", "Heart", "Juggling"):
            result = check_number(ruleset, bram({"fields": {"toughness": 3}}), None, name)
            assert (result.adjust_total, result.adjust[0].abilities) == (3, None)

    @pytest.mark.parametrize(("value", "expected"), [(1.5, 1), (-1.5, -1), (2.0, 2)])
    def test_total_rounds_toward_zero(self, value: float, expected: int) -> None:
        """The adjust total is a whole number, rounded toward zero, as the reference does."""
        ruleset = inline({"adjust": [{"value": {"const": value}}]})
        result = check_number(ruleset, bram({}), None, "Scrap")
        assert result.adjust_total == expected


class TestPenalty:
    def test_wound_penalty_rides_on_every_check(self) -> None:
        """002: the lowest marked level's penalty applies to every check (Gravewatch's Harm)."""
        snap = bram({"abilities": {"nerve": 3}}, {"marks": {"harm": ["tear", "knock", "knock"]}})
        for name in ("Ward", "Steel", "Nerve", "Juggling"):
            assert check_number(gravewatch(), snap, None, name).penalty == -3
        ward = check_number(gravewatch(), snap, None, "Ward")
        assert (ward.sheet_number, ward.number) == (3, 0)

    def test_not_clamped_to_the_pool(self) -> None:
        """The number is not held to `pool.min`: the resolver does that (Down is -99)."""
        snap = bram({}, {"marks": {"harm": ["tear"] * 4}})
        result = check_number(gravewatch(), snap, None, "Ward")
        assert (result.penalty, result.number) == (-99, 2 - 99)

    def test_sum_penalty(self) -> None:
        """002: on a sum the penalty is a fixed modifier (five-torches' Exhaustion)."""
        snap = bram({"abilities": {"dex": 14}}, {"marks": {"exhaustion": ["fatigue"]}})
        result = check_number(system("five-torches"), snap, None, "Acrobatics")
        assert (result.sheet_number, result.penalty, result.number) == (2, -1, 1)

    def test_no_penalty_from(self) -> None:
        """002: without `penaltyFrom` checks work as before wound tracks existed."""
        result = check_number(
            ember_roads(), bram({}, {"marks": {"strain": ["strain"] * 3}}), None, "Scrap"
        )
        assert result.penalty == 0


class TestUnknownCheck:
    def test_rolls_zero_with_penalty_and_open_adjust(self) -> None:
        """ENGINE-NOTES §4: an unknown skill reads 0, keeps the penalty, has no untrained rule."""
        snap = bram({"abilities": {"might": 4}}, {"marks": {"health": ["lethal", "lethal"]}})
        result = check_number(system("ashfall"), snap, None, "Basket weaving", "Might")
        assert (result.kind, result.sheet_number, result.untrained) == ("unknown", 0, None)
        assert (result.adjust, result.penalty, result.number) == ((), -1, -1)
        assert result.with_ability is None and result.name == "Basket weaving"


class TestNothingFromASheet:
    SNAP = bram(
        {"abilities": {"nerve": 5}, "skills": {"ward": "rating_3"}},
        {"marks": {"harm": ["tear", "tear"]}, "states": {"light": "out"}},
    )

    def expect_bare(self, result: CheckNumber) -> None:
        assert (result.sheet_number, result.adjust, result.penalty, result.number) == (0, (), 0, 0)
        assert (result.untrained, result.ability, result.tier, result.with_ability) == (
            None,
            None,
            None,
            None,
        )

    def test_stranger(self) -> None:
        """ENGINE-NOTES §4: a stranger rolls with no modifier, penalty, adjust or untrained rule."""
        result = check_number(gravewatch(), self.SNAP, "Old Tom", "Dig", "Sinew")
        self.expect_bare(result)
        assert (result.kind, result.character.status, result.character.name) == (
            "skill",
            "stranger",
            "Old Tom",
        )

    def test_no_character(self) -> None:
        """SPEC §4: with no card at all a check reads nothing from a sheet."""
        result = check_number(gravewatch(), Snapshot(), None, "Ward")
        self.expect_bare(result)
        assert (result.kind, result.character.status) == ("skill", "none")

    def test_ambiguous(self) -> None:
        """A name two cards share (neither the player's) reads nothing from a sheet (the
        engine refuses its check: `gmtags.engine.skill_check`)."""
        snap = snapshot(("Bram", {}), ("Tom", {"abilities": {"nerve": 5}}), ("TOM", {}))
        result = check_number(gravewatch(), snap, "tom", "Nerve")
        self.expect_bare(result)
        assert result.character.status == "ambiguous"

    def test_sheet_check_number_without_values(self) -> None:
        """`sheet_check_number` with no values reads nothing, whatever the character says."""
        character = CheckCharacter("character", "Bram", "bram")
        self.expect_bare(sheet_check_number(gravewatch(), None, character, "Ward"))


class TestLiveState:
    def test_reads_the_characters_own_live_entry(self) -> None:
        """002: a live read takes the named character's live state as the snapshot holds it."""
        card = {"abilities": {"warmth": 4}, "skills": {"soothe": "rating_2"}}
        snap = snapshot(
            ("Bram", card),
            ("Élise", card),
            live={"bram": {"pools": {"resolve": 1}}, "elise": {"pools": {"resolve": 3}}},
        )
        assert check_number(gravewatch(), snap, None, "Soothe").sheet_number == 1
        assert check_number(gravewatch(), snap, "Elise", "Soothe").sheet_number == 3
