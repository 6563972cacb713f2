"""Tests for gmtags/sheet/live.py: live pools, tracks, wound marks, states, notes and rests."""

from __future__ import annotations

import copy
import json
from functools import cache
from typing import Any

from gmtags import Ruleset, load_ruleset
from gmtags.sheet import live
from gmtags.sheet.live import Changed, PoolSpec, Refused
from gmtags.sheet.values import SheetValues
from gmtags.state.snapshot import CharacterCard, LiveEntry
from tests.conftest import FIXTURES

RULESETS = FIXTURES / "rulesets"


@cache
def ruleset(name: str) -> Ruleset:
    """A fixture ruleset by its path under fixtures/rulesets."""
    return load_ruleset(RULESETS / name)


def base_with(**sheet: Any) -> Ruleset:
    """sheet-base.json with some `sheet` keys replaced, for rules no fixture exercises."""
    data = json.loads((RULESETS / "sheet-base.json").read_text())
    data = copy.deepcopy(data)
    for key, value in sheet.items():
        if key == "rests":
            data["rests"] = value
        elif key == "live":
            data["sheet"]["live"].update(value)
        else:
            data["sheet"][key] = value
    return load_ruleset(data)


def values(rules: Ruleset, card: dict[str, Any] | None = None, **entry: Any) -> SheetValues:
    """A character's SheetValues from a card dict and a live entry's parts."""
    return SheetValues(rules, CharacterCard.model_validate(card or {}), LiveEntry(**entry))


def changed(outcome: live.Outcome) -> Changed:
    """The outcome, asserted to have applied."""
    assert isinstance(outcome, Changed), outcome
    return outcome


def reason(outcome: live.Outcome) -> str:
    """The refusal reason, asserted to be a refusal."""
    assert isinstance(outcome, Refused), outcome
    return outcome.reason


GRAVEWATCH = "reference/gravewatch.json"
EMBER = "reference/ember-roads.json"
FIVE_E = "reference/ruleset-5e-2014.example.json"
TORCHES = "sheets/five-torches.json"
ASHFALL = "sheets/ashfall.json"

TORCH_CASTER = {"abilities": {"con": 14}, "fields": {"level": 5, "caster": "full", "hp_rolled": 20}}
"""A five-torches caster: 38 hit points (8 + 20 + 2 × 5), 5 hit dice, 4 first-level slots."""

TRICKS = {
    "lists": {
        "tricks": [
            {"name": "Last Ember", "uses": 2, "recharge": "camp"},
            {"name": "Second Breath", "uses": 1, "recharge": "scene"},
            {"name": "last ember", "uses": 5, "recharge": "scene"},
        ]
    }
}
"""Ember Roads rows with pools; the third row repeats the first's name, so the first wins."""


def pools_of(sheet: SheetValues) -> dict[str, PoolSpec]:
    return {pool.key: pool for pool in live.character_pools(sheet)}


