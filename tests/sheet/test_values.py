"""Tests for gmtags/sheet/values.py: every number on one character's sheet (002, 004)."""

from __future__ import annotations

import copy
import json
from functools import cache
from typing import Any

import pytest

from gmtags import Ruleset, load_ruleset
from gmtags.ruleset.refs import RulesetValueRef
from gmtags.ruleset.sheet import BooleanField, EnumField, NumberField, TextField
from gmtags.sheet.values import (
    SheetValues,
    blank_value,
    pool_group,
    read_value,
    round_by,
    whole,
)
from gmtags.state.snapshot import CharacterCard, LiveEntry
from tests.conftest import FIXTURES, REFERENCE_RULESETS

BASE: dict[str, Any] = json.loads((FIXTURES / "rulesets" / "sheet-base.json").read_text())

STANCE: dict[str, Any] = {
    "id": "stance",
    "label": "Stance",
    "values": ["guarded", "steady", "reckless"],
    "valueLabels": {"guarded": "Guarded", "steady": "Steady", "reckless": "Reckless"},
    "default": "steady",
}
"""002, "Estados vivos…": the seed's own stance."""


@cache
def reference(name: str) -> Ruleset:
    """A reference ruleset (fixtures/rulesets/reference), loaded once."""
    return load_ruleset(REFERENCE_RULESETS / name)


@cache
def system(name: str) -> Ruleset:
    """A system fixture (fixtures/rulesets/sheets), loaded once."""
    return load_ruleset(FIXTURES / "rulesets" / "sheets" / f"{name}.json")


def gravewatch() -> Ruleset:
    return reference("gravewatch.json")


def ember_roads() -> Ruleset:
    return reference("ember-roads.json")


def five_e() -> Ruleset:
    return reference("ruleset-5e-2014.example.json")


def base() -> dict[str, Any]:
    return copy.deepcopy(BASE)


def inline(**sheet: Any) -> Ruleset:
    """The base sheet with some of its `sheet` keys replaced."""
    data = base()
    data["sheet"].update(sheet)
    return load_ruleset(data)


def inline_live(**live: Any) -> Ruleset:
    """The base sheet with some of its `sheet.live` keys replaced."""
    data = base()
    data["sheet"]["live"].update(live)
    return load_ruleset(data)


def sheet(
    ruleset: Ruleset, card: dict[str, Any] | None = None, live: dict[str, Any] | None = None
) -> SheetValues:
    """A character's sheet values; `card=None` is a character without a sheet."""
    return SheetValues(
        ruleset,
        None if card is None else CharacterCard.model_validate(card),
        None if live is None else LiveEntry.model_validate(live),
    )


def number_field(identifier: str, low: float, high: float, **more: Any) -> dict[str, Any]:
    shape = {
        "id": identifier,
        "label": identifier.title(),
        "type": "number",
        "min": low,
        "max": high,
    }
    return shape | more


def sum_of(identifier: str, *refs: dict[str, Any], **more: Any) -> dict[str, Any]:
    return {"id": identifier, "label": identifier.title(), "op": "sum", "of": list(refs)} | more


class TestRoundBy:
    @pytest.mark.parametrize(
        ("value", "mode", "expected"),
        [
            (2.5, "down", 2),
            (2.5, "up", 3),
            (2.5, "nearest", 3),
            (2.4, "nearest", 2),
            (-2.5, "down", -3),
            (-2.5, "up", -2),
            (-2.5, "nearest", -2),
            (-2.6, "nearest", -3),
        ],
    )
    def test_rounding_modes(self, value: float, mode: str, expected: int) -> None:
        """SCHEMA-NOTES §4: down floors, up ceils, nearest rounds halves up, negatives too."""
        assert round_by(value, mode) == expected

    def test_whole_counts_round_down(self) -> None:
        """A count (a maximum, a pool) is the number rounded down; a non-finite one is 0."""
        assert (whole(3.9), whole(-0.5), whole(float("inf"))) == (3, -1, 0)


class TestBlankValue:
    def test_number_default(self) -> None:
        """A number field starts at its default."""
        shape = NumberField.model_validate(number_field("n", 0, 6, default=2))
        assert blank_value(shape) == 2

    @pytest.mark.parametrize(("low", "high", "expected"), [(1, 5, 1), (-5, -1, -1), (-3, 3, 0)])
    def test_number_without_default(self, low: int, high: int, expected: int) -> None:
        """SCHEMA-NOTES §6: a number without a default starts at 0 clamped to its range."""
        assert blank_value(NumberField.model_validate(number_field("n", low, high))) == expected

    def test_boolean_enum_and_text(self) -> None:
        """A boolean starts false, an enum at its first value, text at ""."""
        flag = BooleanField.model_validate({"id": "b", "label": "B", "type": "boolean"})
        enum = EnumField.model_validate(
            {"id": "e", "label": "E", "type": "enum", "values": ["x", "y"]}
        )
        text = TextField.model_validate({"id": "t", "label": "T", "type": "text"})
        assert (blank_value(flag), blank_value(enum), blank_value(text)) == (False, "x", "")


class TestReadValue:
    NUMBER = NumberField.model_validate(number_field("n", 0, 6, default=2))

    def test_wrong_type_reads_blank(self) -> None:
        """A stored value of the wrong type reads as the blank value, never raising."""
        assert read_value(self.NUMBER, "three") == 2
        assert read_value(self.NUMBER, True) == 2

    def test_numbers_clamp_and_floor(self) -> None:
        """A stored number is clamped to its range and an integer one rounded down."""
        assert (read_value(self.NUMBER, 9), read_value(self.NUMBER, -4)) == (6, 0)
        assert read_value(self.NUMBER, 3.7) == 3

    def test_non_integer_number_keeps_fraction(self) -> None:
        """A number with `integer: false` keeps its fraction."""
        shape = NumberField.model_validate(number_field("n", 0, 6, integer=False))
        assert read_value(shape, 2.5) == 2.5

    def test_enum_no_longer_offered(self) -> None:
        """002: an enum value the ruleset no longer offers reads as the default."""
        shape = EnumField.model_validate(
            {"id": "e", "label": "E", "type": "enum", "values": ["x", "y"], "default": "y"}
        )
        assert (read_value(shape, "x"), read_value(shape, "gone")) == ("x", "y")

    def test_text_cut_to_length(self) -> None:
        """Stored text longer than `maxLength` is cut to it."""
        shape = TextField.model_validate({"id": "t", "label": "T", "type": "text", "maxLength": 4})
        assert read_value(shape, "lantern") == "lant"


