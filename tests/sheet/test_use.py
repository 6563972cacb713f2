"""Tests for gmtags/sheet/use.py: paying for a picked catalog entry (ENGINE-NOTES §6 `use`)."""

from __future__ import annotations

import json
from functools import cache
from typing import Any

import pytest

from gmtags import Ruleset, RulesetError, load_ruleset
from gmtags.sheet import live
from gmtags.sheet.live import Changed, Refused
from gmtags.sheet.use import KnownEntry, catalog_entries, find_entry, use
from gmtags.sheet.values import SheetValues
from gmtags.state.snapshot import CharacterCard, LiveEntry
from tests.conftest import FIXTURES

REFERENCE = FIXTURES / "rulesets" / "reference"


def _spell(entry_id: str, label: str, cost: Any) -> dict[str, Any]:
    return {
        "id": entry_id,
        "label": label,
        "rows": [{"list": "spells", "values": {"name": label, "level": 1}}],
        "mechanics": {"kind": "utility", "cost": cost},
    }


SPELLS = {
    "id": "spells",
    "label": "Spells",
    "feeds": ["spells"],
    "entries": [
        _spell("magic-missile", "Magic Missile", [{"pool": "slots", "amount": 1}]),
        _spell("shield", "Shield", [{"pool": "slots_1", "amount": 1}]),
        _spell(
            "second-wind",
            "Second Wind",
            [{"pool": "slots_1", "amount": 1}, {"pool": "hit_dice", "amount": 1}],
        ),
        {
            "id": "light",
            "label": "Light",
            "rows": [{"list": "spells", "values": {"name": "Light"}}],
        },
    ],
}
"""A spell catalog added to the 5e example in memory (the file on disk stays unmodified)."""

OTHER = {
    "id": "tomes",
    "label": "Tomes",
    "feeds": ["spells"],
    "entries": [_spell("shield", "Shield", [{"pool": "hp", "amount": 1}])],
}


@cache
def five_e() -> Ruleset:
    data = json.loads((REFERENCE / "ruleset-5e-2014.example.json").read_text())
    data["catalogs"] = [
        *data["catalogs"],
        SPELLS,
        OTHER,
        {"id": "far", "label": "Far", "feeds": ["spells"], "asset": "catalogs/far.json"},
    ]
    return load_ruleset(data)


@cache
def reference(name: str) -> Ruleset:
    return load_ruleset(REFERENCE / name)


CASTER: dict[str, Any] = {
    "fields": {"level": 3, "spellcasting_ability": "int", "slots_max_1": 4, "slots_max_2": 2},
    "picks": ["spells/magic-missile", "spells/shield", "spells/second-wind", "spells/light"],
}


def run(
    rules: Ruleset, card: dict[str, Any], name: str, pool: str | None = None, **entry: Any
) -> live.Outcome:
    sheet = SheetValues(rules, CharacterCard.model_validate(card), LiveEntry(**entry))
    return use(sheet, live.character_pools(sheet), sheet.live, name, pool)


def changed(outcome: live.Outcome) -> Changed:
    assert isinstance(outcome, Changed), outcome
    return outcome


def reason(outcome: live.Outcome) -> str:
    assert isinstance(outcome, Refused), outcome
    return outcome.reason


class TestCatalogEntries:
    def test_inline_entries_by_ref_with_their_price(self) -> None:
        """SCHEMA-NOTES §9: entries are keyed `catalog/entry`; `mechanics.cost` is read as terms."""
        entries = catalog_entries(reference("gravewatch.json"))
        steady = entries["charms/steady-hand"]
        assert isinstance(steady, KnownEntry)
        assert (steady.ref, steady.id, steady.label, steady.cost) == (
            "charms/steady-hand",
            "steady-hand",
            "Steady Hand",
            (("resolve", 1),),
        )
        assert entries["kit/grave-spade"].cost == ()
        assert len(entries) == 16

    def test_asset_catalogs_bring_no_entries(self) -> None:
        """An entry without a cost costs nothing; an asset catalog brings no entries."""
        entries = catalog_entries(five_e())
        assert entries["spells/light"].cost == ()
        assert not any(ref.startswith("far/") for ref in entries)

    def test_read_once_per_ruleset(self) -> None:
        """The entries are read from the typed catalogs once per ruleset."""
        assert catalog_entries(five_e()) is catalog_entries(five_e())

    def test_unreadable_price_is_refused_at_import(self) -> None:
        """SCHEMA-NOTES §9: a cost term's amount is at least 1, so the file is refused."""
        data = json.loads((REFERENCE / "ruleset-5e-2014.example.json").read_text())
        broken = _spell("broken", "Broken", [{"pool": "slots_1", "amount": 0}])
        data["catalogs"] = [*data["catalogs"], {**SPELLS, "entries": [broken]}]
        with pytest.raises(RulesetError) as caught:
            load_ruleset(data)
        assert [p.path for p in caught.value.problems] == [
            "catalogs.2.entries.0.mechanics.cost.0.amount"
        ]