class TestCharacterPools:
    def test_declared_pools_with_max_and_start(self) -> None:
        """A declared pool has its worked-out maximum; `start: empty` starts at 0, else full."""
        pools = pools_of(values(ruleset(ASHFALL)))
        assert (pools["willpower"].max, pools["willpower"].start) == (3, 3)
        assert (pools["rage"].max, pools["rage"].start) == (5, 0)

    def test_hidden_pool_is_not_on_the_sheet(self) -> None:
        """ENGINE-NOTES §8: a pool hidden by hideWhen does not exist (five-torches slots)."""
        assert "slot_1" not in pools_of(values(ruleset(TORCHES)))
        assert "slot_1" in pools_of(values(ruleset(TORCHES), TORCH_CASTER))

    def test_pool_with_max_zero_does_not_exist(self) -> None:
        """ENGINE-NOTES §8: a caster's pool whose maximum is 0 is not a pool at all."""
        caster = {"fields": {"spellcasting_ability": "wis", "slots_max_1": 2}}
        pools = pools_of(values(ruleset(FIVE_E), caster))
        assert "slots_1" in pools and "slots_2" not in pools

    def test_list_rows_become_pools_and_the_first_name_wins(self) -> None:
        """ENGINE-NOTES §8: a row's pool is `<listId>:<lowercased name>`; the first row wins."""
        pools = pools_of(values(ruleset(EMBER), TRICKS))
        ember = pools["tricks:last ember"]
        assert (ember.label, ember.max, ember.start, ember.recharge) == ("Last Ember", 2, 2, "camp")
        assert pools["tricks:second breath"].recharge == "scene"
        assert not ember.allow_temp

    def test_row_without_uses_or_name_is_no_pool(self) -> None:
        """A row whose maximum is 0 or whose name is blank has no pool."""
        card = {"lists": {"tricks": [{"name": "Spent", "uses": 0}, {"name": "  ", "uses": 2}]}}
        assert [p.key for p in live.character_pools(values(ruleset(EMBER), card))] == [
            "grit",
            "luck",
        ]

    def test_start_from_reads_the_sheet_clamped(self) -> None:
        """004, "Una reserva viva puede declarar startFrom": start at a sheet value, 0..max."""
        rules = base_with(
            live={
                "pools": [
                    {
                        "id": "grit",
                        "label": "Grit",
                        "max": {"const": 6},
                        "startFrom": {"field": "toughness"},
                    },
                    {
                        "id": "nerve",
                        "label": "Nerve",
                        "max": {"const": 1},
                        "startFrom": {"field": "toughness"},
                    },
                ]
            }
        )
        pools = pools_of(values(rules, {"fields": {"toughness": 4}}))
        assert (pools["grit"].start, pools["nerve"].start) == (4, 1)


def two_lists_ruleset() -> Ruleset:
    """sheet-base with two lists of row pools that both hold a row named Ki."""
    columns = [
        {"id": "name", "label": "Name", "type": "text", "maxLength": 40},
        {"id": "max", "label": "Max", "type": "number", "min": 0, "max": 9, "default": 1},
    ]
    lists = [
        {
            "id": "feats",
            "label": "Feats",
            "columns": columns,
            "pools": {"nameColumn": "name", "maxColumn": "max"},
        },
        {
            "id": "gifts",
            "label": "Gifts",
            "columns": columns,
            "pools": {"nameColumn": "name", "maxColumn": "max"},
        },
    ]
    return base_with(lists=lists)


KI_TWICE = {
    "lists": {"feats": [{"name": "Ki", "max": 3}], "gifts": [{"name": "Ki"}, {"name": "Luck"}]}
}


class TestFindPool:
    def test_exact_key_then_id_or_label_any_case(self) -> None:
        """ENGINE-NOTES §6: the exact key, then a declared pool's id or label ignoring case."""
        pools = live.character_pools(values(ruleset(TORCHES)))
        assert live.find_pool(pools, "hp") == live.find_pool(pools, " HIT POINTS ")
        assert isinstance(live.find_pool(pools, "Hit Dice"), PoolSpec)

    def test_row_name_alone_finds_its_pool(self) -> None:
        """A list row's name on its own finds the row's pool when one row has it."""
        pools = live.character_pools(values(two_lists_ruleset(), KI_TWICE))
        found = live.find_pool(pools, "luck")
        assert isinstance(found, PoolSpec) and found.key == "gifts:luck"

    def test_row_name_in_two_lists_is_ambiguous(self) -> None:
        """A row name two lists share is `ambiguous-pool`; its exact key still works."""
        pools = live.character_pools(values(two_lists_ruleset(), KI_TWICE))
        assert reason(live.find_pool(pools, "Ki")) == "ambiguous-pool"
        found = live.find_pool(pools, "feats:ki")
        assert isinstance(found, PoolSpec) and found.max == 3

    def test_unknown_and_empty_names(self) -> None:
        """A name no pool has, and an empty one, are `unknown-pool`."""
        pools = live.character_pools(values(ruleset(TORCHES)))
        assert reason(live.find_pool(pools, "mana")) == "unknown-pool"
        assert reason(live.find_pool(pools, "  ")) == "unknown-pool"

    def test_hidden_pool_is_unknown(self) -> None:
        """ENGINE-NOTES §8: commands to a hidden pool are refused as unknown."""
        pools = live.character_pools(values(ruleset(TORCHES)))
        assert reason(live.find_pool(pools, "slot_1")) == "unknown-pool"


