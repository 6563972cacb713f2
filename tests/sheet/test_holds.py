"""gmtags/sheet/holds.py: a saved card holds only values its sheet can hold, and a character's
name is 1–100 characters with no control characters (SPEC §11: "otherwise 422 with every
problem and its path")."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings

from gmtags import Ruleset, build_character, load_ruleset
from gmtags.errors import Problem
from gmtags.sheet.holds import card_problems_for, name_problems, shown
from tests.builder.test_build import ANY_ANSWERS
from tests.conftest import FIXTURES
from tests.json_values import JSON, replaced_somewhere

BASE: dict[str, Any] = json.loads((FIXTURES / "rulesets" / "clocks-default.json").read_text())
TIERS = [{"id": "untrained", "label": "Untrained"}, {"id": "trained", "label": "Trained"}]
SHEET: dict[str, Any] = {
    "version": 1,
    "abilities": [
        {"id": "str", "label": "Strength", "min": 3, "max": 18, "default": 10},
        {"id": "grit", "label": "Grit", "min": 0, "max": 9, "default": 0},
        {
            "id": "luck",
            "label": "Luck",
            "min": 0,
            "max": 20,
            "default": 0,
            "value": [{"abilityScore": "str"}],
        },
    ],
    "skills": [{"id": "climb", "label": "Climb", "ability": "str"}],
    "saves": [{"id": "nerve", "label": "Nerve"}],
    "bonusRange": {"min": -5, "max": 5},
    "fields": [
        {"id": "mood", "label": "Mood", "type": "enum", "values": ["cold", "warm"]},
        {"id": "level", "label": "Level", "type": "number", "min": 1, "max": 20},
        {
            "id": "weight",
            "label": "Weight",
            "type": "number",
            "min": 0,
            "max": 9.5,
            "integer": False,
        },
        {"id": "title", "label": "Title", "type": "text", "maxLength": 10},
        {"id": "story", "label": "Story", "type": "longtext", "maxLength": 50},
        {"id": "hero", "label": "Hero", "type": "boolean"},
        {"id": "hit_die", "label": "Hit die", "type": "dice"},
    ],
    "lists": [
        {
            "id": "gear",
            "label": "Gear",
            "maxItems": 3,
            "columns": [
                {"id": "name", "label": "Name", "type": "text", "maxLength": 20},
                {"id": "bulk", "label": "Bulk", "type": "number", "min": 0, "max": 5},
                {"id": "extra", "label": "Extra", "type": "number", "min": 0, "max": 5},
                {"id": "total", "label": "Total", "type": "number", "min": 0, "max": 10}
                | {"sum": ["bulk", "extra"]},
                {"id": "packed", "label": "Packed", "type": "boolean"},
                {"id": "kind", "label": "Kind", "type": "enum", "values": ["tool", "food"]},
            ],
        }
    ],
}
PARTY: dict[str, Any] = {
    "label": "Crew",
    "fields": [
        {"id": "heat", "label": "Heat", "type": "number", "min": 0, "max": 9},
        {"id": "size", "label": "Size", "type": "number", "min": 0, "max": 12},
    ],
    "lists": [
        {
            "id": "upgrades",
            "label": "Upgrades",
            "columns": [{"id": "name", "label": "Name", "type": "text"}],
        }
    ],
    "fromMembers": [{"field": "size", "count": True}],
}


def ruleset_of(sheet: dict[str, Any] = SHEET, **top: Any) -> Ruleset:
    """A small ruleset with `sheet` (and two proficiency tiers), with `top` keys added."""
    data = copy.deepcopy(BASE)
    data["resolution"]["proficiencyTiers"] = TIERS
    return load_ruleset({**data, "sheet": sheet, **top})


RULESET = ruleset_of()
WITH_PARTY = ruleset_of(party=PARTY)


def problems(card: Any, **keys: Any) -> list[str]:
    """Every problem of `card` on `RULESET`, as `path: message`."""
    ruleset = keys.pop("ruleset", RULESET)
    return [str(problem) for problem in card_problems_for(ruleset, card, **keys)]


def paths(card: Any, **keys: Any) -> list[str]:
    ruleset = keys.pop("ruleset", RULESET)
    return [problem.path for problem in card_problems_for(ruleset, card, **keys)]


class TestFields:
    def test_a_card_the_sheet_can_hold(self) -> None:
        """Every value in range, every enum value offered, every text short enough: none."""
        card = {
            "abilities": {"str": 18, "grit": 0},
            "skills": {"climb": "trained"},
            "saves": {"nerve": {"tier": "untrained", "bonus": -5}},
            "bonuses": {"climb": 5},
            "fields": {"mood": "warm", "level": 1, "weight": 9.5, "title": "Sir"}
            | {"story": "Line one\nline two\ttabbed", "hero": False, "hit_die": "1d8"},
            "lists": {"gear": [{"name": "Rope", "bulk": 1, "packed": True, "kind": "tool"}]},
            "picks": ["feats/tough"],
            "items": [{"ref": "gear/rope", "count": 2}],
            "builder": {"answers": {"v": 1}},
            "portrait": "kept as SPEC §4 keeps unknown keys",
        }
        assert problems(card) == []

    def test_null_is_a_field_left_blank(self) -> None:
        """A field written null is blank (it reads its default), not a wrong value."""
        assert problems({"fields": {"mood": None, "level": None}}) == []

    def test_an_enum_value_it_does_not_offer(self) -> None:
        """002: an enum is a fixed list of values; "hot" is none of them."""
        assert problems({"fields": {"mood": "hot"}}) == [
            'card.fields.mood: "hot" is not one of cold, warm'
        ]

    def test_an_enum_value_of_another_type(self) -> None:
        """A number or a list in an enum field is none of its values either."""
        assert problems({"fields": {"mood": 1}}) == ["card.fields.mood: 1 is not one of cold, warm"]
        assert paths({"fields": {"mood": ["cold"]}}) == ["card.fields.mood"]

    def test_a_number_below_its_range(self) -> None:
        """A number field's `min` is the least it holds."""
        assert problems({"fields": {"level": 0}}) == ["card.fields.level: 0 is outside 1..20"]

    def test_a_number_above_its_range(self) -> None:
        """A number field's `max` is the most it holds: a huge number is refused, not clamped."""
        assert problems({"fields": {"level": 10**20}}) == [
            "card.fields.level: 100000000000000000000 is outside 1..20"
        ]
        assert problems({"fields": {"weight": 9.6}}) == [
            "card.fields.weight: 9.6 is outside 0..9.5"
        ]

    def test_a_fraction_in_an_integer_field(self) -> None:
        """A number field is whole unless `integer: false`."""
        assert problems({"fields": {"level": 2.5, "weight": 2.5}}) == [
            "card.fields.level: 2.5 is not a whole number"
        ]

    def test_not_a_number(self) -> None:
        """Text or a boolean in a number field is no number (true is not 1)."""
        assert problems({"fields": {"level": "3", "weight": True}}) == [
            'card.fields.level: "3" is not a number',
            "card.fields.weight: true is not a number",
        ]

    def test_text_longer_than_its_length(self) -> None:
        """A text field holds at most its `maxLength` characters; a long one is cut in the
        message."""
        assert problems({"fields": {"title": "x" * 11}}) == [
            'card.fields.title: "xxxxxxxxxxx" is longer than maxLength 10'
        ]
        assert problems({"fields": {"story": "y" * 900_000}}) == [
            "card.fields.story: 900000 characters is longer than maxLength 50"
        ]
        assert problems({"fields": {"hit_die": "1d8" * 14}}) == [
            "card.fields.hit_die: 42 characters is longer than 40 characters"
        ]

    def test_a_line_break_in_one_line_text(self) -> None:
        """A text field is one line; a long text holds line breaks and tabs but no other
        control character."""
        assert problems({"fields": {"title": "Sir\nX", "story": "a\nb\x00"}}) == [
            'card.fields.title: "Sir\\nX" holds a control character or line break',
            'card.fields.story: "a\\nb\\u0000" holds a control character',
        ]

    def test_a_lone_surrogate_is_no_text(self) -> None:
        """SPEC §8: a lone UTF-16 surrogate half is refused in text too."""
        assert paths({"fields": {"title": "a\ud800"}}) == ["card.fields.title"]

    def test_not_true_or_false(self) -> None:
        """A boolean field holds true or false, not 1."""
        assert problems({"fields": {"hero": 1}}) == ["card.fields.hero: 1 is not true or false"]

    def test_a_field_the_sheet_does_not_declare(self) -> None:
        """A field the sheet does not have is refused (module doc: no value the sheet holds)."""
        assert problems({"fields": {"mana": 3}}) == [
            "card.fields.mana: the sheet has no field 'mana'"
        ]


