"""Tests for gmtags/sheet/items.py and the card's `items` (SPEC §4, SCHEMA-NOTES §4 `itemStat`)."""

from __future__ import annotations

import copy
import json
from functools import cache
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gmtags import Ruleset, RulesetError, load_ruleset, process
from gmtags.prompt.reminder import turn_reminder
from gmtags.ruleset.refs import RulesetValueRef
from gmtags.sheet.values import SheetValues
from gmtags.state.snapshot import CharacterCard, load_snapshot
from tests.conftest import FIXTURES, REFERENCE_RULESETS

SATCHEL_PATH = FIXTURES / "rulesets" / "sheets" / "satchel.json"
SATCHEL: dict[str, Any] = json.loads(SATCHEL_PATH.read_text())

COAT = {"ref": "kit/leather-coat", "worn": True}
MAIL = {"ref": "kit/mail-shirt", "worn": True}
ROWAN = {"ref": "kit/rowan-charm", "worn": True}
MEDAL = {"ref": "kit/saint-medal", "worn": True}


@cache
def satchel() -> Ruleset:
    """The items fixture (fixtures/rulesets/sheets/satchel.json), loaded once."""
    return load_ruleset(SATCHEL_PATH)


@cache
def ember_roads() -> Ruleset:
    """The Ember Roads reference ruleset, whose Guard reads the armor worn."""
    return load_ruleset(REFERENCE_RULESETS / "ember-roads.json")


def variant(**items: Any) -> Ruleset:
    """The satchel ruleset with keys of its `items` block replaced."""
    data = copy.deepcopy(SATCHEL)
    data["items"].update(items)
    return load_ruleset(data)


def card(*items: dict[str, Any], **keys: Any) -> CharacterCard:
    """A card holding `items` (validated as a snapshot reads it)."""
    return CharacterCard.model_validate({"items": list(items), **keys})


def read(spec: dict[str, Any], *items: dict[str, Any], ruleset: Ruleset | None = None) -> float:
    """What an `itemStat` reference reads for a card holding `items`."""
    values = SheetValues(ruleset or satchel(), card(*items), None)
    return values.value(RulesetValueRef.model_validate({"itemStat": spec}))


def guard(*items: dict[str, Any]) -> float:
    return read({"stat": "guard", "from": "worn", "pick": "sum"}, *items)


class TestFrom:
    def test_worn_armor_counts(self) -> None:
        """002: "la guardia de la armadura que lleva puesta" — worn armor adds its guard."""
        assert guard(COAT) == 1

    def test_carried_armor_does_not(self) -> None:
        """Armor rolled up in the pack is not worn, so `from: worn` leaves it out."""
        assert guard({"ref": "kit/leather-coat"}) == 0

    def test_carried_reads_only_what_is_not_worn(self) -> None:
        """`from: carried` keeps the items held and not worn."""
        spec = {"stat": "guard", "from": "carried", "pick": "sum"}
        assert read(spec, COAT, {"ref": "kit/mail-shirt"}) == 2

    def test_all_reads_both(self) -> None:
        """`from: all` keeps worn and carried items alike."""
        spec = {"stat": "guard", "from": "all", "pick": "sum"}
        assert read(spec, COAT, {"ref": "kit/mail-shirt"}) == 3


class TestPick:
    def test_sum(self) -> None:
        """`sum` adds the matching items' stat."""
        assert guard(COAT, MAIL) == 3

    def test_max(self) -> None:
        """`max` takes the highest."""
        assert read({"stat": "ward", "from": "worn", "pick": "max"}, ROWAN, MEDAL) == 2

    def test_min(self) -> None:
        """`min` takes the lowest."""
        assert read({"stat": "ward", "from": "worn", "pick": "min"}, ROWAN, MEDAL) == 1

    def test_count(self) -> None:
        """`count` counts the matching items, and needs no stat."""
        assert read({"from": "worn", "pick": "count", "category": "charm"}, ROWAN, MEDAL, COAT) == 2


class TestCopies:
    def test_sum_adds_each_copy(self) -> None:
        """Two coats on one line guard as two coats."""
        assert guard({**COAT, "count": 2}) == 2

    def test_count_counts_each_copy(self) -> None:
        """Twenty arrows count twenty."""
        spec = {"from": "all", "pick": "count", "tag": "shot"}
        assert read(spec, {"ref": "kit/arrows", "count": 20}, {"ref": "kit/sling-stones"}) == 21

    def test_max_and_min_read_a_stat_once(self) -> None:
        """Copies share their stat: three rowan charms are no better than one."""
        three = {**ROWAN, "count": 3}
        assert read({"stat": "ward", "from": "worn", "pick": "max"}, three) == 1
        assert read({"stat": "ward", "from": "worn", "pick": "min"}, three, MEDAL) == 1

    def test_count_zero_reads_nothing(self) -> None:
        """A line with no copy left matches nothing, even for min."""
        spec = {"stat": "ward", "from": "worn", "pick": "min"}
        assert read(spec, {**ROWAN, "count": 0}, MEDAL) == 2
        assert guard({**COAT, "count": 0}) == 0


