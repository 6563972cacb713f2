"""The optional party sheet (002, "Ficha de grupo…" and "Creación compartida del grupo")."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest

from gmtags import RulesetError, load_ruleset
from gmtags.ruleset.sheet import NumberField
from tests.conftest import FIXTURES

BASE: dict[str, Any] = json.loads((FIXTURES / "rulesets" / "sheet-base.json").read_text())

COIN_CREW: dict[str, Any] = {
    "label": "Crew",
    "fields": [
        {"id": "heat", "label": "Heat", "type": "number", "min": 0, "max": 9, "default": 0},
        {
            "id": "vault",
            "label": "Vault capacity",
            "type": "number",
            "min": 0,
            "max": 16,
            "default": 8,
        },
        {"id": "upgrades", "label": "Upgrades", "type": "text", "maxLength": 400},
    ],
    "pools": [{"id": "coin", "label": "Coin", "max": {"field": "vault"}, "start": "empty"}],
    "advancement": {"fields": ["heat", "vault", "upgrades"], "text": "Record heat after a score."},
    "text": "Coin belongs to the crew.",
}
"""002's party example: a crew whose coin pool's max is the vault field."""

SHARED_CREW: dict[str, Any] = {
    "label": "The Crew",
    "fields": [
        {"id": "tier", "label": "Tier", "type": "number", "min": 0, "max": 4, "default": 0},
        {"id": "size", "label": "Crew size", "type": "number", "min": 0, "max": 12, "default": 0},
    ],
    "lists": [
        {
            "id": "upgrades",
            "label": "Upgrades",
            "columns": [{"id": "name", "label": "Name", "type": "text"}],
        }
    ],
    "builder": {
        "steps": [{"id": "upgrades", "label": "Upgrades", "kind": "rows", "list": "upgrades"}]
    },
    "fromMembers": [{"field": "size", "count": True}],
}
"""002's shared-creation example: party lists, a builder and a member count."""


def with_party(party: dict[str, Any]) -> dict[str, Any]:
    data = copy.deepcopy(BASE)
    data["party"] = copy.deepcopy(party)
    return data


def paths(data: dict[str, Any]) -> list[str]:
    with pytest.raises(RulesetError) as caught:
        load_ruleset(data)
    return sorted(problem.path for problem in caught.value.problems)