class TestAbilitiesSkillsSaves:
    def test_an_ability_out_of_range(self) -> None:
        """An ability holds a whole number within its min..max."""
        assert problems({"abilities": {"str": 19, "grit": -1}}) == [
            "card.abilities.str: 19 is outside 3..18",
            "card.abilities.grit: -1 is outside 0..9",
        ]
        assert problems({"abilities": {"str": 10.5}}) == [
            "card.abilities.str: 10.5 is not a whole number"
        ]

    def test_a_computed_ability_is_never_stored(self) -> None:
        """004 (1.156): a computed score is read-only; a stored one is refused."""
        assert problems({"abilities": {"luck": 3}}) == [
            "card.abilities.luck: 'luck' is computed from the sheet, never stored"
        ]

    def test_an_unknown_ability_skill_or_save(self) -> None:
        """An ability, a skill or a save the sheet does not have is refused."""
        card = {"abilities": {"wis": 3}, "skills": {"fly": "trained"}, "saves": {"doom": "trained"}}
        assert problems(card) == [
            "card.abilities.wis: the sheet has no ability 'wis'",
            "card.skills.fly: the sheet has no skill 'fly'",
            "card.saves.doom: the sheet has no save 'doom'",
        ]

    def test_a_tier_it_does_not_have(self) -> None:
        """A skill's or save's tier is one of the proficiency tiers, in either form."""
        card = {"skills": {"climb": "master"}, "saves": {"nerve": {"tier": "master"}}}
        assert problems(card) == [
            'card.skills.climb: "master" is not one of untrained, trained',
            'card.saves.nerve.tier: "master" is not one of untrained, trained',
        ]

    def test_a_bonus_outside_bonus_range(self) -> None:
        """SCHEMA-NOTES §6: the free bonus lies within `bonusRange`, on the entry or in
        `bonuses`; `bonuses` names skills and saves only."""
        card = {"skills": {"climb": {"tier": "trained", "bonus": 6}}, "bonuses": {"nerve": -6}}
        assert problems(card) == [
            "card.skills.climb.bonus: 6 is outside -5..5 (bonusRange)",
            "card.bonuses.nerve: -6 is outside -5..5 (bonusRange)",
        ]
        assert paths({"bonuses": {"str": 1}}) == ["card.bonuses.str"]