class TestFilters:
    def test_slot_from_the_entry(self) -> None:
        """An item is in the slots its entry takes when its line names none."""
        spec = {"stat": "guard", "from": "worn", "pick": "sum", "slot": "body"}
        assert read(spec, COAT, {"name": "Buckler", "stats": {"guard": 1}, "worn": True}) == 1

    def test_slot_from_the_line(self) -> None:
        """A line's `slot` is where the item is, whatever its entry takes."""
        spec = {"stat": "ward", "from": "worn", "pick": "sum", "slot": "neck"}
        assert read(spec, {**ROWAN, "slot": "hands"}, MEDAL) == 2
        assert (
            read(spec, {"name": "Locket", "stats": {"ward": 1}, "worn": True, "slot": "neck"}) == 1
        )

    def test_category(self) -> None:
        """`category` keeps the items of that category."""
        spec = {"from": "all", "pick": "count", "category": "armor"}
        assert read(spec, COAT, MEDAL, {"ref": "kit/mail-shirt"}) == 2

    def test_tag(self) -> None:
        """`tag` keeps the items with that tag."""
        spec = {"from": "all", "pick": "count", "tag": "shot"}
        assert read(spec, {"ref": "kit/arrows"}, {"ref": "kit/lantern"}) == 1

    def test_filters_combined(self) -> None:
        """Every filter written must hold: worn, at the neck, a charm."""
        spec = {"stat": "ward", "from": "worn", "pick": "sum", "slot": "neck", "category": "charm"}
        carried = {"ref": "kit/saint-medal"}
        elsewhere = {**MEDAL, "slot": "hands"}
        assert read(spec, ROWAN, carried, elsewhere) == 1


class TestNothingMatching:
    def test_no_items_reads_zero(self) -> None:
        """A character with no items reads 0."""
        assert guard() == 0

    def test_no_items_reads_the_default(self) -> None:
        """Nothing matching reads the reference's `default`."""
        assert read({"stat": "guard", "from": "worn", "pick": "sum", "default": 2}) == 2
        assert read({"from": "worn", "pick": "count", "default": 5}) == 5

    @pytest.mark.parametrize("pick", ["min", "max"])
    def test_min_and_max_of_nothing(self, pick: str) -> None:
        """`min` and `max` of no item read the default, else 0 (never an infinity)."""
        assert read({"stat": "ward", "from": "worn", "pick": pick}, {"ref": "kit/rowan-charm"}) == 0
        spec = {"stat": "ward", "from": "worn", "pick": pick, "default": -1}
        assert read(spec) == -1

    def test_a_character_without_a_card(self) -> None:
        """A stranger has no items."""
        values = SheetValues(satchel(), None, None)
        assert values.derived("guard") == 6


class TestLines:
    def test_unknown_ref_contributes_nothing(self) -> None:
        """A ref naming no entry is kept and reads as nothing, to count neither."""
        gone = {"ref": "kit/cloak-of-ages", "worn": True}
        assert guard(COAT, gone) == 1
        assert read({"from": "all", "pick": "count"}, gone) == 0
        assert card(gone).items[0].ref == "kit/cloak-of-ages"

    def test_free_form_item_reads_its_stats(self) -> None:
        """A free-form item the ruleset allows counts by its own stats."""
        assert guard({"name": "Boiled-leather jerkin", "stats": {"guard": 2}, "worn": True}) == 2

    def test_free_form_item_has_no_category_or_tag(self) -> None:
        """A category or tag filter never keeps a free-form item."""
        stone = {"name": "Lucky stone", "stats": {"ward": 3}, "worn": True}
        assert (
            read({"stat": "ward", "from": "worn", "pick": "max", "category": "charm"}, stone) == 0
        )
        assert read({"from": "all", "pick": "count", "tag": "shot"}, stone) == 0

    def test_free_form_refused_by_the_ruleset(self) -> None:
        """`items.freeform: refuse`: a free-form item contributes nothing."""
        jerkin = {"name": "Jerkin", "stats": {"guard": 2}, "worn": True}
        spec = {"stat": "guard", "from": "worn", "pick": "sum"}
        assert read(spec, jerkin, COAT, ruleset=variant(freeform="refuse")) == 1

    def test_stat_missing_from_the_entry_reads_the_stat_default(self) -> None:
        """The lantern writes its light; the coat does not and reads the stat's default 2."""
        spec = {"stat": "light", "from": "all", "pick": "sum"}
        assert read(spec, {"ref": "kit/lantern"}, {"ref": "kit/leather-coat"}) == 5

    def test_stat_values_are_read_like_a_field(self) -> None:
        """A free-form stat out of range is clamped; one of the wrong type reads the default."""
        spec = {"stat": "guard", "from": "worn", "pick": "sum"}
        assert read(spec, {"name": "Tower shield", "stats": {"guard": 9}, "worn": True}) == 4
        assert read(spec, {"name": "Rag", "stats": {"guard": "lots"}, "worn": True}) == 0

    def test_a_stat_holding_no_number(self) -> None:
        """A dice stat gives no number: the reference reads as nothing matching."""
        axe = {"ref": "kit/hand-axe"}
        assert read({"stat": "damage", "from": "all", "pick": "max", "default": 1}, axe) == 1