class TestValueRefs:
    def test_const_field_and_derived(self) -> None:
        """002: `const`, `field` and `derived` read their numbers (Ember Roads' Grit maximum)."""
        values = sheet(ember_roads(), {"abilities": {"brawn": 2}, "fields": {"toughness": 3}})
        assert values.field_number("toughness") == 3
        assert values.derived("grit_max") == 4 + 3 + 2

    def test_ability_score_and_mod(self) -> None:
        """`abilityScore` reads the score and `abilityMod` its modifier (5e: 15 gives +2)."""
        values = sheet(five_e(), {"abilities": {"dex": 15}})
        assert (values.ability_score("dex"), values.ability_mod("dex")) == (15, 2)

    def test_ability_mod_from_field(self) -> None:
        """`abilityModFromField`: the ability an enum field names; "none" reads 0 (5e spell DC)."""
        caster = sheet(
            five_e(), {"abilities": {"wis": 16}, "fields": {"spellcasting_ability": "wis"}}
        )
        assert caster.ability_mod_from_field("spellcasting_ability") == 3
        assert caster.derived("spell_save_dc") == 8 + 2 + 3
        plain = sheet(five_e(), {"abilities": {"wis": 16}})
        assert plain.ability_mod_from_field("spellcasting_ability") == 0

    def test_skill_mod_reads_capped_number(self) -> None:
        """`skillMod` reads the number a skill shows: 5e passive Perception is 10 + it."""
        card = {"abilities": {"wis": 14}, "skills": {"perception": "proficient"}}
        values = sheet(five_e(), card)
        assert values.skill_mod("perception") == 2 + 2
        assert values.derived("passive_perception") == 14

    def test_save_mod(self) -> None:
        """`saveMod` reads a save's number."""
        values = sheet(five_e(), {"abilities": {"con": 8}, "saves": {"con_save": "proficient"}})
        assert values.save_mod("con_save") == -1 + 2

    def test_live_reads(self) -> None:
        """`livePool` and `liveTrack` (with its `read`) read the live state as it stands."""
        values = sheet(ember_roads(), {}, {"pools": {"luck": 1}, "tracks": {"heat": 4}})
        pool = RulesetValueRef.model_validate({"livePool": "luck"})
        heat = RulesetValueRef.model_validate({"liveTrack": "heat"})
        left = RulesetValueRef.model_validate({"liveTrack": "heat", "read": "remaining"})
        assert (values.value(pool), values.value(heat), values.value(left)) == (1, 4, 1)

    def test_item_stat_reads_its_default(self) -> None:
        """Items are not modelled: `itemStat` reads as nothing carried (Ember Roads' Guard is 6)."""
        values = sheet(ember_roads(), {"abilities": {"wits": 1}})
        assert values.derived("guard") == 6 + 1 + 0

    def test_unknown_ids_read_zero(self) -> None:
        """An id the sheet does not declare reads 0 (a programmer error, never a crash)."""
        values = sheet(inline(), {})
        assert values.field_number("nope") == 0
        assert values.derived("nope") == 0
        assert values.ability_mod("nope") == 0
        assert values.pool_value("nope") == 0
        assert values.track_read("nope") == 0
        assert values.check_number("skill", "nope") == 0


class TestFields:
    def test_unset_field_reads_blank_value(self) -> None:
        """A field the card does not hold reads its blank value."""
        assert sheet(inline(), {}).field("toughness") == 2

    def test_stored_field_read_and_clamped(self) -> None:
        """A stored number is read, clamped to its range."""
        assert sheet(inline(), {"fields": {"toughness": 5}}).field("toughness") == 5
        assert sheet(inline(), {"fields": {"toughness": 40}}).field("toughness") == 6

    def test_character_without_sheet_reads_blank(self) -> None:
        """A character without a sheet reads the blank sheet's values."""
        assert sheet(inline(), None).field("toughness") == 2

    def test_boolean_field_number(self) -> None:
        """A boolean field read as a number is 1 when on, else 0."""
        flag = {"id": "flag", "label": "Flag", "type": "boolean"}
        ruleset = inline(fields=[*BASE["sheet"]["fields"], flag])
        assert sheet(ruleset, {"fields": {"flag": True}}).field_number("flag") == 1
        assert sheet(ruleset, {}).field_number("flag") == 0

    def test_enum_field_reads_zero_as_number(self) -> None:
        """An enum field has no number: as a number it reads 0."""
        assert sheet(five_e(), {"fields": {"hit_die": "d10"}}).field_number("hit_die") == 0