class TestLists:
    def test_a_column_the_list_does_not_declare(self) -> None:
        """A row's cell in a column the list does not have is refused; the marks the builder
        and catalog picks put on rows (`_catalog`, `_pick`, `_row`) are kept."""
        row = {"name": "Rope", "colour": "red", "_catalog": "gear/rope", "_pick": "kit", "_row": 0}
        assert problems({"lists": {"gear": [row]}}) == [
            "card.lists.gear.0.colour: list 'gear' has no column 'colour'"
        ]

    def test_a_cell_its_column_cannot_hold(self) -> None:
        """Each cell is held to its column's shape, row by row."""
        rows = [{"bulk": 6}, {"packed": "yes", "kind": "weapon", "name": "n" * 21}]
        assert problems({"lists": {"gear": rows}}) == [
            "card.lists.gear.0.bulk: 6 is outside 0..5",
            'card.lists.gear.1.packed: "yes" is not true or false',
            'card.lists.gear.1.kind: "weapon" is not one of tool, food',
            'card.lists.gear.1.name: "nnnnnnnnnnnnnnnnnnnnn" is longer than maxLength 20',
        ]

    def test_a_computed_column_is_never_stored(self) -> None:
        """004: a `sum` column is the read-only sum of others."""
        assert paths({"lists": {"gear": [{"bulk": 1, "total": 1}]}}) == ["card.lists.gear.0.total"]

    def test_more_rows_than_max_items(self) -> None:
        """A list holds at most its `maxItems` rows."""
        assert problems({"lists": {"gear": [{}] * 4}}) == [
            "card.lists.gear: 4 rows, more than its 3"
        ]

    def test_a_list_the_sheet_does_not_declare(self) -> None:
        assert problems({"lists": {"spells": []}}) == [
            "card.lists.spells: the sheet has no list 'spells'"
        ]