def torch_pools(**entry: Any) -> tuple[tuple[PoolSpec, ...], LiveEntry]:
    sheet = values(ruleset(TORCHES), TORCH_CASTER, **entry)
    return live.character_pools(sheet), sheet.live


class TestSpend:
    def test_takes_the_amount(self) -> None:
        """spend lowers the value; `now` is value/max."""
        pools, entry = torch_pools()
        outcome = changed(live.spend(pools, entry, "hp", 5))
        assert (outcome.now, outcome.entry.pools) == ("33/38", {"hp": 33})

    def test_insufficient_is_refused_not_floored(self) -> None:
        """ENGINE-NOTES §6: spending more than is left is refused `insufficient`."""
        pools, entry = torch_pools(pools={"hp": 4})
        assert reason(live.spend(pools, entry, "hp", 5)) == "insufficient"
        assert changed(live.spend(pools, entry, "hp", 4)).entry.pools == {"hp": 0}

    def test_amount_bounds(self) -> None:
        """Amounts are whole numbers 1..100000; anything else is `bad-amount`."""
        pools, entry = torch_pools()
        for amount in (0, -1, 100_001, None):
            assert reason(live.spend(pools, entry, "hp", amount)) == "bad-amount"

    def test_unknown_pool_before_amount(self) -> None:
        """The pool is looked up before the amount is judged (ENGINE-NOTES §6 order)."""
        pools, entry = torch_pools()
        assert reason(live.spend(pools, entry, "mana", 0)) == "unknown-pool"

    def test_temporary_points_are_kept(self) -> None:
        """Spending leaves temporary points where they are; they only soak damage."""
        pools, entry = torch_pools(temp={"hp": 3})
        outcome = changed(live.spend(pools, entry, "hp", 2))
        assert outcome.now == "36/38 +3 temp" and outcome.entry.temp == {"hp": 3}

    def test_empty_start_pool_is_stored_when_moved(self) -> None:
        """A pool that starts empty stores nothing at 0 and its value once raised."""
        sheet = values(ruleset(ASHFALL))
        pools = live.character_pools(sheet)
        raised = changed(live.restore(pools, sheet.live, "rage", 2))
        assert raised.entry.pools == {"rage": 2}
        assert changed(live.spend(pools, raised.entry, "rage", 2)).entry.pools == {}


class TestRestore:
    def test_raises_capped_at_max(self) -> None:
        """restore adds, never past the maximum."""
        pools, entry = torch_pools(pools={"hp": 30})
        assert changed(live.restore(pools, entry, "hp", 5)).now == "35/38"
        assert changed(live.restore(pools, entry, "hp", 50)).now == "38/38"

    def test_back_at_start_is_removed(self) -> None:
        """ENGINE-NOTES §8: a value back at its start is removed, so the pool follows its max."""
        pools, entry = torch_pools(pools={"hp": 30, "hit_dice": 2})
        assert changed(live.restore(pools, entry, "hp", 8)).entry.pools == {"hit_dice": 2}

    def test_stored_value_out_of_range_reads_clamped(self) -> None:
        """A stored value above the maximum reads as the maximum."""
        pools, entry = torch_pools(pools={"hp": 99})
        assert changed(live.restore(pools, entry, "hp", 1)).now == "38/38"


class TestDamagePool:
    def test_temp_first_then_value(self) -> None:
        """ENGINE-NOTES §6: damage drains temporary points first, then the value."""
        pools, entry = torch_pools(temp={"hp": 5})
        outcome = changed(live.damage_pool(pools, entry, "hp", 7))
        assert (outcome.now, outcome.entry.pools, outcome.entry.temp) == ("36/38", {"hp": 36}, {})

    def test_floored_at_zero_never_refused(self) -> None:
        """A killing blow is never refused for being larger than what is left."""
        pools, entry = torch_pools(pools={"hp": 3})
        assert changed(live.damage_pool(pools, entry, "hp", 100_000)).now == "0/38"

    def test_bad_amount(self) -> None:
        """Damage of 0 is `bad-amount`."""
        pools, entry = torch_pools()
        assert reason(live.damage_pool(pools, entry, "hp", 0)) == "bad-amount"