class TestHideWhen:
    def test_not_equals_hides_lantern_off_night_watch(self) -> None:
        """002: Gravewatch's lantern oil is hidden whenever the watch is not night."""
        ruleset = gravewatch()
        lantern = next(f for f in ruleset.sheet.fields if f.id == "lantern")
        assert not sheet(ruleset, {}).hidden(lantern.hide_when)  # night is the default
        assert sheet(ruleset, {"fields": {"watch": "dawn"}}).hidden(lantern.hide_when)

    def test_equals_hides_slots_from_non_casters(self) -> None:
        """002: the 5e file hides spell slots from a character who casts nothing."""
        ruleset = five_e()
        slots = ruleset.sheet.live.pools[2]
        assert sheet(ruleset, {}).hidden(slots.hide_when)
        caster = {"fields": {"spellcasting_ability": "int"}}
        assert not sheet(ruleset, caster).hidden(slots.hide_when)

    def test_in_hides_for_listed_values(self) -> None:
        """`in` hides the element while the field holds one of the listed values."""
        watch = {
            "id": "watch",
            "label": "Watch",
            "type": "enum",
            "values": ["dusk", "night", "dawn"],
        }
        oil = number_field("oil", 0, 6, hideWhen={"field": "watch", "in": ["dusk", "dawn"]})
        ruleset = inline(fields=[*BASE["sheet"]["fields"], watch, oil])
        rule = ruleset.sheet.fields[2].hide_when
        assert sheet(ruleset, {"fields": {"watch": "dawn"}}).hidden(rule)
        assert not sheet(ruleset, {"fields": {"watch": "night"}}).hidden(rule)

    def test_reads_the_shown_value(self) -> None:
        """002: an unset field compares as its blank value; one no longer offered as the default."""
        ruleset = gravewatch()
        lantern = next(f for f in ruleset.sheet.fields if f.id == "lantern")
        assert not sheet(ruleset, {"fields": {"watch": "noon"}}).hidden(lantern.hide_when)
        assert not sheet(ruleset, None).hidden(lantern.hide_when)

    def test_boolean_field_rule(self) -> None:
        """A rule on a boolean field compares true and false, never a number."""
        flag = {"id": "flag", "label": "Flag", "type": "boolean", "default": True}
        count = number_field("count", 0, 3, hideWhen={"field": "flag", "equals": False})
        ruleset = inline(fields=[*BASE["sheet"]["fields"], flag, count])
        rule = ruleset.sheet.fields[2].hide_when
        assert sheet(ruleset, {"fields": {"flag": False}}).hidden(rule)
        assert not sheet(ruleset, {}).hidden(rule)
        assert not sheet(ruleset, {"fields": {"flag": 0}}).hidden(rule)

    def test_hidden_field_reads_zero_through_a_reference(self) -> None:
        """ENGINE-NOTES §8: a hidden field is not on the sheet, so a reference to it reads 0."""
        ruleset = gravewatch()
        night = sheet(ruleset, {"fields": {"lantern": 5}})
        dawn = sheet(ruleset, {"fields": {"lantern": 5, "watch": "dawn"}})
        assert (night.field_number("lantern"), dawn.field_number("lantern")) == (5, 0)
        assert dawn.field("lantern") == 5

    def test_hidden_derived_reads_zero(self) -> None:
        """A hidden derived value reads 0 (five-torches' slots for a non-caster)."""
        ruleset = system("five-torches")
        assert sheet(ruleset, {"fields": {"level": 3}}).derived("slots_1") == 0
        caster = {"fields": {"level": 3, "caster": "full"}}
        assert sheet(ruleset, caster).derived("slots_1") == 4

    def test_hidden_list_sums_nothing(self) -> None:
        """002: a list hidden by hideWhen adds nothing to a listSum and has no rows."""
        ruleset = five_e()
        rows = {"spells": [{"name": "Light", "level": 0}, {"name": "Sleep", "level": 1}]}
        hidden = sheet(ruleset, {"lists": rows})
        shown = sheet(ruleset, {"lists": rows, "fields": {"spellcasting_ability": "int"}})
        assert hidden.rows("spells") == []
        assert len(shown.rows("spells")) == 2

    def test_hidden_pool_reads_zero(self) -> None:
        """002: a hidden pool reads 0 and is not on the sheet."""
        ruleset = system("five-torches")
        hidden = sheet(ruleset, {"fields": {"level": 2}}, {"pools": {"slot_1": 2}})
        assert hidden.pool("slot_1") is None and hidden.pool_value("slot_1") == 0

    def test_hidden_plain_track_reads_zero(self) -> None:
        """002: a hidden plain track reads 0 whatever is stored."""
        track = {"id": "oil", "label": "Oil", "min": 0, "max": 5, "default": 3}
        track["hideWhen"] = {"field": "toughness", "equals": 0}
        ruleset = inline_live(tracks=[track])
        assert sheet(ruleset, {"fields": {"toughness": 0}}).track_read("oil") == 0
        assert sheet(ruleset, {}).track_read("oil") == 3


class TestAbilities:
    def test_stored_score_is_clamped(self) -> None:
        """A stored score reads clamped to the ability's min and max."""
        assert sheet(inline(), {"abilities": {"brawn": 9}}).ability_score("brawn") == 3
        assert sheet(inline(), {"abilities": {"brawn": -4}}).ability_score("brawn") == -1

    def test_unset_score_is_default(self) -> None:
        """An unset score, or one of the wrong type, reads the ability's default."""
        assert sheet(five_e(), {}).ability_score("str") == 10
        assert sheet(five_e(), None).ability_score("str") == 10

    def test_computed_ability_sums_marked_actions(self) -> None:
        """004, 1.156: a Blades attribute is the sum of its marked actions (crows' Insight)."""
        values = sheet(system("crows"), {"abilities": {"hunt": 2, "study": 0}})
        assert values.ability_score("insight_rating") == 1
        both = sheet(system("crows"), {"abilities": {"hunt": 3, "study": 1}})
        assert both.ability_score("insight_rating") == 2

    def test_computed_ability_ignores_stored_value(self) -> None:
        """004, 1.156: anything stored for a computed score is ignored."""
        values = sheet(system("crows"), {"abilities": {"prowess_rating": 2}})
        assert values.ability_score("prowess_rating") == 0

    def test_computed_ability_clamped(self) -> None:
        """004, 1.156: a computed score is held to its min and max."""
        perception = {
            "id": "per",
            "label": "Perception",
            "min": 0,
            "max": 4,
            "default": 0,
            "value": [{"abilityScore": "brawn"}, {"field": "toughness"}],
        }
        ruleset = inline(abilities=[*BASE["sheet"]["abilities"], perception])
        card = {"abilities": {"brawn": 3}, "fields": {"toughness": 5}}
        assert sheet(ruleset, card).ability_score("per") == 4
        low = {"abilities": {"brawn": -1}, "fields": {"toughness": 0}}
        assert sheet(ruleset, low).ability_score("per") == 0