class TestLiveRead:
    """002: itemStat "sigue la misma regla que una lectura viva"."""

    def test_a_check_reads_the_charm_worn(self) -> None:
        """Through `process()`, the best charm at the neck adds to Bram's Ward check."""
        snapshot = load_snapshot(
            {
                "gameCharacterCards": {
                    "Bram": {"items": [ROWAN, MEDAL]},
                    "Ada": {"items": [{"ref": "kit/saint-medal"}]},
                }
            }
        )
        text = (
            '[skill_check: skill="Ward" dc="2" who="Bram"] '
            '[skill_check: skill="Ward" dc="2" who="Ada"]'
        )
        result = process(text, satchel(), snapshot, seed=3)
        bram, ada = result.text.split("] [")
        assert 'modifier="2"' in bram and 'adjust="+2"' in bram
        assert 'modifier="0"' in ada and "adjust=" not in ada

    def test_hidden_derived_reads_nothing(self) -> None:
        """A derived value hidden by `hideWhen` reads 0 whatever is carried."""
        lantern = {"ref": "kit/lantern"}
        dark = SheetValues(satchel(), card(lantern), None)
        lit = SheetValues(satchel(), card(lantern, fields={"lit": True}), None)
        assert (dark.derived("light"), lit.derived("light")) == (0, 3)

    @pytest.mark.parametrize(
        ("place", "path"),
        [
            (("sheet", "live", "pools", 0, "max"), "sheet.live.pools.0.max"),
            (("items", "binding"), "items.binding.max"),
        ],
    )
    def test_refused_where_live_reads_are(self, place: tuple[Any, ...], path: str) -> None:
        """A pool's maximum or a binding's max that reads items is refused at import."""
        data = copy.deepcopy(SATCHEL)
        ref = {"itemStat": {"stat": "guard", "from": "worn", "pick": "sum"}}
        if place[0] == "items":
            data["items"]["binding"] = {"label": "Bound", "max": ref}
        else:
            data["sheet"]["live"]["pools"][0]["max"] = ref
        with pytest.raises(RulesetError) as caught:
            load_ruleset(data)
        assert any(problem.path == path for problem in caught.value.problems)


class TestEmberRoads:
    """The reference ruleset's Guard: "a leather coat on the back counts, one rolled up in the
    pack does not"."""

    SNAPSHOT = {
        "gameCharacterCards": {
            "Wearer": {"items": [{"ref": "outfitter/leather-coat", "worn": True, "slot": "body"}]},
            "Packer": {"items": [{"ref": "outfitter/leather-coat"}]},
        }
    }

    def test_guard_reads_the_coat_worn(self) -> None:
        """Guard 6 + Wits 0 + the worn coat's guard 1; the packed coat adds nothing."""
        snapshot = load_snapshot(self.SNAPSHOT)
        cards = snapshot.game_character_cards
        assert SheetValues(ember_roads(), cards["Wearer"], None).derived("guard") == 7
        assert SheetValues(ember_roads(), cards["Packer"], None).derived("guard") == 6

    def test_bulk_carried_reads_both(self) -> None:
        """Bulk carried reads `from: all`: the coat weighs 3 worn or packed."""
        cards = load_snapshot(self.SNAPSHOT).game_character_cards
        assert {
            SheetValues(ember_roads(), c, None).derived("bulk_carried") for c in cards.values()
        } == {3}

    def test_the_sheet_block_shows_guard(self) -> None:
        """The GM's sheet block lists Guard (gm.sheetSummary) with the coat worn or not."""
        reminder = turn_reminder(ember_roads(), load_snapshot(self.SNAPSHOT))
        wearer = reminder.split("Wearer:")[1].split("Packer:")[0]
        packer = reminder.split("Packer:")[1]
        assert "Guard 7" in wearer
        assert "Guard 6" in packer