class TestParty:
    def test_seed_coin_pool_loads(self) -> None:
        """The crew's coin pool reads its max from the party's vault field and starts empty."""
        party = load_ruleset(with_party(COIN_CREW)).party
        assert party is not None and party.pools[0].starts_empty
        assert party.pools[0].max.target == "vault"
        assert isinstance(party.fields[1], NumberField)

    def test_seed_shared_creation_loads(self) -> None:
        """Party lists, a builder kept as written, and a member count load."""
        party = load_ruleset(with_party(SHARED_CREW)).party
        assert party is not None and party.lists[0].id == "upgrades"
        assert party.builder == SHARED_CREW["builder"]
        assert party.from_members[0].count is True

    def test_without_party_there_is_none(self) -> None:
        """A ruleset without party keeps its current behaviour."""
        assert load_ruleset(copy.deepcopy(BASE)).party is None

    def test_ids_may_match_a_characters(self) -> None:
        """Character and party ids may coincide (the base sheet also has a field 'heat' track)."""
        party = copy.deepcopy(COIN_CREW)
        party["fields"][0]["id"] = "toughness"
        party["advancement"]["fields"][0] = "toughness"
        assert load_ruleset(with_party(party)).party is not None

    def test_needs_a_field_or_a_pool(self) -> None:
        """A party sheet needs at least one field or pool."""
        assert paths(with_party({"label": "Crew", "text": "Nothing here."})) == ["party"]

    def test_ids_are_unique_within_the_party(self) -> None:
        """A party pool may not share an id with a party field."""
        party = copy.deepcopy(COIN_CREW)
        party["pools"][0]["id"] = "heat"
        assert paths(with_party(party)) == ["party.pools.0.id"]

    def test_pool_max_reads_only_party_values(self) -> None:
        """A party pool's max reads a constant or a party number field, never a character's."""
        party = copy.deepcopy(COIN_CREW)
        party["pools"][0]["max"] = {"derived": "grit_max"}
        party["pools"].append({"id": "favour", "label": "Favour", "max": {"field": "upgrades"}})
        assert paths(with_party(party)) == ["party.pools.0.max.derived", "party.pools.1.max.field"]

    def test_hide_when_names_party_fields(self) -> None:
        """hideWhen on the party sheet names a party field."""
        party = copy.deepcopy(COIN_CREW)
        party["pools"][0]["hideWhen"] = {"field": "heat", "in": [0, 10]}
        assert paths(with_party(party)) == ["party.pools.0.hideWhen.in.1"]

    def test_advancement_names_advanceable_party_fields(self) -> None:
        """advancement.fields names number, text or longtext fields of the party."""
        party = copy.deepcopy(COIN_CREW)
        party["fields"].append({"id": "sworn", "label": "Sworn", "type": "boolean"})
        party["advancement"]["fields"] = ["sworn", "toughness"]
        assert paths(with_party(party)) == [
            "party.advancement.fields.0",
            "party.advancement.fields.1",
        ]

    def test_text_is_one_safe_line(self) -> None:
        """advancement.text and text are prompt-safe lines of at most 400 characters."""
        party = copy.deepcopy(COIN_CREW)
        party["text"] = "x" * 401
        party["advancement"]["text"] = "two\nlines"
        assert paths(with_party(party)) == ["party.advancement.text", "party.text"]

    def test_summary_picks_party_fields_and_lists(self) -> None:
        """The summary reuses sheetSummary: party fields and lists, never derived values."""
        party = copy.deepcopy(SHARED_CREW)
        party["summary"] = {
            "fields": ["tier"],
            "lists": [{"list": "upgrades", "nameColumn": "name"}],
        }
        assert load_ruleset(with_party(party)).party is not None
        party["summary"] = {
            "fields": ["toughness"],
            "derived": ["grit"],
            "lists": [{"list": "gear", "nameColumn": "name"}],
        }
        assert paths(with_party(party)) == [
            "party.summary.derived",
            "party.summary.fields.0",
            "party.summary.lists.0.list",
        ]

    def test_from_members(self) -> None:
        """fromMembers: up to 8 party number fields, each a count or a character number sum."""
        party = copy.deepcopy(SHARED_CREW)
        party["fromMembers"] = [
            {"field": "size", "count": True},
            {"field": "tier", "sum": "toughness"},
        ]
        assert load_ruleset(with_party(party)).party is not None
        party["fromMembers"] = [{"field": "size", "count": True, "sum": "toughness"}]
        assert paths(with_party(party)) == ["party.fromMembers.0"]
        party["fromMembers"] = [{"field": "size", "count": True}] * 9
        assert paths(with_party(party)) == ["party.fromMembers"]

    def test_party_lists_hold_rows_only(self) -> None:
        """A party list carries no row checks: party values never read a character's ability."""
        party = copy.deepcopy(SHARED_CREW)
        party["lists"][0]["columns"].append(
            {"id": "rating", "label": "Rating", "type": "number", "min": 0, "max": 5}
        )
        party["lists"][0]["checks"] = [
            {"id": "c", "name": "name", "rating": "rating", "ability": "brawn"}
        ]
        assert paths(with_party(party)) == ["party.lists.0.checks"]

    def test_party_has_no_sections(self) -> None:
        """002: party sheets have no sections, so a party field or list names none."""
        party = copy.deepcopy(SHARED_CREW)
        party["fields"][0]["section"] = "about"
        party["lists"][0]["section"] = "about"
        assert paths(with_party(party)) == ["party.fields.0.section", "party.lists.0.section"]

    def test_party_is_strict(self) -> None:
        """Unknown party keys are refused; the party has no derived values or sections."""
        party = copy.deepcopy(COIN_CREW)
        party["derived"] = []
        assert paths(with_party(party)) == ["party.derived"]