def modifier_ruleset(op: dict[str, Any], low: int = -5, high: int = 30) -> Ruleset:
    data = base()
    data["resolution"]["abilityModifier"] = op
    data["sheet"]["abilities"][0].update({"min": low, "max": high, "default": 10})
    return load_ruleset(data)


class TestAbilityModifier:
    def test_identity(self) -> None:
        """000: `identity` uses the score itself."""
        assert sheet(inline(), {"abilities": {"brawn": 2}}).ability_mod("brawn") == 2

    @pytest.mark.parametrize(
        ("score", "expected"), [(10, 0), (11, 0), (12, 1), (9, -1), (1, -5), (30, 10), (-3, -7)]
    )
    def test_floor_half_minus_ten(self, score: int, expected: int) -> None:
        """000: 5e's floor((score - 10) / 2), odd and negative scores rounding down."""
        ruleset = modifier_ruleset({"op": "floorHalfMinusTen"})
        assert sheet(ruleset, {"abilities": {"brawn": score}}).ability_mod("brawn") == expected

    @pytest.mark.parametrize(
        ("score", "expected"), [(1, -1), (3, -1), (4, 0), (7, 0), (8, 1), (30, 2)]
    )
    def test_step_table(self, score: int, expected: int) -> None:
        """000: `stepTable` reads the highest threshold not above the score, else the first."""
        table = {"op": "stepTable", "table": [[3, -1], [4, 0], [8, 1], [12, 2]]}
        ruleset = modifier_ruleset(table, low=1)
        assert sheet(ruleset, {"abilities": {"brawn": score}}).ability_mod("brawn") == expected


def tier_ruleset(*tiers: dict[str, Any], level: int = 5) -> Ruleset:
    """The base sheet with a proficiency bonus read from a field (level) and these tiers."""
    data = base()
    data["resolution"]["proficiency"] = {"bonus": {"field": "level"}}
    data["resolution"]["proficiencyTiers"] = [{"id": "none", "label": "None"}, *tiers]
    data["sheet"]["fields"].append(number_field("level", 0, 20, default=level))
    return load_ruleset(data)


class TestProficiencyTiers:
    def test_unset_entry_is_first_tier(self) -> None:
        """000: the first tier applies to every entry the sheet does not train."""
        values = sheet(five_e(), {})
        assert values.tier("skill", "arcana").id == "none"
        assert not values.trained("skill", "arcana")

    def test_unknown_tier_is_first_tier(self) -> None:
        """A stored tier the ruleset does not declare reads as the first tier."""
        values = sheet(five_e(), {"skills": {"arcana": "grandmaster"}})
        assert values.tier("skill", "arcana").id == "none"

    def test_short_and_long_forms(self) -> None:
        """SPEC §4: a skill is stored as its tier id or as {tier, bonus}."""
        card = {"skills": {"arcana": "proficient", "history": {"tier": "expertise"}}}
        values = sheet(five_e(), card)
        assert values.tier("skill", "arcana").id == "proficient"
        assert values.tier("skill", "history").id == "expertise"
        assert values.trained("skill", "history")

    def test_proficiency_by_level(self) -> None:
        """5e: level 9 gives +4 proficiency, doubled under expertise."""
        card = {"fields": {"level": 9}, "skills": {"arcana": "proficient", "history": "expertise"}}
        values = sheet(five_e(), card)
        assert values.proficiency_bonus() == 4
        assert (values.skill_mod("arcana"), values.skill_mod("history")) == (4, 8)

    def test_half_proficiency_rounds_down(self) -> None:
        """000: a half-proficiency tier at +3 gives round-down(1.5) = 1 (five-torches)."""
        card = {"fields": {"level": 5}, "skills": {"stealth": "half"}}
        assert sheet(system("five-torches"), card).skill_mod("stealth") == 1

    @pytest.mark.parametrize(("mode", "expected"), [("down", 1), ("up", 2), ("nearest", 2)])
    def test_half_proficiency_rounding_modes(self, mode: str, expected: int) -> None:
        """SCHEMA-NOTES §5: round(multiplier × bonus) follows the tier's own rounding."""
        ruleset = tier_ruleset(
            {"id": "half", "label": "Half", "multiplier": 0.5, "round": mode}, level=3
        )
        assert sheet(ruleset, {"skills": {"scrap": "half"}}).skill_mod("scrap") == expected

    def test_flat_and_multiplier_add(self) -> None:
        """SCHEMA-NOTES §5: a tier gives round(multiplier × bonus) + flat."""
        ruleset = tier_ruleset({"id": "both", "label": "Both", "multiplier": 1, "flat": 2}, level=4)
        values = sheet(ruleset, {"abilities": {"brawn": 1}, "skills": {"scrap": "both"}})
        assert values.skill_mod("scrap") == 1 + 4 + 2

    def test_flat_tiers_count_dice(self) -> None:
        """000: on a pool a rating of 3 and a trade worth 2 throw five dice (Gravewatch)."""
        card = {"abilities": {"sinew": 3}, "skills": {"wrestle": "rating_2"}}
        assert sheet(gravewatch(), card).skill_mod("wrestle") == 5

    def test_no_proficiency_reads_zero(self) -> None:
        """A ruleset without `proficiency` has a bonus of 0."""
        assert sheet(inline(), {}).proficiency_bonus() == 0