class TestTemp:
    def test_sets_not_adds(self) -> None:
        """ENGINE-NOTES §6: temp SETS the temporary points."""
        pools, entry = torch_pools(temp={"hp": 4})
        outcome = changed(live.set_temp(pools, entry, "hp", 2))
        assert (outcome.now, outcome.entry.temp) == ("38/38 +2 temp", {"hp": 2})

    def test_zero_clears(self) -> None:
        """temp 0 is allowed and clears the temporary points."""
        pools, entry = torch_pools(temp={"hp": 4})
        outcome = changed(live.set_temp(pools, entry, "hp", 0))
        assert (outcome.now, outcome.entry.temp) == ("38/38", {})

    def test_no_temp_without_allow_temp(self) -> None:
        """A pool without allowTemp refuses `no-temp`."""
        pools, entry = torch_pools()
        assert reason(live.set_temp(pools, entry, "hit_dice", 1)) == "no-temp"

    def test_stored_temp_on_a_pool_without_allow_temp_reads_zero(self) -> None:
        """Temporary points stored on a pool that takes none are never shown."""
        pools, entry = torch_pools(temp={"hit_dice": 3})
        assert changed(live.spend(pools, entry, "hit_dice", 1)).now == "4/5"

    def test_negative_is_bad_amount(self) -> None:
        """temp takes 0..100000."""
        pools, entry = torch_pools()
        assert reason(live.set_temp(pools, entry, "hp", -1)) == "bad-amount"


class TestMoveTrack:
    def test_to_and_by_clamp(self) -> None:
        """ENGINE-NOTES §6: a plain track is set or moved, clamped to its range."""
        sheet = values(ruleset(EMBER))
        up = changed(live.move_track(sheet, sheet.live, "Heat", "by", 9))
        assert (up.now, up.entry.tracks) == ("Heat 5", {"heat": 5})
        down = changed(live.move_track(sheet, up.entry, "heat", "to", -3))
        assert (down.now, down.entry.tracks) == ("Heat 0", {})

    def test_wound_track_is_wrong_track(self) -> None:
        """002: the track command is refused on a wound track (`wrong-track`)."""
        sheet = values(ruleset(GRAVEWATCH))
        assert reason(live.move_track(sheet, sheet.live, "harm", "to", 1)) == "wrong-track"

    def test_unknown_and_hidden_tracks(self) -> None:
        """A track the sheet lacks or hides is `unknown-track`."""
        rules = base_with(
            live={
                "tracks": [
                    {
                        "id": "heat",
                        "label": "Heat",
                        "min": 0,
                        "max": 5,
                        "hideWhen": {"field": "toughness", "equals": 2},
                    }
                ]
            }
        )
        sheet = values(rules)
        assert reason(live.move_track(sheet, sheet.live, "heat", "by", 1)) == "unknown-track"
        shown = values(rules, {"fields": {"toughness": 3}})
        assert changed(live.move_track(shown, shown.live, "heat", "by", 1)).now == "Heat 1"
        assert reason(live.move_track(sheet, sheet.live, "doom", "by", 1)) == "unknown-track"

    def test_unreadable_number(self) -> None:
        """A number that could not be read is `bad-amount`."""
        sheet = values(ruleset(EMBER))
        assert reason(live.move_track(sheet, sheet.live, "heat", "by", None)) == "bad-amount"

    def test_max_from_a_reference_and_start_from(self) -> None:
        """002: a simple track's max may be a reference; 004: startFrom sets where it starts."""
        rules = base_with(
            live={
                "tracks": [
                    {
                        "id": "heat",
                        "label": "Heat",
                        "min": 0,
                        "max": {"field": "toughness"},
                        "startFrom": {"const": 1},
                    }
                ]
            }
        )
        sheet = values(rules, {"fields": {"toughness": 4}})
        assert changed(live.move_track(sheet, sheet.live, "heat", "by", 10)).now == "Heat 4"
        assert changed(live.move_track(sheet, sheet.live, "heat", "to", 1)).entry.tracks == {}