class TestShapeAndParty:
    def test_every_problem_at_once(self) -> None:
        """Every problem is listed, each at its path, never only the first."""
        card = {
            "abilities": {"str": 99},
            "fields": {"mood": "hot", "level": 99, "title": "t" * 11},
            "lists": {"gear": [{"bulk": -1, "x": 1}]},
            "picks": "not a list",
        }
        assert paths(card) == [
            "card.picks",
            "card.abilities.str",
            "card.fields.mood",
            "card.fields.level",
            "card.fields.title",
            "card.lists.gear.0.bulk",
            "card.lists.gear.0.x",
        ]

    @pytest.mark.parametrize("card", [None, 5, "card", [], True])
    def test_a_card_that_is_no_object(self, card: Any) -> None:
        assert problems(card) == ["card: a card is a JSON object"]

    def test_a_section_of_the_wrong_type(self) -> None:
        assert problems({"fields": [], "lists": {"gear": {}}}) == [
            "card.fields: [] is not a JSON object",
            "card.lists.gear: {} is not a list of rows",
        ]

    def test_where_names_the_root(self) -> None:
        """`where` is the root of every path (a body's key)."""
        found = card_problems_for(RULESET, {"fields": {"mood": "hot"}}, where="sheet")
        assert found == [Problem("sheet.fields.mood", '"hot" is not one of cold, warm')]

    def test_a_party_sheet(self) -> None:
        """A party sheet holds the party's fields and lists, never a field read from the
        members (002: "Los campos de miembros se calculan … cada vez que se lee")."""
        sheet = {"fields": {"heat": 10, "size": 3, "level": 2}, "lists": {"upgrades": [{"x": 1}]}}
        assert problems(sheet, ruleset=WITH_PARTY, party=True) == [
            "card.fields.heat: 10 is outside 0..9",
            "card.fields.size: 'size' is read from the party's members, never stored",
            "card.fields.level: the sheet has no field 'level'",
            "card.lists.upgrades.0.x: list 'upgrades' has no column 'x'",
        ]
        assert problems({"fields": {"heat": 9}}, ruleset=WITH_PARTY, party=True) == []

    def test_a_party_sheet_holds_no_character_section(self) -> None:
        """002: a party sheet has fields and lists, no abilities, skills, saves or items."""
        sheet = {"abilities": {"str": 10}, "items": []}
        assert problems(sheet, ruleset=WITH_PARTY, party=True) == [
            "card.abilities: a party sheet holds fields and lists, not abilities",
            "card.items: a party sheet holds fields and lists, not items",
        ]

    def test_a_ruleset_without_a_party_sheet(self) -> None:
        assert problems({"fields": {}}, party=True) == ["card: this ruleset has no party sheet"]

    @settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(card=JSON)
    def test_any_json_value_is_problems_never_an_exception(self, card: Any) -> None:
        """Total: any JSON value gives a list of problems with paths under `card`."""
        for problem in card_problems_for(RULESET, card):
            assert problem.path.startswith("card")


BUILDERS = FIXTURES / "rulesets" / "builder"
FIVE_E = load_ruleset(BUILDERS / "5e-builder.json")


def answers_file(path: Path) -> dict[str, Any]:
    found: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return found