class TestFreeBonus:
    def test_entry_bonus(self) -> None:
        """A stored entry's own bonus adds to its number."""
        card = {"skills": {"scrap": {"tier": "untrained", "bonus": 2}}}
        assert sheet(inline(), card).skill_mod("scrap") == 2

    def test_card_bonuses(self) -> None:
        """SCHEMA-NOTES §13: a card's `bonuses` give the bonus when the entry writes none."""
        card = {"skills": {"scrap": {"tier": "trained"}}, "bonuses": {"scrap": 2, "steel": 1}}
        values = sheet(inline(), card)
        assert values.free_bonus("skill", "scrap") == 2
        assert values.skill_mod("scrap") == 0 + 1 + 2
        assert values.save_mod("steel") == 1

    def test_entry_bonus_beats_card_bonuses(self) -> None:
        """A bonus written on the entry wins over the card's `bonuses`."""
        card = {"skills": {"scrap": {"tier": "trained", "bonus": 0}}, "bonuses": {"scrap": 2}}
        assert sheet(inline(), card).free_bonus("skill", "scrap") == 0

    @pytest.mark.parametrize(("bonus", "expected"), [(5, 3), (-2, 0), (2, 2)])
    def test_bonus_range_clamp(self, bonus: int, expected: int) -> None:
        """SCHEMA-NOTES §6: the free bonus is held to `bonusRange` (Gravewatch: 0..3)."""
        card = {"skills": {"ward": {"tier": "rating_0", "bonus": bonus}}}
        assert sheet(gravewatch(), card).free_bonus("skill", "ward") == expected


class TestUntrained:
    def test_skill_rule_by(self) -> None:
        """002: Ember Roads' untrained Tinker has two taken off its number."""
        values = sheet(ember_roads(), {"abilities": {"wits": 2}})
        assert values.skill_mod("tinker") == 0
        trained = sheet(ember_roads(), {"abilities": {"wits": 2}, "skills": {"tinker": "trained"}})
        assert trained.skill_mod("tinker") == 3

    def test_section_rule_by(self) -> None:
        """002: a section's rule applies to its skills (Gravewatch's labour costs a die)."""
        values = sheet(gravewatch(), {"abilities": {"sinew": 3}})
        assert values.untrained_rule("skill", "wrestle") == values.sheet.sections[2].untrained
        assert values.skill_mod("wrestle") == 2

    def test_skill_rule_beats_section(self) -> None:
        """002: the skill's own rule wins over its section's (Gravewatch's Dig refuses)."""
        values = sheet(gravewatch(), {"abilities": {"sinew": 3}})
        assert values.untrained_rule("skill", "dig") == "refuse"
        assert values.skill_mod("dig") == 3

    def test_harder_keeps_the_number(self) -> None:
        """002: `harder` moves the pool target, never the number (Gravewatch's Listen)."""
        values = sheet(gravewatch(), {"abilities": {"nerve": 3}})
        assert values.untrained_rule("skill", "listen") == "harder"
        assert values.skill_mod("listen") == 3

    def test_trained_entry_has_no_rule(self) -> None:
        """002: the rule applies only at the first tier."""
        card = {"abilities": {"sinew": 3}, "skills": {"wrestle": "rating_1"}}
        values = sheet(gravewatch(), card)
        assert values.untrained_rule("skill", "wrestle") == "normal"
        assert values.skill_mod("wrestle") == 4

    def test_no_sheet_has_no_rule(self) -> None:
        """002: a character without a sheet has no training to read, so no untrained rule."""
        values = sheet(gravewatch(), None)
        assert values.untrained_rule("skill", "dig") == "normal"
        assert values.skill_mod("wrestle") == 2

    def test_by_is_before_the_cap(self) -> None:
        """002: `by` is part of the number before any cap, so the cap holds the result."""
        skill = {"id": "scrap", "label": "Scrap", "ability": "brawn", "untrained": {"by": -2}}
        ruleset = inline(skills=[skill | {"cap": {"const": 2}}])
        parts = sheet(ruleset, {"abilities": {"brawn": 3}}).check_parts("skill", "scrap")
        assert parts is not None
        assert (parts.uncapped, parts.number, parts.untrained_by) == (1, 1, -2)
        assert not parts.capped


class TestCap:
    def soothe(self, resolve: int | None, warmth: int = 4, tier: str = "rating_2") -> SheetValues:
        live = {} if resolve is None else {"pools": {"resolve": resolve}}
        card = {"abilities": {"warmth": warmth}, "skills": {"soothe": tier}}
        return sheet(gravewatch(), card, live)

    def test_soothe_capped_by_resolve_left(self) -> None:
        """002: Gravewatch caps Soothe at the Resolve a warden has left."""
        assert self.soothe(resolve=1).skill_mod("soothe") == 1

    def test_full_resolve(self) -> None:
        """An untouched Resolve is full: 2 + Nerve 2 = 4 caps a Soothe of 6."""
        parts = self.soothe(resolve=None).check_parts("skill", "soothe")
        assert parts is not None
        assert (parts.uncapped, parts.cap, parts.number, parts.capped) == (6, 4, 4, True)

    def test_cap_above_number_does_not_bite(self) -> None:
        """A cap above the computed number leaves it alone."""
        parts = self.soothe(resolve=4, warmth=1, tier="rating_1").check_parts("skill", "soothe")
        assert parts is not None
        assert (parts.number, parts.capped) == (2, False)

    def test_with_recomputed_then_capped_again(self) -> None:
        """002: a `with=` change works on the number before the cap, then is capped again."""
        values = self.soothe(resolve=3, warmth=1, tier="rating_1")
        assert values.check_number("skill", "soothe") == 2
        card = {"abilities": {"warmth": 1, "nerve": 5}, "skills": {"soothe": "rating_1"}}
        swapped = sheet(gravewatch(), card, {"pools": {"resolve": 3}})
        assert swapped.check_number("skill", "soothe", "nerve") == 3
        parts = swapped.check_parts("skill", "soothe", "nerve")
        assert parts is not None and parts.uncapped == 6

    def test_cap_rounds_down(self) -> None:
        """A cap read as a fraction is rounded down, as the reference engine does."""
        skill = {"id": "scrap", "label": "Scrap", "ability": "brawn", "cap": {"field": "limit"}}
        limit = number_field("limit", 0, 5, integer=False, default=1.5)
        ruleset = inline(skills=[skill], fields=[*BASE["sheet"]["fields"], limit])
        assert sheet(ruleset, {"abilities": {"brawn": 3}}).skill_mod("scrap") == 1