REFS = st.sampled_from(
    [
        "kit/leather-coat",
        "kit/mail-shirt",
        "kit/rowan-charm",
        "kit/saint-medal",
        "kit/arrows",
        "kit/lantern",
        "kit/hand-axe",
        "kit/gone",
        "other/thing",
    ]
)
SLOTS = st.sampled_from(["body", "neck", "hands", "belt"])
STAT_VALUES = st.one_of(
    st.integers(-10, 10),
    st.floats(allow_nan=False, allow_infinity=False),
    st.booleans(),
    st.text(max_size=4),
    st.none(),
)


@st.composite
def item_lines(draw: st.DrawFn) -> dict[str, Any]:
    """One line of `items` of the right shape: a catalog ref or a free-form item."""
    line: dict[str, Any]
    if draw(st.booleans()):
        line = {"ref": draw(REFS)}
    else:
        stats = draw(
            st.dictionaries(
                st.sampled_from(["guard", "ward", "light", "damage", "x"]), STAT_VALUES, max_size=3
            )
        )
        line = {"name": draw(st.text(min_size=1, max_size=8)), "stats": stats}
    for key, value in (("count", st.integers(0, 50)), ("worn", st.booleans()), ("slot", SLOTS)):
        if draw(st.booleans()):
            line[key] = draw(value)
    return line


SPECS = st.fixed_dictionaries(
    {
        "from": st.sampled_from(["worn", "carried", "all"]),
        "pick": st.sampled_from(["sum", "max", "min", "count"]),
        "stat": st.sampled_from(["guard", "ward", "light", "damage"]),
    },
    optional={
        "slot": SLOTS.filter(lambda s: s != "belt"),
        "category": st.sampled_from(["armor", "charm", "ammunition", "gear"]),
        "tag": st.just("shot"),
        "default": st.integers(-3, 3),
    },
)


class TestProperties:
    @settings(max_examples=200, deadline=None)
    @given(st.lists(item_lines(), max_size=8), SPECS)
    def test_any_items_list_reads_a_finite_number(
        self, lines: list[dict[str, Any]], spec: dict[str, Any]
    ) -> None:
        """Any items list of the right shape loads, round trips, and never raises when read."""
        snapshot = load_snapshot({"gameCharacterCards": {"Bram": {"items": lines}}})
        assert snapshot.to_json_dict()["gameCharacterCards"]["Bram"].get("items", []) == lines
        bram = snapshot.game_character_cards["Bram"]
        value = SheetValues(satchel(), bram, None).value(
            RulesetValueRef.model_validate({"itemStat": spec})
        )
        assert isinstance(value, int | float) and value == value
        for name in ("guard", "charm", "arrows", "light"):
            SheetValues(satchel(), bram, None).derived(name)

    @settings(max_examples=200, deadline=None)
    @given(st.lists(item_lines(), max_size=8), SPECS)
    def test_count_is_the_number_of_matching_copies(
        self, lines: list[dict[str, Any]], spec: dict[str, Any]
    ) -> None:
        """`pick: count` equals the copies of the lines every filter keeps (counted by hand)."""
        known = {e["id"]: e["item"] for e in SATCHEL["catalogs"][0]["entries"]}

        def keeps(line: dict[str, Any]) -> bool:
            entry = known.get(line["ref"].removeprefix("kit/")) if "ref" in line else None
            if "ref" in line and (entry is None or not line["ref"].startswith("kit/")):
                return False
            worn = line.get("worn", False)
            if (spec["from"] == "worn" and not worn) or (spec["from"] == "carried" and worn):
                return False
            slots = {line["slot"]} if "slot" in line else set((entry or {}).get("slots", {}))
            if "slot" in spec and spec["slot"] not in slots:
                return False
            if "category" in spec and (entry or {}).get("category") != spec["category"]:
                return False
            return "tag" not in spec or spec["tag"] in (entry or {}).get("tags", [])

        copies = sum(line.get("count", 1) for line in lines if keeps(line))
        counted = {**spec, "pick": "count"}
        got = read(counted, *lines)
        assert got == (copies if copies else spec.get("default", 0))
