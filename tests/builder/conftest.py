"""A 5e ruleset with a guided builder, for the build tests: the reference 5e file, unchanged,
plus catalogs of races, subraces, classes, class features and languages and a `sheet.builder`
(race, subrace, class, level, scores, skills, languages), written from 004's own examples."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest

from gmtags import Ruleset, load_ruleset
from tests.conftest import REFERENCE_RULESETS

FIVE_E: dict[str, Any] = json.loads(
    (REFERENCE_RULESETS / "ruleset-5e-2014.example.json").read_text(encoding="utf-8")
)


def feature(name: str) -> list[dict[str, Any]]:
    return [{"list": "features", "values": {"name": name, "text": name}}]


RACES = {
    "id": "races",
    "label": "Races",
    "feeds": ["features"],
    "entries": [
        {
            "id": "half-elf",
            "label": "Half-Elf",
            "rows": feature("Fey Ancestry"),
            "grants": {
                "abilities": {
                    "add": {"cha": 2},
                    "choose": [{"count": 2, "amount": 1, "except": ["cha"]}],
                },
                "trained": {"choose": [{"what": "skills", "count": 2}]},
                "sets": {"speed": 30},
                "entries": {"choose": [{"catalog": "languages", "count": 1}]},
            },
        },
        {
            "id": "elf",
            "label": "Elf",
            "rows": feature("Darkvision"),
            "grants": {
                "abilities": {"add": {"dex": 2}},
                "trained": {"skills": ["perception"]},
                "sets": {"speed": 30},
            },
        },
        {
            "id": "dwarf",
            "label": "Dwarf",
            "rows": feature("Stonecunning"),
            "grants": {"abilities": {"add": {"con": 2}}, "sets": {"speed": 25}},
        },
    ],
}

SUBRACES = {
    "id": "subraces",
    "label": "Subraces",
    "feeds": ["features"],
    "filters": [{"id": "parent", "label": "Race", "type": "text"}],
    "entries": [
        {
            "id": "high-elf",
            "label": "High Elf",
            "filters": {"parent": "elf"},
            "rows": feature("Cantrip"),
            "grants": {"abilities": {"add": {"int": 1}}},
        },
        {
            "id": "wood-elf",
            "label": "Wood Elf",
            "filters": {"parent": "Elf"},
            "rows": feature("Mask of the Wild"),
            "grants": {"abilities": {"add": {"wis": 1}}, "sets": {"speed": 35}},
        },
        {
            "id": "hill-dwarf",
            "label": "Hill Dwarf",
            "filters": {"parent": "dwarf"},
            "rows": feature("Dwarven Toughness"),
            "grants": {"abilities": {"add": {"wis": 1}}},
        },
    ],
}

CLASSES = {
    "id": "classes",
    "label": "Classes",
    "feeds": ["features"],
    "entries": [
        {
            "id": "wizard",
            "label": "Wizard",
            "rows": feature("Arcane Recovery"),
            "grants": {
                "sets": {"hit_die": "d6", "spellcasting_ability": "int"},
                "trained": {
                    "saves": ["int_save", "wis_save"],
                    "choose": [
                        {
                            "what": "skills",
                            "count": 2,
                            "from": ["arcana", "history", "insight", "investigation", "medicine"],
                        }
                    ],
                },
            },
        },
        {
            "id": "fighter",
            "label": "Fighter",
            "rows": feature("Second Wind"),
            "grants": {
                "sets": {"hit_die": "d10"},
                "trained": {
                    "saves": ["str_save", "con_save"],
                    "choose": [
                        {
                            "what": "skills",
                            "count": 2,
                            "from": ["acrobatics", "athletics", "insight"],
                        }
                    ],
                },
            },
        },
    ],
}

FEATURES = {
    "id": "class_features",
    "label": "Class features",
    "feeds": ["features"],
    "filters": [{"id": "level", "label": "Level", "type": "number"}],
    "entries": [
        {
            "id": "spellbook",
            "label": "Spellbook",
            "filters": {"level": 1},
            "rows": feature("Spellbook"),
        },
        {
            "id": "arcane-tradition",
            "label": "Arcane Tradition",
            "filters": {"level": 2},
            "rows": feature("Arcane Tradition"),
        },
        {
            "id": "asi-4",
            "label": "Ability Score Improvement",
            "filters": {"level": 4},
            "exclusive": "asi-4",
            "grants": {
                "abilities": {"choose": [{"count": 2, "amount": 1, "repeat": True, "upTo": 20}]}
            },
        },
        {
            "id": "tough-4",
            "label": "Tough (feat)",
            "filters": {"level": 4},
            "exclusive": "asi-4",
            "rows": feature("Tough"),
        },
    ],
}

LANGUAGES = {
    "id": "languages",
    "label": "Languages",
    "feeds": ["proficiencies"],
    "entries": [
        {
            "id": lang,
            "label": lang.title(),
            "rows": [{"list": "proficiencies", "values": {"name": lang.title()}}],
        }
        for lang in ("elvish", "dwarvish", "orc", "sylvan")
    ],
}

BUILDER = {
    "tier": "proficient",
    "steps": [
        {"id": "race", "label": "Race", "kind": "catalog", "catalog": "races", "field": "race"},
        {
            "id": "subrace",
            "label": "Subrace",
            "kind": "catalog",
            "catalog": "subraces",
            "within": {"step": "race", "filter": "parent"},
            "min": 0,
        },
        {
            "id": "class",
            "label": "Class",
            "kind": "catalog",
            "catalog": "classes",
            "field": "class",
        },
        {
            "id": "level",
            "label": "Level",
            "kind": "fields",
            "fields": ["level", "subclass", "alignment"],
            "optional": ["subclass"],
        },
        {
            "id": "features",
            "label": "Features",
            "kind": "catalog",
            "catalog": "class_features",
            "upTo": {"filter": "level", "value": {"field": "level"}},
            "min": 0,
            "max": 20,
        },
        {
            "id": "scores",
            "label": "Ability scores",
            "kind": "abilities",
            "methods": {
                "pointBuy": {
                    "budget": 27,
                    "costs": [[8, 0], [9, 1], [10, 2], [11, 3], [12, 4], [13, 5], [14, 7], [15, 9]],
                },
                "standardArray": [15, 14, 13, 12, 10, 8],
                "roll": {"count": 4, "sides": 6, "keep": 3},
                "manual": True,
            },
            "default": "pointBuy",
        },
        {"id": "skills", "label": "Skills", "kind": "trained"},
        {"id": "languages", "label": "Languages", "kind": "choices", "catalog": "languages"},
    ],
}


def five_e_builder() -> dict[str, Any]:
    data = copy.deepcopy(FIVE_E)
    added = copy.deepcopy([RACES, SUBRACES, CLASSES, FEATURES, LANGUAGES])
    data["catalogs"] = [*data.get("catalogs", []), *added]
    data["sheet"]["builder"] = copy.deepcopy(BUILDER)
    return data


@pytest.fixture(scope="session")
def five_e() -> Ruleset:
    return load_ruleset(five_e_builder())


SEED_EXAMPLE: dict[str, Any] = {
    "tier": "proficient",
    "steps": [
        {"id": "race", "label": "Race", "kind": "catalog", "catalog": "races", "field": "race"},
        {
            "id": "subrace",
            "label": "Subrace",
            "kind": "catalog",
            "catalog": "races",
            "min": 0,
            "within": {"step": "race", "filter": "parent"},
        },
        {
            "id": "class",
            "label": "Class",
            "kind": "catalog",
            "catalog": "classes",
            "field": "class",
        },
        {"id": "level", "label": "Level", "kind": "fields", "fields": ["level", "background"]},
        {
            "id": "scores",
            "label": "Ability Scores",
            "kind": "abilities",
            "methods": {
                "pointBuy": {
                    "budget": 27,
                    "costs": [[8, 0], [9, 1], [10, 2], [11, 3], [12, 4], [13, 5], [14, 7], [15, 9]],
                },
                "standardArray": [15, 14, 13, 12, 10, 8],
                "roll": {"count": 4, "sides": 6, "keep": 3},
                "manual": True,
            },
        },
        {"id": "skills", "label": "Proficiencies", "kind": "trained"},
        {"id": "gear", "label": "Equipment", "kind": "startingGear"},
    ],
}
"""004's own example builder, key for key as the seed prints it (its first JSON): the gear step
names no kits."""

SEED_RACES = {
    "id": "races",
    "label": "Races",
    "feeds": ["features"],
    "filters": [{"id": "parent", "label": "Race", "type": "text"}],
    "entries": [
        {
            "id": "elf",
            "label": "Elf",
            "rows": feature("Darkvision"),
            "grants": {"abilities": {"add": {"dex": 2}}, "trained": {"skills": ["perception"]}},
        },
        {
            "id": "high-elf",
            "label": "High Elf",
            "filters": {"parent": "elf"},
            "rows": feature("Cantrip"),
            "grants": {"abilities": {"add": {"int": 1}}},
        },
    ],
}
"""One catalog for 004's race and subrace steps ("como una subraza nombra su raza": a subrace
names its race in the `parent` filter)."""


def seed_example() -> dict[str, Any]:
    """The reference 5e file with 004's own example builder, unchanged, and the races and
    classes catalogs it names."""
    data = copy.deepcopy(FIVE_E)
    data["catalogs"] = [*data.get("catalogs", []), *copy.deepcopy([SEED_RACES, CLASSES])]
    data["sheet"]["builder"] = copy.deepcopy(SEED_EXAMPLE)
    return data