def derived_ruleset(
    *derived: dict[str, Any], fields: list[dict[str, Any]] | None = None
) -> Ruleset:
    return inline(derived=list(derived), fields=[*BASE["sheet"]["fields"], *(fields or [])])


class TestDerived:
    def test_sum(self) -> None:
        """002: `sum` adds its references."""
        ruleset = derived_ruleset(sum_of("total", {"const": 1}, {"field": "toughness"}))
        assert sheet(ruleset, {"fields": {"toughness": 4}}).derived("total") == 5

    def test_min_and_max(self) -> None:
        """002: `min` and `max` take the least and greatest of their references."""
        refs = [{"const": 3}, {"field": "toughness"}]
        ruleset = derived_ruleset(
            {"id": "low", "label": "Low", "op": "min", "of": refs},
            {"id": "high", "label": "High", "op": "max", "of": refs},
        )
        values = sheet(ruleset, {"fields": {"toughness": 5}})
        assert (values.derived("low"), values.derived("high")) == (3, 5)

    @pytest.mark.parametrize(
        ("mode", "toughness", "expected"),
        [("down", 5, 2), ("up", 5, 3), ("nearest", 5, 3), ("nearest", 3, 2), ("down", 3, 1)],
    )
    def test_scale_rounding(self, mode: str, toughness: int, expected: int) -> None:
        """002: `scale` multiplies by a fixed number and rounds as its `round` says."""
        scale = {"id": "half", "label": "Half", "op": "scale", "of": {"field": "toughness"}}
        ruleset = derived_ruleset(scale | {"multiplier": 0.5, "round": mode})
        assert sheet(ruleset, {"fields": {"toughness": toughness}}).derived("half") == expected

    def test_scale_negative_rounds_down(self) -> None:
        """`scale` rounds a negative result down by default (-1.5 → -2)."""
        scale = {"id": "neg", "label": "Neg", "op": "scale", "of": {"abilityMod": "brawn"}}
        ruleset = derived_ruleset(scale | {"multiplier": 1.5})
        assert sheet(ruleset, {"abilities": {"brawn": -1}}).derived("neg") == -2

    def test_multiply(self) -> None:
        """002, 1.82: Constitution modifier times level (five-torches' hit points)."""
        card = {"abilities": {"con": 14}, "fields": {"level": 3, "hp_rolled": 10}}
        values = sheet(system("five-torches"), card)
        assert values.derived("con_per_level") == 6
        assert values.derived("hp_max") == 8 + 10 + 6

    def test_step_table(self) -> None:
        """002: `stepTable` reads thresholds, as a level gives proficiency (5e)."""
        for level, expected in ((1, 2), (4, 2), (5, 3), (12, 4), (20, 6)):
            values = sheet(five_e(), {"fields": {"level": level}})
            assert values.derived("proficiency_bonus") == expected

    def test_enum_table_on_field(self) -> None:
        """002: an enum table gives a number per field value; values it omits read default."""
        ruleset = system("five-torches")
        assert sheet(ruleset, {"fields": {"armour": "heavy"}}).derived("armour_stealth") == -2
        assert sheet(ruleset, {"fields": {"armour": "light"}}).derived("armour_stealth") == 0

    def test_enum_table_feeds_a_maximum(self) -> None:
        """002: Gravewatch gives a dawn warden one more Resolve through a field's table."""
        assert sheet(gravewatch(), {"fields": {"watch": "dawn"}}).pool_max("resolve") == 5
        assert sheet(gravewatch(), {}).pool_max("resolve") == 4

    def test_enum_table_on_live_state(self) -> None:
        """002: a table on a live state follows it (ashfall's war form adds 3 to Might)."""
        ruleset = system("ashfall")
        assert sheet(ruleset, {}, {"states": {"form": "war"}}).derived("form_might") == 3
        assert sheet(ruleset, {}).derived("form_might") == 0

    def test_enum_table_on_state_value_no_longer_offered(self) -> None:
        """002: a stored state value the state no longer offers reads its default."""
        ruleset = system("ashfall")
        assert sheet(ruleset, {}, {"states": {"form": "bat"}}).derived("form_might") == 0

    def test_enum_table_on_hidden_state_reads_default(self) -> None:
        """002: a table reads a state the sheet hides as having no value (its `default`)."""
        state = STANCE | {"hideWhen": {"field": "toughness", "equals": 0}}
        table = {
            "id": "stance_brawn",
            "label": "Stance on Brawn",
            "op": "enumTable",
            "from": {"liveState": "stance"},
            "table": {"guarded": -1, "reckless": 2},
            "default": 7,
        }
        data = base()
        data["sheet"]["live"]["states"] = [state]
        data["sheet"]["derived"] = [table]
        ruleset = load_ruleset(data)
        live = {"states": {"stance": "reckless"}}
        assert sheet(ruleset, {}, live).derived("stance_brawn") == 2
        assert sheet(ruleset, {"fields": {"toughness": 0}}, live).derived("stance_brawn") == 7
        assert sheet(ruleset, {}).derived("stance_brawn") == 7


GEAR: list[dict[str, Any]] = [
    {"name": "Rope", "bulk": 1},
    {"name": "Crowbar", "bulk": 2, "packed": True},
    {"name": "Tent", "bulk": 3, "packed": False},
    {"name": "Lamp"},
]