class TestFindEntry:
    def test_pick_by_label_or_id_any_case(self) -> None:
        """A pick answers to its entry's label or id, ignoring case."""
        card = CharacterCard.model_validate(CASTER)
        entries = catalog_entries(five_e())
        found = find_entry(five_e(), card, entries, "magic missile")
        assert isinstance(found, KnownEntry) and found.ref == "spells/magic-missile"
        assert find_entry(five_e(), card, entries, " Magic-Missile ") == found

    def test_marked_row_by_its_shown_name(self) -> None:
        """SCHEMA-NOTES §1: a row a pick wrote (`_catalog`) answers to the name it shows."""
        card = CharacterCard.model_validate(
            {"lists": {"charms": [{"name": "Granny's Thread", "_catalog": "charms/steady-hand"}]}}
        )
        rules = reference("gravewatch.json")
        found = find_entry(rules, card, catalog_entries(rules), "granny's thread")
        assert isinstance(found, KnownEntry) and found.id == "steady-hand"

    def test_unknown_and_ambiguous(self) -> None:
        """Not picked: unknown-entry; two entries under one name: ambiguous-entry."""
        entries = catalog_entries(five_e())
        card = CharacterCard.model_validate(
            {**CASTER, "picks": [*CASTER["picks"], "tomes/shield", "far/broken"]}
        )
        assert reason(find_entry(five_e(), card, entries, "Fireball")) == "unknown-entry"
        assert reason(find_entry(five_e(), card, entries, "shield")) == "ambiguous-entry"
        assert reason(find_entry(five_e(), card, entries, "broken")) == "unknown-entry"


class TestUse:
    def test_pays_the_entry_cost(self) -> None:
        """A use spends the entry's `mechanics.cost`; `now` names each pool paid."""
        card = {"picks": ["charms/steady-hand"]}
        outcome = changed(run(reference("gravewatch.json"), card, "Steady Hand"))
        assert (outcome.now, outcome.entry.pools) == ("Steady Hand: Resolve 3/4", {"resolve": 3})

    def test_insufficient_changes_nothing(self) -> None:
        """All or nothing: a price the pool cannot pay is `insufficient`."""
        card = {"picks": ["charms/steady-hand"]}
        assert (
            reason(run(reference("gravewatch.json"), card, "steady hand", pools={"resolve": 0}))
            == "insufficient"
        )

    def test_group_cost_pays_from_the_first_pool_that_can(self) -> None:
        """A group price pays from the group's first pool, in sheet order, that can afford it."""
        outcome = changed(run(five_e(), CASTER, "Magic Missile", pools={"slots_1": 0}))
        assert outcome.now == "Magic Missile: 2nd-level slots 1/2"
        assert outcome.entry.pools == {"slots_1": 0, "slots_2": 1}

    def test_group_cost_with_every_pool_empty(self) -> None:
        """With no pool of the group able to pay, the first one refuses `insufficient`."""
        assert (
            reason(run(five_e(), CASTER, "Magic Missile", pools={"slots_1": 0, "slots_2": 0}))
            == "insufficient"
        )

    def test_upcast_from_another_pool_of_the_group(self) -> None:
        """`pool=` pays a one-term price from another pool of the same group."""
        outcome = changed(run(five_e(), CASTER, "shield", pool="2nd-level slots"))
        assert outcome.entry.pools == {"slots_2": 1}

    def test_bad_pool(self) -> None:
        """`pool=` outside the price's group, or on a price of several terms, is `bad-pool`."""
        assert reason(run(five_e(), CASTER, "shield", pool="hp")) == "bad-pool"
        assert reason(run(five_e(), CASTER, "second wind", pool="slots_2")) == "bad-pool"
        assert reason(run(five_e(), CASTER, "shield", pool="mana")) == "bad-pool"

    def test_all_or_nothing_over_several_terms(self) -> None:
        """When one term cannot pay, no term is paid."""
        assert reason(run(five_e(), CASTER, "Second Wind", pools={"hit_dice": 0})) == "insufficient"
        paid = changed(run(five_e(), CASTER, "Second Wind"))
        assert paid.entry.pools == {"slots_1": 3, "hit_dice": 2}

    def test_hidden_cost_pool_is_unknown(self) -> None:
        """A pool the sheet hides is refused as a spend on it would be: `unknown-pool`."""
        card = {**CASTER, "fields": {"level": 3}}
        assert reason(run(five_e(), card, "Shield")) == "unknown-pool"
        assert reason(run(five_e(), card, "Magic Missile")) == "insufficient"

    def test_free_entry(self) -> None:
        """An entry without a cost applies and changes nothing: `now` is its label."""
        outcome = changed(run(five_e(), CASTER, "light"))
        assert (outcome.now, outcome.entry) == ("Light", LiveEntry())

    def test_row_counter_is_paid_once(self) -> None:
        """Every list-row pool the entry wrote pays one use, besides the entry's cost."""
        card = {
            "lists": {
                "tricks": [{"name": "Last Ember", "uses": 2, "_catalog": "knacks/last-ember"}]
            }
        }
        outcome = changed(run(reference("ember-roads.json"), card, "Last Ember"))
        assert outcome.now == "Last Ember: Grit 5/6, Last Ember 1/2"
        assert outcome.entry.pools == {"grit": 5, "tricks:last ember": 1}

    def test_row_counter_without_uses_left(self) -> None:
        """A counter row with no uses, or whose pool does not exist, is `insufficient`."""
        spent = {
            "lists": {
                "tricks": [{"name": "Last Ember", "uses": 2, "_catalog": "knacks/last-ember"}]
            }
        }
        ember = reference("ember-roads.json")
        assert (
            reason(run(ember, spent, "Last Ember", pools={"tricks:last ember": 0}))
            == "insufficient"
        )
        none = {
            "lists": {
                "tricks": [{"name": "Last Ember", "uses": 0, "_catalog": "knacks/last-ember"}]
            }
        }
        assert reason(run(ember, none, "Last Ember")) == "insufficient"