class TestMarkWounds:
    def test_seed_harm_example(self) -> None:
        """002: knock, tear, knock on Harm give three marks, `Harm 3/4 Bleeding`, penalty -3."""
        sheet = values(ruleset(GRAVEWATCH))
        entry = sheet.live
        for kind in ("knock", "tear", "knock"):
            entry = changed(live.mark_wounds(sheet, entry, "harm", kind, 1)).entry
        outcome = changed(live.mark_wounds(sheet, sheet.live, "Harm", "K", 1))
        assert outcome.now == "Harm 1/4 Scuffed"
        assert entry.marks == {"harm": ["tear", "knock", "knock"]}
        after = values(ruleset(GRAVEWATCH), **entry.model_dump())
        assert after.track_read("harm", "penalty") == -3

    def test_full_track_upgrades_then_overflows(self) -> None:
        """002: a full track raises its lightest mark; past the worst kind marks overflow."""
        sheet = values(ruleset(GRAVEWATCH))
        full = changed(live.mark_wounds(sheet, sheet.live, "harm", "knock", 4)).entry
        upgraded = changed(live.mark_wounds(sheet, full, "harm", "knock", 1))
        assert upgraded.entry.marks == {"harm": ["tear", "knock", "knock", "knock"]}
        spilled = changed(live.mark_wounds(sheet, full, "harm", "tear", 6))
        assert spilled.now == "Harm 4/4 Down +2 over"
        assert spilled.entry.overflow == {"harm": 2}

    def test_negative_amount_heals_overflow_first(self) -> None:
        """002: a heal removes overflow before any mark, then the lightest marks."""
        sheet = values(ruleset(GRAVEWATCH))
        entry = LiveEntry(marks={"harm": ["tear"] * 4}, overflow={"harm": 1})
        healed = changed(live.mark_wounds(sheet, entry, "harm", None, -2))
        assert (healed.now, healed.entry.overflow) == ("Harm 3/4 Bleeding", {})

    def test_heal_naming_a_kind_clears_only_it(self) -> None:
        """002: a heal naming a kind of the track clears only marks of that kind."""
        sheet = values(ruleset(GRAVEWATCH))
        entry = LiveEntry(marks={"harm": ["tear", "knock"]})
        healed = changed(live.mark_wounds(sheet, entry, "harm", "tear", -3))
        assert healed.entry.marks == {"harm": ["knock"]}

    def test_heal_to_nothing_removes_the_marks(self) -> None:
        """A track with no marks and no overflow stores nothing (sparse)."""
        sheet = values(ruleset(GRAVEWATCH))
        entry = LiveEntry(marks={"harm": ["knock"]})
        healed = changed(live.mark_wounds(sheet, entry, "harm", "whatever", -5))
        assert (healed.now, healed.entry.marks) == ("Harm 0/4", {})

    def test_refusals(self) -> None:
        """unknown-kind, malformed (no kind), bad-amount, wrong-track and unknown-track."""
        sheet = values(ruleset(GRAVEWATCH))
        entry = sheet.live
        assert reason(live.mark_wounds(sheet, entry, "harm", "bite", 1)) == "unknown-kind"
        assert reason(live.mark_wounds(sheet, entry, "harm", None, 1)) == "malformed"
        assert reason(live.mark_wounds(sheet, entry, "harm", "knock", 0)) == "bad-amount"
        assert reason(live.mark_wounds(sheet, entry, "harm", "knock", -100_001)) == "bad-amount"
        assert reason(live.mark_wounds(sheet, entry, "harm", "knock", None)) == "bad-amount"
        assert reason(live.mark_wounds(sheet, entry, "scratches", "knock", 1)) == "unknown-track"
        ember = values(ruleset(EMBER))
        assert reason(live.mark_wounds(ember, ember.live, "heat", "strain", 1)) == "wrong-track"

    def test_box_lands_where_named(self) -> None:
        """002: an indexed track marks the box `box=` names, or the next free one above it."""
        sheet = values(ruleset(EMBER), {"abilities": {"heart": 2}})
        first = changed(live.mark_wounds(sheet, sheet.live, "strain", "strain", 1, 3))
        assert (first.now, first.entry.marks) == ("Strain 1/4", {"strain": ["", "", "strain"]})
        second = changed(live.mark_wounds(sheet, first.entry, "strain", "strain", 1, 3))
        assert second.entry.marks == {"strain": ["", "", "strain", "strain"]}
        assert reason(live.mark_wounds(sheet, second.entry, "strain", "strain", 1, 3)) == "no-box"

    def test_on_full_refuse_drops_the_whole_command(self) -> None:
        """002: three marks with two free boxes place none: `no-box`."""
        sheet = values(ruleset(EMBER))
        assert reason(live.mark_wounds(sheet, sheet.live, "strain", "strain", 3)) == "no-box"
        assert (
            changed(live.mark_wounds(sheet, sheet.live, "strain", "strain", 2)).now == "Strain 2/2"
        )

    def test_box_out_of_range(self) -> None:
        """A box below 1 or past 64 is `bad-amount`, judged after the kind."""
        sheet = values(ruleset(EMBER))
        assert reason(live.mark_wounds(sheet, sheet.live, "strain", "strain", 1, 0)) == "bad-amount"
        assert (
            reason(live.mark_wounds(sheet, sheet.live, "strain", "strain", 1, 65)) == "bad-amount"
        )
        assert reason(live.mark_wounds(sheet, sheet.live, "strain", "cut", 1, 0)) == "unknown-kind"

    def test_list_rows_lengthen_the_track(self) -> None:
        """002, "Niveles que añade una lista": scar rows add levels to Health."""
        card = {"lists": {"scars": [{"name": "Burn", "levels": 2, "penalty": -1}]}}
        sheet = values(ruleset(ASHFALL), card)
        outcome = changed(live.mark_wounds(sheet, sheet.live, "health", "lethal", 4))
        assert outcome.now == "Health 4/7 Hurt"