class TestLists:
    def test_rows_read_with_column_defaults(self) -> None:
        """002: an empty cell reads its column's default."""
        rows = sheet(ember_roads(), {"lists": {"gear": GEAR}}).rows("gear")
        assert rows[3]["bulk"] == 0 and rows[3]["packed"] is True and rows[3]["swing"] == "brawn"

    def test_rows_stop_at_max_items(self) -> None:
        """A list keeps at most `maxItems` rows (Gravewatch's scars: 4)."""
        scars = [{"name": f"Scar {n}"} for n in range(6)]
        assert len(sheet(gravewatch(), {"lists": {"scars": scars}}).rows("scars")) == 4

    def test_bad_cells_read_defaults(self) -> None:
        """A cell of the wrong type reads its column's default; a number is clamped."""
        data = {
            "lists": {"gear": [{"name": "Rope", "bulk": "heavy", "packed": "yes"}, {"bulk": 8}]}
        }
        rows = sheet(ember_roads(), data).rows("gear")
        assert (rows[0]["bulk"], rows[0]["packed"], rows[1]["bulk"]) == (0, True, 3)

    def test_no_sheet_has_no_rows(self) -> None:
        """A character without a sheet has no rows."""
        assert sheet(ember_roads(), None).rows("gear") == []

    def test_burden_sums_packed_bulk(self) -> None:
        """002: Ember Roads' Burden adds the bulk of packed gear; an empty cell is packed."""
        values = sheet(ember_roads(), {"lists": {"gear": GEAR}})
        assert values.derived("burden") == 1 + 2 + 0
        assert values.derived("burdened") == -1

    def test_where_and_count(self) -> None:
        """004, 1.205: Genesys counts the talents of one tier with `where` and `count`."""
        talents = {
            "id": "talents",
            "label": "Talents",
            "columns": [
                {"id": "name", "label": "Name", "type": "text"},
                {"id": "tier", "label": "Tier", "type": "number", "min": 1, "max": 5, "default": 1},
                {"id": "ranks", "label": "Ranks", "type": "number", "min": 0, "max": 5},
            ],
        }
        tier2 = sum_of(
            "tier2",
            {
                "listSum": {
                    "list": "talents",
                    "count": True,
                    "where": {"column": "tier", "equals": 2},
                }
            },
        )
        ranks1 = sum_of(
            "ranks1",
            {
                "listSum": {
                    "list": "talents",
                    "column": "ranks",
                    "where": {"column": "tier", "equals": 1},
                }
            },
        )
        ruleset = inline(lists=[talents], derived=[tier2, ranks1])
        rows = [
            {"name": "Grit", "tier": 1, "ranks": 2},
            {"name": "Dodge", "tier": 2},
            {"name": "Parry", "tier": 2, "ranks": 1},
            {"name": "Toughened", "ranks": 3},
        ]
        values = sheet(ruleset, {"lists": {"talents": rows}})
        assert values.derived("tier2") == 2
        assert values.derived("ranks1") == 2 + 3

    def test_computed_column(self) -> None:
        """004, 1.210: a CoC specialty's value sums its columns, clamped to the column's max."""
        number = {"type": "number", "min": 0, "max": 90}
        skills = {
            "id": "specialties",
            "label": "Specialties",
            "columns": [
                {"id": "name", "label": "Name", "type": "text"},
                {"id": "base", "label": "Base", **number, "default": 1},
                {"id": "occupation", "label": "Occupation", **number},
                {"id": "interest", "label": "Interest", **number},
                {
                    "id": "value",
                    "label": "Value",
                    **number,
                    "sum": ["base", "occupation", "interest"],
                },
            ],
        }
        total = sum_of("total", {"listSum": {"list": "specialties", "column": "value"}})
        ruleset = inline(lists=[skills], derived=[total])
        rows = [
            {"name": "Physics", "occupation": 40, "interest": 10, "value": 3},
            {"name": "Biology", "base": 50, "occupation": 40, "interest": 20},
        ]
        values = sheet(ruleset, {"lists": {"specialties": rows}})
        assert [row["value"] for row in values.rows("specialties")] == [51, 90]
        assert values.derived("total") == 141


class TestPools:
    def test_starts_full(self) -> None:
        """002: an untouched pool is full (Ember Roads' Grit)."""
        values = sheet(ember_roads(), {"abilities": {"brawn": 1}})
        assert (values.pool_max("grit"), values.pool_value("grit")) == (7, 7)

    def test_starts_empty(self) -> None:
        """002: a pool with `start: "empty"` starts at 0 (ashfall's Rage)."""
        values = sheet(system("ashfall"), {})
        assert (values.pool_max("rage"), values.pool_value("rage")) == (5, 0)

    def start_from(self, ref: dict[str, Any]) -> Ruleset:
        pool = {"id": "san", "label": "Sanity", "max": {"const": 10}, "startFrom": ref}
        return inline_live(pools=[pool])

    def test_start_from(self) -> None:
        """004, 1.158: a pool with `startFrom` starts at that sheet value."""
        ruleset = self.start_from({"field": "toughness"})
        assert sheet(ruleset, {"fields": {"toughness": 4}}).pool_value("san") == 4

    @pytest.mark.parametrize(("start", "expected"), [(25, 10), (-3, 0)])
    def test_start_from_clamped(self, start: int, expected: int) -> None:
        """004, 1.158: `startFrom` is held to 0 and the pool's maximum."""
        assert sheet(self.start_from({"const": start}), {}).pool_value("san") == expected

    def test_stored_value_wins(self) -> None:
        """004, 1.158: a stored live value always wins over the starting point."""
        ruleset = self.start_from({"field": "toughness"})
        values = sheet(ruleset, {"fields": {"toughness": 4}}, {"pools": {"san": 9}})
        assert values.pool_value("san") == 9

    def test_stored_value_clamped(self) -> None:
        """A stored value above the maximum reads as the maximum, below 0 as 0."""
        assert sheet(inline(), {}, {"pools": {"grit": 9}}).pool_value("grit") == 2
        assert sheet(inline(), {}, {"pools": {"grit": -2}}).pool_value("grit") == 0

    def test_maximum_zero_is_no_pool(self) -> None:
        """ENGINE-NOTES §8: a pool whose maximum is 0 or less does not exist and reads 0."""
        values = sheet(inline(), {"fields": {"toughness": 0}}, {"pools": {"grit": 1}})
        assert values.pool("grit") is None and values.pool_value("grit") == 0

    def test_pool_group_in_sheet_order(self) -> None:
        """002, "Descansos": a group's pools come in the order the sheet lists them."""
        slots = [pool.id for pool in pool_group(five_e(), "slots")]
        assert slots == [f"slots_{n}" for n in range(1, 10)]