class TestBuiltCards:
    @pytest.mark.parametrize(
        ("ruleset", "answers"),
        [
            (BUILDERS / "5e-builder.json", FIXTURES / "answers" / "5e-half-elf-wizard.json"),
            (Path("gmtags/demo/builder-ruleset.json"), Path("gmtags/demo/builder-answers.json")),
        ],
        ids=["5e half-elf wizard", "demo"],
    )
    def test_the_fixtures_answers(self, ruleset: Path, answers: Path) -> None:
        """Every card the builder makes from the fixtures' answers may be saved as it is."""
        root = Path(__file__).resolve().parent.parent.parent
        loaded = load_ruleset(root / ruleset)
        card = build_character(loaded, answers_file(root / answers)).card
        assert card_problems_for(loaded, card) == []

    @pytest.mark.parametrize("name", sorted(path.name for path in BUILDERS.glob("*.json")))
    def test_every_builder_s_blank_card(self, name: str) -> None:
        """The card each bundled builder gives from no answers may be saved (the party's too)."""
        ruleset = load_ruleset(BUILDERS / name)
        party = ruleset.sheet.builder_model is None
        card = build_character(ruleset, {"v": 1, "seed": 1}, party=party, members={"A": {}}).card
        assert card_problems_for(ruleset, card, party=party) == []

    @settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(ans=ANY_ANSWERS)
    def test_any_answers_build_a_card_that_may_be_saved(self, ans: dict[str, Any]) -> None:
        """Whatever the answers, the builder writes only values the sheet can hold (a value
        that does not fit is a problem of the build, never written)."""
        card = build_character(FIVE_E, ans).card
        assert card_problems_for(FIVE_E, card) == []

    def test_the_builder_does_not_write_what_a_save_refuses(self) -> None:
        """A fields step answered with true for a number or a line break for one-line text
        reports it and leaves the field blank, so the card can be saved."""
        wizard = answers_file(FIXTURES / "answers" / "5e-half-elf-wizard.json")
        wizard["steps"]["level"]["fields"] = {"level": True, "alignment": "Lawful\nGood"}
        res = build_character(FIVE_E, wizard)
        assert [p["path"] for p in res.problems] == [
            "steps.level.fields.level",
            "steps.level.fields.alignment",
        ]
        assert card_problems_for(FIVE_E, res.card) == []

    @settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(changed=replaced_somewhere(build_character(FIVE_E, {"v": 1, "seed": 2}).card))
    def test_a_built_card_changed_anywhere(self, changed: tuple[Any, Any]) -> None:
        """A built card with any value put anywhere gives problems, never an exception."""
        _, card = changed
        assert isinstance(card_problems_for(FIVE_E, card), list)


class TestNames:
    @pytest.mark.parametrize(
        "name",
        [
            "Bram",
            "Élise the Quiet",
            "x" * 100,
            " Bram ",
            "李小龍",
            "Zoë 👨\u200d👩\u200d👧",
            "O'Neil",
            "\u200fNadia\u200e",
        ],
        ids=[
            "plain",
            "accents",
            "100",
            "spaces around",
            "han",
            "emoji family",
            "apostrophe",
            "bidi marks",
        ],
    )
    def test_a_name(self, name: str) -> None:
        """1–100 characters once trimmed; format characters names need are allowed."""
        assert name_problems(name) == []

    @pytest.mark.parametrize(
        ("name", "message"),
        [
            ("", "a name is 1 to 100 characters, not blank"),
            ("   \t ", "a name is 1 to 100 characters, not blank"),
            ("x" * 101, "101 characters, more than 100"),
            ("Bram\x00", "holds a control character or a line break"),
            ("Bram\nthe Quiet", "holds a control character or a line break"),
            ("Bram\u2028Quiet", "holds a control character or a line break"),
            ("Bram\x85Quiet", "holds a control character or a line break"),
            ("Bram\ud800", "a lone UTF-16 surrogate half is not text (a string holds one)"),
            ("Bram\u202eolleh", "holds a bidirectional control (U+202A–U+202E, U+2066–U+2069)"),
            ("!!!", "has no letter or digit, so no who= could name it"),
            (5, "5 is not text"),
            (None, "null is not text"),
        ],
        ids=[
            "empty",
            "blank",
            "101",
            "NUL",
            "newline",
            "line separator",
            "NEL",
            "surrogate",
            "bidi override",
            "no letter",
            "number",
            "null",
        ],
    )
    def test_a_name_refused(self, name: Any, message: str) -> None:
        """SPEC §11: "a name of 1–100 characters with no control characters"."""
        assert name_problems(name) == [Problem("name", message)]

    def test_every_problem_of_a_name(self) -> None:
        """A 900,000-character name holding NUL has both problems, at `where`."""
        assert name_problems("x" * 899_999 + "\x00", "body.name") == [
            Problem("body.name", "900000 characters, more than 100"),
            Problem("body.name", "holds a control character or a line break"),
        ]


def test_a_number_json_cannot_spell_is_shown_not_raised() -> None:
    """A card value of inf or nan (Python's JSON reads them) is named in a message, never a
    ValueError from the JSON writer (hypothesis found it in a built card)."""
    assert (shown(float("inf")), shown(float("nan"))) == ("inf", "nan")