class TestCondition:
    def test_on_and_off(self) -> None:
        """SPEC §9: a condition is switched on or off; `now` is `Label on|off`."""
        sheet = values(ruleset(GRAVEWATCH))
        on = changed(live.set_condition(sheet, sheet.live, "Rattled", True))
        assert (on.now, on.entry.conditions) == ("Rattled on", ["rattled"])
        again = changed(live.set_condition(sheet, on.entry, "rattled", True))
        assert again.entry.conditions == ["rattled"]
        off = changed(live.set_condition(sheet, on.entry, "rattled", False))
        assert (off.now, off.entry.conditions) == ("Rattled off", [])

    def test_unknown_condition(self) -> None:
        """A condition the sheet does not declare is `unknown-condition`."""
        sheet = values(ruleset(GRAVEWATCH))
        assert reason(live.set_condition(sheet, sheet.live, "cursed", True)) == "unknown-condition"

    def test_undeclared_ids_stay_stored(self) -> None:
        """An id the ruleset no longer declares is kept, untouched."""
        sheet = values(ruleset(GRAVEWATCH), conditions=["old"])
        on = changed(live.set_condition(sheet, sheet.live, "marked", True))
        assert on.entry.conditions == ["old", "marked"]


class TestState:
    def test_by_label_and_value_label_any_case(self) -> None:
        """002: the state by id or label, the value by itself or its label, ignoring case."""
        sheet = values(ruleset(EMBER))
        outcome = changed(live.set_state(sheet, sheet.live, "STANCE", "reckless"))
        assert (outcome.now, outcome.entry.states) == ("Stance Reckless", {"stance": "reckless"})
        by_label = changed(live.set_state(sheet, sheet.live, "stance", "GUARDED"))
        assert by_label.entry.states == {"stance": "guarded"}

    def test_default_is_not_stored(self) -> None:
        """002: only a state moved from its default is stored."""
        sheet = values(ruleset(EMBER), states={"stance": "reckless"})
        outcome = changed(live.set_state(sheet, sheet.live, "stance", "Steady"))
        assert (outcome.now, outcome.entry.states) == ("Stance Steady", {})

    def test_value_label_shown(self) -> None:
        """`now` shows the value's label (ashfall's War form)."""
        sheet = values(ruleset(ASHFALL))
        assert changed(live.set_state(sheet, sheet.live, "form", "war")).now == "Form War form"

    def test_unknown_state_and_value(self) -> None:
        """002: `unknown-state` and `unknown-value`."""
        sheet = values(ruleset(EMBER))
        assert reason(live.set_state(sheet, sheet.live, "mood", "calm")) == "unknown-state"
        assert reason(live.set_state(sheet, sheet.live, "stance", "calm")) == "unknown-value"

    def test_hidden_state_is_unknown(self) -> None:
        """002: a state hidden by hideWhen is changed by no command."""
        rules = base_with(
            live={
                "states": [
                    {
                        "id": "form",
                        "label": "Form",
                        "values": ["a", "b"],
                        "hideWhen": {"field": "toughness", "equals": 2},
                    }
                ]
            }
        )
        sheet = values(rules)
        assert reason(live.set_state(sheet, sheet.live, "form", "b")) == "unknown-state"