class TestTracks:
    def test_default(self) -> None:
        """002: an untouched plain track is at its default."""
        assert sheet(system("crows"), {}).track_value("stress") == 0

    def test_without_default_starts_at_min(self) -> None:
        """A plain track without a default starts at its min."""
        track = {"id": "luck", "label": "Luck", "min": 1, "max": 5}
        assert sheet(inline_live(tracks=[track]), {}).track_value("luck") == 1

    def test_max_from_a_reference(self) -> None:
        """002: a plain track's max may be a reference to a sheet value."""
        track = {
            "id": "will",
            "label": "Will",
            "min": 0,
            "max": {"field": "toughness"},
            "default": 9,
        }
        values = sheet(inline_live(tracks=[track]), {"fields": {"toughness": 5}})
        assert values.track_bounds("will") == (0, 5)
        assert values.track_value("will") == 5

    def test_start_from(self) -> None:
        """004, 1.158: a plain track may start at a sheet value instead of its default."""
        track = {
            "id": "will",
            "label": "Will",
            "min": 0,
            "max": 6,
            "startFrom": {"field": "toughness"},
        }
        values = sheet(inline_live(tracks=[track]), {"fields": {"toughness": 4}})
        assert values.track_value("will") == 4

    def test_stored_value_clamped(self) -> None:
        """A stored value wins, clamped to the track's range."""
        assert sheet(inline(), {}, {"tracks": {"heat": 3}}).track_value("heat") == 3
        assert sheet(inline(), {}, {"tracks": {"heat": 12}}).track_value("heat") == 5

    def test_reads(self) -> None:
        """002: `read` gives value, filled (above min) or remaining (to max)."""
        track = {"id": "luck", "label": "Luck", "min": 1, "max": 6}
        values = sheet(inline_live(tracks=[track]), {}, {"tracks": {"luck": 4}})
        reads = [values.track_read("luck", read) for read in ("value", "filled", "remaining")]
        assert reads == [4, 3, 2]


class TestWoundTrackReads:
    def harm(self, *marks: str, scars: list[dict[str, Any]] | None = None) -> SheetValues:
        card = {"lists": {"scars": scars or []}}
        return sheet(gravewatch(), card, {"marks": {"harm": list(marks)}})

    def test_clean_track(self) -> None:
        """002: a wound track starts with no marks: nothing filled, no penalty."""
        values = self.harm()
        reads = [values.track_read("harm", r) for r in ("value", "filled", "remaining", "penalty")]
        assert reads == [0, 0, 4, 0]

    def test_marked_track(self) -> None:
        """002: Harm still to take is `remaining`; the penalty is the lowest marked level's."""
        values = self.harm("tear", "knock", "knock")
        reads = [values.track_read("harm", r) for r in ("value", "filled", "remaining", "penalty")]
        assert reads == [3, 3, 1, -3]
        assert values.derived("harm_left") == 1

    def test_scars_add_levels(self) -> None:
        """002: each scar row adds its levels after the last level at least as good."""
        values = self.harm(
            "knock", "knock", scars=[{"name": "Old bite", "levels": 2, "penalty": -1}]
        )
        shape = values.wound_track("harm")
        assert shape is not None
        assert [level.penalty for level in shape.levels or ()] == [0, -1, -1, -1, -3, -99]
        assert values.track_read("harm", "remaining") == 4
        assert values.track_read("harm", "penalty") == -1

    def test_marks_past_the_track_are_overflow(self) -> None:
        """002: marks that no longer fit are kept as overflow, not as levels."""
        values = self.harm("tear", "tear", "tear", "tear", "tear")
        assert values.track_read("harm", "filled") == 4
        assert values.wound_state("harm").overflow == 1

    def test_boxes_from_a_derived_max(self) -> None:
        """002: Ember Roads' Strain has 2 + Heart boxes; none clear is -1 on every roll."""
        card = {"abilities": {"heart": 1}}
        clear = sheet(ember_roads(), card)
        full = sheet(ember_roads(), card, {"marks": {"strain": ["strain", "strain", "strain"]}})
        assert clear.track_read("strain", "remaining") == 3
        assert clear.track_read("strain", "penalty") == 0
        assert full.track_read("strain", "remaining") == 0
        assert full.track_read("strain", "penalty") == -1

    def test_penalty_from_five_torches_exhaustion(self) -> None:
        """five-torches' Exhaustion is a one-kind track whose second level costs -2."""
        values = sheet(
            system("five-torches"), {}, {"marks": {"exhaustion": ["fatigue", "fatigue"]}}
        )
        assert values.track_read("exhaustion", "penalty") == -2


class TestLiveStates:
    def test_default(self) -> None:
        """002: a state starts at its default."""
        assert sheet(system("ashfall"), {}).state_value("form") == "human"

    def test_first_value_without_default(self) -> None:
        """002: without a default a state starts at its first value."""
        state = {k: v for k, v in STANCE.items() if k != "default"}
        assert sheet(inline_live(states=[state]), {}).state_value("stance") == "guarded"

    def test_stored_value(self) -> None:
        """A stored value the state offers is read."""
        assert (
            sheet(system("ashfall"), {}, {"states": {"form": "wolf"}}).state_value("form") == "wolf"
        )

    def test_stored_value_no_longer_offered(self) -> None:
        """002: a stored value the state no longer offers reads as the default."""
        assert (
            sheet(system("ashfall"), {}, {"states": {"form": "bat"}}).state_value("form") == "human"
        )

    def test_hidden_state_is_not_on_the_sheet(self) -> None:
        """002: `hideWhen` takes a state off a sheet."""
        state = STANCE | {"hideWhen": {"field": "toughness", "equals": 0}}
        ruleset = inline_live(states=[state])
        assert sheet(ruleset, {"fields": {"toughness": 0}}).live_state("stance") is None
        assert sheet(ruleset, {}).live_state("stance") is not None