class TestNote:
    def test_cut_to_max_length(self) -> None:
        """ENGINE-NOTES §6: a note is cut to its maxLength; `now` is `Label: text`."""
        sheet = values(ruleset(TORCHES))
        outcome = changed(live.write_note(sheet, sheet.live, "concentration", "x" * 100))
        assert outcome.entry.text == {"concentration": "x" * 80}
        assert outcome.now == "Concentrating on: " + "x" * 80

    def test_empty_clears(self) -> None:
        """An empty value clears the note: `Label cleared`."""
        sheet = values(ruleset(TORCHES), text={"concentration": "Bless"})
        outcome = changed(live.write_note(sheet, sheet.live, "Concentrating on", "  "))
        assert (outcome.now, outcome.entry.text) == ("Concentrating on cleared", {})

    def test_unknown_field(self) -> None:
        """A live text the sheet lacks is `unknown-field`."""
        sheet = values(ruleset(TORCHES))
        assert reason(live.write_note(sheet, sheet.live, "diary", "x")) == "unknown-field"


def rest(sheet: SheetValues, name: str, entry: LiveEntry | None = None) -> Changed:
    return changed(live.take_rest(sheet, live.character_pools(sheet), entry or sheet.live, name))


class TestRest:
    def test_catch_your_breath_clears_knocks_only(self) -> None:
        """002: Gravewatch's "Catch your breath" heals the knocks and leaves the tears."""
        sheet = values(ruleset(GRAVEWATCH), marks={"harm": ["tear", "knock", "knock"]})
        outcome = rest(sheet, "Catch your breath")
        assert (outcome.now, outcome.entry.marks) == (
            "Catch your breath: Harm 1/4",
            {"harm": ["tear"]},
        )

    def test_vigil_restores_clears_and_resets(self) -> None:
        """002: to max, a wound track to min with its overflow, a state to default, clear."""
        sheet = values(
            ruleset(GRAVEWATCH),
            pools={"resolve": 1},
            marks={"harm": ["tear"] * 4},
            overflow={"harm": 2},
            states={"light": "out"},
            conditions=["rattled", "marked"],
        )
        outcome = rest(sheet, "vigil")
        assert outcome.now == "Stand down from the vigil: Resolve 4/4, Harm 0/4, Light Lit"
        assert outcome.entry == LiveEntry(conditions=["marked"])

    def test_nothing_to_do_reports_the_label(self) -> None:
        """ENGINE-NOTES §6: a rest that moved nothing reports its label alone."""
        sheet = values(ruleset(GRAVEWATCH))
        assert rest(sheet, "breather").now == "Catch your breath"

    def test_camp_with_list_pools_by_recharge(self) -> None:
        """002: listPools with recharge restores only matching rows; by const is capped."""
        sheet = values(
            ruleset(EMBER),
            TRICKS,
            pools={"luck": 1, "tricks:last ember": 0, "tricks:second breath": 0},
            tracks={"heat": 3},
            states={"stance": "reckless"},
        )
        outcome = rest(sheet, "Make camp")
        assert outcome.now == "Make camp: Luck 2/3, Heat 2, Last Ember 2/2, Stance Steady"
        assert outcome.entry.pools == {"luck": 2, "tricks:second breath": 0}

    def test_shared_pool_group_fraction(self) -> None:
        """002: a shared poolGroup step works the fraction out on the group, min 1."""
        sheet = values(
            ruleset(TORCHES),
            TORCH_CASTER,
            pools={"hp": 5, "hit_dice": 0, "slot_1": 1},
            marks={"exhaustion": ["fatigue", "fatigue"]},
            tracks={"death_saves": 2},
            text={"concentration": "Bless"},
            conditions=["prone", "poisoned"],
        )
        outcome = rest(sheet, "long")
        assert outcome.now == (
            "Long rest: Hit points 38/38, Hit dice 2/5, First-level spell slots 4/4, "
            "Exhaustion 1/6, Death save failures 0"
        )
        assert outcome.entry == LiveEntry(pools={"hit_dice": 2}, marks={"exhaustion": ["fatigue"]})

    def test_shared_fraction_is_handed_out_in_sheet_order(self) -> None:
        """002: a shared fraction fills the group's pools in sheet order, each to its max."""
        pools = [
            {"id": "d6", "label": "d6", "max": {"const": 2}, "group": "hd"},
            {"id": "d8", "label": "d8", "max": {"const": 4}, "group": "hd"},
        ]
        rules = base_with(
            live={"pools": pools},
            rests=[
                {
                    "id": "long",
                    "label": "Long rest",
                    "restore": [
                        {
                            "poolGroup": "hd",
                            "by": {"fractionOfMax": 0.5, "round": "up"},
                            "shared": True,
                        }
                    ],
                }
            ],
        )
        sheet = values(rules, pools={"d6": 1, "d8": 0})
        assert rest(sheet, "long").now == "Long rest: d6 2/2, d8 2/4"

    def test_fraction_per_pool_with_min(self) -> None:
        """A non-shared fractionOfMax moves a pool by its own fraction, at least `min`."""
        caster = {"fields": {"level": 1}}
        sheet = values(ruleset(FIVE_E), caster, pools={"hit_dice": 0})
        assert rest(sheet, "long").entry.pools == {}

    def test_positive_by_on_a_wound_track_is_skipped(self) -> None:
        """002: a rest step that would add marks does nothing, silently."""
        rules = ruleset(GRAVEWATCH).model_dump(by_alias=True, exclude_none=True)
        rules["rests"] = [
            {
                "id": "odd",
                "label": "Odd rest",
                "restore": [
                    {"track": "harm", "by": {"const": 2}},
                    {"track": "harm", "by": {"fractionOfMax": 0.5}},
                    {"track": "harm", "to": "max"},
                ],
            }
        ]
        sheet = values(load_ruleset(rules), marks={"harm": ["knock"]})
        outcome = rest(sheet, "odd")
        assert (outcome.now, outcome.entry.marks) == ("Odd rest", {"harm": ["knock"]})

    def test_to_min_on_a_pool_is_zero(self) -> None:
        """SPEC §9: a pool step `to: "min"` means 0; a number is clamped to the range."""
        rules = base_with(
            rests=[
                {
                    "id": "fast",
                    "label": "Fast",
                    "restore": [{"pool": "grit", "to": "min"}, {"track": "heat", "to": 9}],
                }
            ]
        )
        sheet = values(rules)
        outcome = rest(sheet, "Fast")
        assert (outcome.now, outcome.entry.pools) == ("Fast: Grit 0/2, Heat 5", {"grit": 0})

    def test_hidden_pool_step_is_skipped(self) -> None:
        """A step naming a pool the sheet hides has nothing to restore."""
        sheet = values(ruleset(TORCHES), pools={"slot_1": 0})
        assert "slot" not in rest(sheet, "long").now

    def test_temporary_points_stay(self) -> None:
        """A rest does what its steps say: temporary points are not dropped."""
        sheet = values(ruleset(TORCHES), pools={"hp": 2}, temp={"hp": 4})
        assert rest(sheet, "long").entry.temp == {"hp": 4}

    def test_unknown_rest(self) -> None:
        """A rest the ruleset lacks is `unknown-rest`."""
        sheet = values(ruleset(TORCHES))
        assert reason(live.take_rest(sheet, (), sheet.live, "nap")) == "unknown-rest"


class TestIsEmpty:
    def test_empty_and_not(self) -> None:
        """An entry storing nothing is empty; one key a front end stored is not."""
        assert live.is_empty(LiveEntry())
        assert not live.is_empty(LiveEntry(conditions=["x"]))
        assert not live.is_empty(LiveEntry.model_validate({"notes": "kept"}))
