"""`[sheet:]` commands end to end: parsing, who, the op table, receipts (SPEC §3–§5)."""

from __future__ import annotations

import random
from functools import cache
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from gmtags import Ruleset, Snapshot, load_ruleset, process
from gmtags.engine.context import Applied, Context
from gmtags.engine.sheet import (
    CHARACTER_OPS,
    PARTY_OPS,
    PARTY_SHEET_OPS,
    apply_sheet,
    canonical_op,
    cut_summary,
)
from gmtags.limits import DEFAULT_LIMITS
from gmtags.sheet import live, wounds
from gmtags.sheet.party import PartyValues
from gmtags.sheet.values import SheetValues
from gmtags.state.characters import party_members
from gmtags.state.names import PARTY_KEY
from gmtags.state.snapshot import LiveEntry
from gmtags.tags.parse import parse_span
from gmtags.tags.receipt import ENGINE_ATTRS
from gmtags.tags.scan import find_spans
from tests.conftest import FIXTURES

RULESETS = FIXTURES / "rulesets"


@cache
def ruleset(name: str) -> Ruleset:
    return load_ruleset(RULESETS / name)


GRAVEWATCH = "reference/gravewatch.json"
EMBER = "reference/ember-roads.json"
TORCHES = "sheets/five-torches.json"
ASHFALL = "sheets/ashfall.json"
CROWS = "sheets/crows.json"

TORCH_CARDS: dict[str, Any] = {
    "Ada": {"abilities": {"con": 14}, "fields": {"level": 5, "caster": "full", "hp_rolled": 20}},
    "Bram the Quiet": {},
}
"""Ada: 38 hit points, 5 hit dice, 4 first-level slots. Bram: 8 hit points, 1 hit die."""


def state(cards: dict[str, Any] | None = None, **rest: Any) -> Snapshot:
    """A snapshot from card dicts and other top-level keys (storage names)."""
    return Snapshot.model_validate({"gameCharacterCards": cards or {}, **rest})


def run(text: str, snapshot: Snapshot, rules: Ruleset) -> Applied:
    """Apply one tag straight through the sheet handler."""
    (span,) = list(find_spans(text, DEFAULT_LIMITS))
    tag = parse_span(text, span, ENGINE_ATTRS["sheet"])
    return apply_sheet(tag, snapshot, Context(rules, random.Random(0), DEFAULT_LIMITS))


def receipt(text: str, snapshot: Snapshot, rules: Ruleset) -> str:
    return run(text, snapshot, rules).receipt.render()


def torches(**rest: Any) -> Snapshot:
    return state(TORCH_CARDS, **rest)


class TestOpTable:
    def test_aliases_fold(self) -> None:
        """ENGINE-NOTES §6: heal is restore and cast is use; names ignore case and spaces."""
        assert [canonical_op(op) for op in ("heal", " Cast ", "SPEND", "dance", None)] == [
            "restore",
            "use",
            "spend",
            None,
            None,
        ]

    def test_every_op_is_in_the_table(self) -> None:
        """SPEC §5: the reference ops plus advance; the party sheet: spend, restore, advance."""
        assert set(CHARACTER_OPS) == {
            "spend", "restore", "damage", "temp", "track", "condition",
            "state", "note", "rest", "use", "advance",
        }  # fmt: skip
        assert set(PARTY_OPS) == PARTY_SHEET_OPS == {"spend", "restore", "advance"}

    def test_unknown_op_is_malformed(self) -> None:
        """An op the engine does not have, or none at all, is refused `malformed`."""
        assert receipt('[sheet: op="dance" pool="hp"]', torches(), ruleset(TORCHES)) == (
            '[sheet: op="dance" result="refused" reason="malformed"]'
        )
        assert run('[sheet: pool="hp" amount="1"]', torches(), ruleset(TORCHES)).receipt.reason == (
            "malformed"
        )


class TestReceipt:
    def test_layout(self) -> None:
        """SPEC §3: who, op, the op's attributes in the documented order, result, now."""
        text = '[sheet: amount="3" pool="hp" op="spend" who="ada"]'
        assert receipt(text, torches(), ruleset(TORCHES)) == (
            '[sheet: who="Ada" op="spend" pool="hp" amount="3" result="ok" now="35/38"]'
        )

    def test_implied_who_is_written(self) -> None:
        """ENGINE-NOTES §6: once resolved, `who` is the card's stored name, even when omitted."""
        assert receipt('[sheet: op="heal" pool="hp" amount="1"]', torches(), ruleset(TORCHES)) == (
            '[sheet: who="Ada" op="heal" pool="hp" amount="1" result="ok" now="38/38"]'
        )

    def test_other_attributes_are_dropped_but_kept_as_inputs(self) -> None:
        """Attributes the op does not read leave the receipt; the inputs keep them."""
        applied = run(
            '[sheet: op="spend" pool="hp" amount="1" mood="grim"]', torches(), ruleset(TORCHES)
        )
        assert "mood" not in applied.receipt.render()
        assert ("mood", "grim") in applied.receipt.inputs

    def test_forged_result_is_discarded(self) -> None:
        """SPEC §2: a model cannot forge a result; the engine's answer stands."""
        text = '[sheet: op="spend" pool="hp" amount="99" result="ok" now="38/38"]'
        assert receipt(text, torches(), ruleset(TORCHES)) == (
            '[sheet: who="Ada" op="spend" pool="hp" amount="99" '
            'result="refused" reason="insufficient"]'
        )

    def test_card(self) -> None:
        """The one-line card (SPEC §7.3) names who, the pool, the change and the new value."""
        applied = run('[sheet: op="spend" pool="hp" amount="3"]', torches(), ruleset(TORCHES))
        assert applied.receipt.card == "💠 Ada hp −3 → 35/38"

    def test_now_is_cut_at_the_last_separator(self) -> None:
        """ENGINE-NOTES §6: `now` is cut to 240 characters, back to the last `; `."""
        cards = {f"Warden number {index:02d} of the long night": {} for index in range(12)}
        applied = run(
            '[sheet: who="party" op="spend" pool="resolve" amount="1"]',
            state(cards),
            ruleset(GRAVEWATCH),
        )
        now = applied.receipt.attr("now") or ""
        assert len(now) <= 240 and now.endswith("3/4") and now.count("; ") == 5
        assert len(applied.snapshot.ruleset_live) == 12

    def test_cut_summary(self) -> None:
        """A summary under the limit is kept; one without a separator is cut hard."""
        assert cut_summary("a; b", 10) == "a; b"
        assert cut_summary("aaaa; bbbb; cccc", 12) == "aaaa; bbbb"
        assert cut_summary("x" * 20, 5) == "xxxxx"


class TestWho:
    def test_omitted_is_the_player(self) -> None:
        """ENGINE-NOTES §4: no `who` is the player's card, the first one."""
        applied = run('[sheet: op="spend" pool="hp" amount="1"]', torches(), ruleset(TORCHES))
        assert set(applied.snapshot.ruleset_live) == {"ada"}

    def test_matched_by_normalised_name(self) -> None:
        """SPEC §4: `who` matches by normalised name; the receipt writes the stored name."""
        applied = run(
            '[sheet: who="bram  THE-quiet" op="spend" pool="hp" amount="1"]',
            torches(),
            ruleset(TORCHES),
        )
        assert applied.receipt.attr("who") == "Bram the Quiet"
        assert applied.snapshot.ruleset_live["bram the quiet"].pools == {"hp": 7}

    def test_unknown_character(self) -> None:
        """A name with no card, or no cards at all, is `unknown-character`."""
        text = '[sheet: who="Zed" op="spend" pool="hp" amount="1"]'
        assert receipt(text, torches(), ruleset(TORCHES)) == (
            '[sheet: who="Zed" op="spend" pool="hp" amount="1" '
            'result="refused" reason="unknown-character"]'
        )
        assert run(
            '[sheet: op="spend" pool="hp" amount="1"]', state(), ruleset(TORCHES)
        ).receipt.reason == ("unknown-character")

    def test_ambiguous_character(self) -> None:
        """Two cards sharing a normalised name are `ambiguous-character`, unless the player's."""
        cards = {"Ada": {}, "Juno": {}, "JUNO": {}}
        text = '[sheet: who="juno" op="spend" pool="hp" amount="1"]'
        assert run(text, state(cards), ruleset(TORCHES)).receipt.reason == "ambiguous-character"
        player = {"Juno": {}, "juno": {}}
        assert run(text, state(player), ruleset(TORCHES)).receipt.attr("who") == "Juno"


class TestEveryone:
    def test_applies_to_every_character(self) -> None:
        """SPEC §4: who="party" applies to each character; `now` is `Name now; Name now`."""
        applied = run(
            '[sheet: who="party" op="spend" pool="hp" amount="2"]', torches(), ruleset(TORCHES)
        )
        assert applied.receipt.render() == (
            '[sheet: who="party" op="spend" pool="hp" amount="2" result="ok" '
            'now="Ada 36/38; Bram the Quiet 6/8"]'
        )

    def test_partial_refusals_are_named_after_the_applied(self) -> None:
        """ENGINE-NOTES §6: `Name now; Name refused (reason)` when some members refuse."""
        applied = run(
            '[sheet: who="Party" op="spend" pool="hp" amount="10"]', torches(), ruleset(TORCHES)
        )
        assert applied.receipt.attr("now") == "Ada 28/38; Bram the Quiet refused (insufficient)"
        assert set(applied.snapshot.ruleset_live) == {"ada"}

    def test_refused_for_all_takes_the_first_reason(self) -> None:
        """When no member succeeds, the receipt is refused with the first reason."""
        applied = run(
            '[sheet: who="party" op="spend" pool="slot_1" amount="9"]', torches(), ruleset(TORCHES)
        )
        assert applied.receipt.reason == "insufficient"

    def test_one_member_reads_as_its_value(self) -> None:
        """A party of one reads as that member's `now` alone."""
        applied = run(
            '[sheet: who="party" op="spend" pool="hp" amount="1"]',
            state({"Ada": {}}),
            ruleset(TORCHES),
        )
        assert applied.receipt.attr("now") == "7/8"

    def test_no_members(self) -> None:
        """who="party" with no cards is `unknown-character`."""
        assert run(
            '[sheet: who="party" op="rest" rest="short"]', state(), ruleset(TORCHES)
        ).receipt.reason == ("unknown-character")

    def test_shared_names_are_skipped_unless_the_players(self) -> None:
        """ENGINE-NOTES §4: a name two cards share is left out, unless it is the player's."""
        cards = {"Ada": {}, "Juno": {}, "juno": {}}
        applied = run(
            '[sheet: who="party" op="spend" pool="hp" amount="1"]', state(cards), ruleset(TORCHES)
        )
        assert applied.receipt.attr("now") == "7/8"


class TestSpend:
    def test_spend_and_refusals(self) -> None:
        """ENGINE-NOTES §6: spend needs pool and amount; insufficient, bad-amount, unknown-pool."""
        rules = ruleset(TORCHES)
        assert (
            run('[sheet: op="spend" pool="Hit dice" amount="2"]', torches(), rules).receipt.attr(
                "now"
            )
            == "3/5"
        )
        for text, why in (
            ('[sheet: op="spend" pool="hit dice" amount="6"]', "insufficient"),
            ('[sheet: op="spend" pool="hp" amount="0"]', "bad-amount"),
            ('[sheet: op="spend" pool="hp" amount="1.5"]', "bad-amount"),
            ('[sheet: op="spend" pool="hp" amount="9999999999"]', "bad-amount"),
            ('[sheet: op="spend" pool="mana" amount="1"]', "unknown-pool"),
            ('[sheet: op="spend" amount="1"]', "malformed"),
            ('[sheet: op="spend" pool="hp"]', "malformed"),
        ):
            assert run(text, torches(), rules).receipt.reason == why, text

    def test_hidden_pool_is_unknown(self) -> None:
        """ENGINE-NOTES §8: Bram casts no spells, so his slots are not on his sheet."""
        text = '[sheet: who="Bram the Quiet" op="spend" pool="slot_1" amount="1"]'
        assert run(text, torches(), ruleset(TORCHES)).receipt.reason == "unknown-pool"


class TestRestore:
    def test_heal_alias_caps_at_max(self) -> None:
        """restore (alias heal) is capped at the maximum, and a full pool stores nothing."""
        snapshot = torches(rulesetLive={"Ada": {"pools": {"hp": 30}}})
        applied = run('[sheet: op="heal" pool="hp" amount="20"]', snapshot, ruleset(TORCHES))
        assert applied.receipt.attr("now") == "38/38"
        assert applied.snapshot.ruleset_live == {}


class TestDamage:
    def test_pool_form(self) -> None:
        """The pool form drains temporary points first, then the value."""
        snapshot = torches(rulesetLive={"ada": {"temp": {"hp": 4}}})
        applied = run('[sheet: op="damage" pool="hp" amount="10"]', snapshot, ruleset(TORCHES))
        assert applied.receipt.attr("now") == "32/38"

    def test_wound_form_seed_harm(self) -> None:
        """002: knock, tear, knock on Harm read `Harm 3/4 Bleeding` in the last receipt."""
        snapshot = state({"Bram": {}})
        rules = ruleset(GRAVEWATCH)
        for kind in ("knock", "tear", "knock"):
            applied = run(
                f'[sheet: op="damage" track="harm" kind="{kind}" amount="1"]', snapshot, rules
            )
            snapshot = applied.snapshot
        assert applied.receipt.render() == (
            '[sheet: who="Bram" op="damage" track="harm" kind="knock" amount="1" '
            'result="ok" now="Harm 3/4 Bleeding"]'
        )
        assert snapshot.ruleset_live["bram"].marks == {"harm": ["tear", "knock", "knock"]}

    def test_wound_form_refusals(self) -> None:
        """A mark needs a kind (malformed), a known one (unknown-kind); a plain track refuses."""
        rules = ruleset(GRAVEWATCH)
        snapshot = state({"Bram": {}})
        for text, why in (
            ('[sheet: op="damage" track="harm" amount="1"]', "malformed"),
            ('[sheet: op="damage" track="harm" kind="bite" amount="1"]', "unknown-kind"),
            ('[sheet: op="damage" track="harm" kind="knock"]', "malformed"),
            ('[sheet: op="damage" track="harm" kind="knock" amount="0"]', "bad-amount"),
            ('[sheet: op="damage" track="doom" kind="knock" amount="1"]', "unknown-track"),
            ('[sheet: op="damage" kind="knock" amount="1"]', "malformed"),
        ):
            assert run(text, snapshot, rules).receipt.reason == why, text
        ember = state({"Juno": {}})
        heat = '[sheet: op="damage" track="heat" kind="strain" amount="1"]'
        assert run(heat, ember, ruleset(EMBER)).receipt.reason == "wrong-track"

    def test_box_and_refusing_track(self) -> None:
        """002: `box=` aims a mark; three marks into two free boxes place none (`no-box`)."""
        rules = ruleset(EMBER)
        snapshot = state({"Juno": {"abilities": {"heart": 1}}})
        boxed = run(
            '[sheet: op="damage" track="strain" kind="strain" amount="1" box="2"]', snapshot, rules
        )
        assert boxed.receipt.render() == (
            '[sheet: who="Juno" op="damage" track="strain" kind="strain" amount="1" box="2" '
            'result="ok" now="Strain 1/3"]'
        )
        assert boxed.snapshot.ruleset_live["juno"].marks == {"strain": ["", "strain"]}
        three = run(
            '[sheet: op="damage" track="strain" kind="strain" amount="3"]', boxed.snapshot, rules
        )
        assert three.receipt.reason == "no-box" and three.snapshot is boxed.snapshot
        bad = run(
            '[sheet: op="damage" track="strain" kind="strain" amount="1" box="two"]',
            snapshot,
            rules,
        )
        assert bad.receipt.reason == "bad-amount"

    def test_negative_amount_heals(self) -> None:
        """002: the same command with a negative amount heals; overflow goes first."""
        snapshot = state(
            {"Bram": {}},
            rulesetLive={"bram": {"marks": {"harm": ["tear", "tear"]}, "overflow": {"harm": 0}}},
        )
        applied = run(
            '[sheet: op="damage" track="Harm" amount="-1"]', snapshot, ruleset(GRAVEWATCH)
        )
        assert applied.receipt.attr("now") == "Harm 1/4 Scuffed"


class TestTemp:
    def test_sets_and_refuses_without_allow_temp(self) -> None:
        """ENGINE-NOTES §6: temp sets (0 allowed); `no-temp` on a pool without allowTemp."""
        rules = ruleset(TORCHES)
        applied = run('[sheet: op="temp" pool="hp" amount="0"]', torches(), rules)
        assert applied.receipt.attr("now") == "38/38"
        assert run('[sheet: op="temp" pool="hp" amount="6"]', torches(), rules).receipt.attr(
            "now"
        ) == ("38/38 +6 temp")
        assert (
            run('[sheet: op="temp" pool="hit_dice" amount="1"]', torches(), rules).receipt.reason
            == "no-temp"
        )


class TestTrack:
    def test_to_or_by(self) -> None:
        """ENGINE-NOTES §6: exactly one of to/by; clamped; receipt `Label value`."""
        rules = ruleset(TORCHES)
        text = '[sheet: op="track" track="death_saves" by="+5"]'
        assert receipt(text, torches(), rules) == (
            '[sheet: who="Ada" op="track" track="death_saves" by="+5" '
            'result="ok" now="Death save failures 3"]'
        )
        for text, why in (
            ('[sheet: op="track" track="death_saves" to="1" by="1"]', "malformed"),
            ('[sheet: op="track" track="death_saves"]', "malformed"),
            ('[sheet: op="track" track="death_saves" to="x"]', "bad-amount"),
            ('[sheet: op="track" track="exhaustion" to="1"]', "wrong-track"),
            ('[sheet: op="track" track="luck" to="1"]', "unknown-track"),
        ):
            assert run(text, torches(), rules).receipt.reason == why, text


class TestCondition:
    def test_words_for_on_and_off(self) -> None:
        """ENGINE-NOTES §6: on/add/true, off/remove/false; no value turns it on."""
        rules = ruleset(TORCHES)
        on = run('[sheet: op="condition" condition="Prone"]', torches(), rules)
        assert on.receipt.attr("now") == "Prone on"
        off = run('[sheet: op="condition" condition="prone" state="REMOVE"]', on.snapshot, rules)
        assert off.receipt.attr("now") == "Prone off" and off.snapshot.ruleset_live == {}
        added = run('[sheet: op="condition" condition="prone" state="add"]', torches(), rules)
        assert added.snapshot.ruleset_live["ada"].conditions == ["prone"]

    def test_refusals(self) -> None:
        """An unknown condition, and a state word that is neither on nor off."""
        rules = ruleset(TORCHES)
        assert run(
            '[sheet: op="condition" condition="cursed"]', torches(), rules
        ).receipt.reason == ("unknown-condition")
        assert run(
            '[sheet: op="condition" condition="prone" state="maybe"]', torches(), rules
        ).receipt.reason == ("malformed")


class TestState:
    def test_seed_example(self) -> None:
        """ENGINE-NOTES §6 (T1): the state example, set by label and value label."""
        text = '[sheet: who="Juno" op="state" state="Stance" value="Reckless"]'
        assert receipt(text, state({"Juno": {}}), ruleset(EMBER)) == (
            '[sheet: who="Juno" op="state" state="Stance" value="Reckless" '
            'result="ok" now="Stance Reckless"]'
        )

    def test_refusals(self) -> None:
        """002: `unknown-state`, `unknown-value`; a state without a value is malformed."""
        rules, snapshot = ruleset(EMBER), state({"Juno": {}})
        assert (
            run('[sheet: op="state" state="Mood" value="calm"]', snapshot, rules).receipt.reason
            == "unknown-state"
        )
        assert run(
            '[sheet: op="state" state="Stance" value="calm"]', snapshot, rules
        ).receipt.reason == ("unknown-value")
        assert (
            run('[sheet: op="state" state="Stance"]', snapshot, rules).receipt.reason == "malformed"
        )


class TestNote:
    def test_write_and_clear(self) -> None:
        """ENGINE-NOTES §6: `Label: text`; an absent value clears (`Label cleared`)."""
        rules = ruleset(TORCHES)
        wrote = run('[sheet: op="note" field="concentration" value="Bless"]', torches(), rules)
        assert wrote.receipt.attr("now") == "Concentrating on: Bless"
        cleared = run('[sheet: op="note" field="concentration"]', wrote.snapshot, rules)
        assert cleared.receipt.attr("now") == "Concentrating on cleared"
        assert cleared.snapshot.ruleset_live == {}

    def test_refusals(self) -> None:
        """A note needs a field the sheet has."""
        rules = ruleset(TORCHES)
        assert run('[sheet: op="note" value="x"]', torches(), rules).receipt.reason == "malformed"
        assert (
            run('[sheet: op="note" field="diary" value="x"]', torches(), rules).receipt.reason
            == "unknown-field"
        )


class TestRest:
    def test_catch_your_breath(self) -> None:
        """002: Gravewatch's "Catch your breath" heals knocks, leaves tears."""
        snapshot = state(
            {"Bram": {}}, rulesetLive={"bram": {"marks": {"harm": ["tear", "knock", "knock"]}}}
        )
        text = '[sheet: op="rest" rest="Catch your breath"]'
        applied = run(text, snapshot, ruleset(GRAVEWATCH))
        assert applied.receipt.render() == (
            '[sheet: who="Bram" op="rest" rest="Catch your breath" '
            'result="ok" now="Catch your breath: Harm 1/4"]'
        )

    def test_refusals(self) -> None:
        """A rest needs a name the ruleset has."""
        rules = ruleset(TORCHES)
        assert run('[sheet: op="rest"]', torches(), rules).receipt.reason == "malformed"
        assert (
            run('[sheet: op="rest" rest="nap"]', torches(), rules).receipt.reason == "unknown-rest"
        )

    def test_everyone_rests(self) -> None:
        """SPEC §9: who="party" runs the rest for each character."""
        snapshot = torches(rulesetLive={"ada": {"tracks": {"death_saves": 2}}})
        applied = run('[sheet: who="party" op="rest" rest="short"]', snapshot, ruleset(TORCHES))
        assert (
            applied.receipt.attr("now")
            == "Ada Short rest: Death save failures 0; Bram the Quiet Short rest"
        )


class TestUse:
    def test_cast_with_spell(self) -> None:
        """ENGINE-NOTES §6: `cast` is `use`, `spell=` is `name=`; both echoed as written."""
        snapshot = state({"Bram": {"picks": ["charms/grave-sight"]}})
        text = '[sheet: op="cast" spell="Grave Sight"]'
        assert receipt(text, snapshot, ruleset(GRAVEWATCH)) == (
            '[sheet: who="Bram" op="cast" spell="Grave Sight" '
            'result="ok" now="Grave Sight: Resolve 3/4"]'
        )

    def test_refusals(self) -> None:
        """A use needs a name; an entry the character never picked is `unknown-entry`."""
        rules, snapshot = ruleset(GRAVEWATCH), state({"Bram": {"picks": ["charms/grave-sight"]}})
        assert run('[sheet: op="use"]', snapshot, rules).receipt.reason == "malformed"
        assert (
            run('[sheet: op="use" name="Stern Word"]', snapshot, rules).receipt.reason
            == "unknown-entry"
        )
        assert (
            run('[sheet: op="use" name="Grave Sight" pool="hp"]', snapshot, rules).receipt.reason
            == "bad-pool"
        )


class TestAdvance:
    def test_character_field(self) -> None:
        """004: a field in sheet.advancement.fields changes for good on the card."""
        applied = run('[sheet: op="advance" field="level" by="1"]', torches(), ruleset(TORCHES))
        assert applied.receipt.render() == (
            '[sheet: who="Ada" op="advance" field="level" by="1" result="ok" now="Level 6"]'
        )
        assert applied.snapshot.game_character_cards["Ada"].fields["level"] == 6
        assert list(applied.snapshot.game_character_cards) == ["Ada", "Bram the Quiet"]

    def test_refusals(self) -> None:
        """002/SPEC §8: not listed, out of range, unknown field, missing field."""
        rules = ruleset(TORCHES)
        for text, why in (
            ('[sheet: op="advance" field="armour" to="heavy"]', "not-advanceable"),
            ('[sheet: op="advance" field="level" to="25"]', "invalid-value"),
            ('[sheet: op="advance" field="luck" by="1"]', "unknown-field"),
            ('[sheet: op="advance" by="1"]', "malformed"),
        ):
            assert run(text, torches(), rules).receipt.reason == why, text

    def test_no_advancement_list(self) -> None:
        """A ruleset without sheet.advancement advances nothing."""
        text = '[sheet: op="advance" field="post" to="North gate"]'
        assert (
            run(text, state({"Bram": {}}), ruleset(GRAVEWATCH)).receipt.reason == "not-advanceable"
        )


CREW = state({"Vex": {}, "Nim": {}})


class TestPartySheet:
    def test_coin_with_max_from_a_field(self) -> None:
        """002: the crew's coin starts empty and its max is the vault field."""
        rules = ruleset(CROWS)
        applied = run('[sheet: sheet="party" op="restore" pool="coin" amount="3"]', CREW, rules)
        assert applied.receipt.render() == (
            '[sheet: sheet="party" op="restore" pool="coin" amount="3" result="ok" now="3/4"]'
        )
        assert applied.snapshot.ruleset_live == {PARTY_KEY: LiveEntry(pools={"coin": 3})}
        bigger = run(
            '[sheet: sheet="party" op="advance" field="vault" by="4"]', applied.snapshot, rules
        )
        assert bigger.receipt.attr("now") == "Vault capacity 8"
        more = run(
            '[sheet: sheet="party" op="restore" pool="coin" amount="9"]', bigger.snapshot, rules
        )
        assert more.receipt.attr("now") == "8/8"
        spent = run(
            '[sheet: sheet="party" op="spend" pool="coin" amount="9"]', more.snapshot, rules
        )
        assert spent.receipt.reason == "insufficient"

    def test_advance_heat_and_text(self) -> None:
        """002: `by` on a number field and `to` on a text field, stored in gamePartySheet.fields."""
        rules = ruleset(CROWS)
        heat = run('[sheet: sheet="party" op="advance" field="heat" by="2"]', CREW, rules)
        lair = run(
            '[sheet: sheet="party" op="advance" field="Lair" to="Hidden vault"]',
            heat.snapshot,
            rules,
        )
        assert (heat.receipt.attr("now"), lair.receipt.attr("now")) == (
            "Heat 2",
            "Lair Hidden vault",
        )
        assert lair.snapshot.game_party_sheet is not None
        assert lair.snapshot.game_party_sheet.fields == {"heat": 2, "lair": "Hidden vault"}
        over = run('[sheet: sheet="party" op="advance" field="heat" by="8"]', heat.snapshot, rules)
        assert over.receipt.reason == "invalid-value"

    def test_from_members_is_never_advanced(self) -> None:
        """002, "Creación compartida…": a field read from the members is not advanceable."""
        applied = run(
            '[sheet: sheet="party" op="advance" field="size" to="3"]', CREW, ruleset(CROWS)
        )
        assert applied.receipt.reason == "not-advanceable"

    def test_unsupported_ops(self) -> None:
        """002: the party sheet takes spend, restore (heal) and advance only: `unsupported-op`."""
        rules = ruleset(CROWS)
        for text in (
            '[sheet: sheet="party" op="rest" rest="vice"]',
            '[sheet: sheet="party" op="temp" pool="coin" amount="1"]',
            '[sheet: sheet="party" op="use" name="Lair"]',
        ):
            assert run(text, CREW, rules).receipt.reason == "unsupported-op", text
        healed = run('[sheet: sheet="Party" op="heal" pool="coin" amount="1"]', CREW, rules)
        assert healed.receipt.attr("now") == "1/4"

    def test_unknown_sheet(self) -> None:
        """An unknown `sheet=` value, or a ruleset without `party`, is `unknown-sheet`."""
        assert run(
            '[sheet: sheet="ship" op="spend" pool="coin" amount="1"]', CREW, ruleset(CROWS)
        ).receipt.reason == ("unknown-sheet")
        no_party = run(
            '[sheet: sheet="party" op="spend" pool="grit" amount="1"]', CREW, ruleset(EMBER)
        )
        assert no_party.receipt.reason == "unknown-sheet"

    def test_who_beside_sheet_is_malformed(self) -> None:
        """002: sheet="party" omits who; a tag naming both is malformed."""
        text = '[sheet: who="Vex" sheet="party" op="spend" pool="coin" amount="1"]'
        assert run(text, CREW, ruleset(CROWS)).receipt.reason == "malformed"

    def test_who_party_never_touches_the_shared_sheet(self) -> None:
        """002: who="party" applies to each character and never changes the shared sheet."""
        applied = run('[sheet: who="party" op="track" track="stress" by="1"]', CREW, ruleset(CROWS))
        assert applied.receipt.attr("now") == "Vex Stress 1; Nim Stress 1"
        assert PARTY_KEY not in applied.snapshot.ruleset_live


class TestLimits:
    def test_forty_commands_then_too_many(self) -> None:
        """SPEC §2: the 41st sheet command of a reply is refused `too-many` and changes nothing."""
        cards = {"Ada": {"abilities": {"con": 14}, "fields": {"level": 5, "hp_rolled": 40}}}
        reply = '[sheet: op="spend" pool="hp" amount="1"]\n' * 41
        result = process(reply, ruleset(TORCHES), state(cards), seed=1)
        assert [r.result for r in result.receipts[:40]] == ["ok"] * 40
        assert result.receipts[40].reason == "too-many"
        assert result.snapshot.ruleset_live["ada"].pools == {"hp": 18}


# ---------------------------------------------------------------------------
# Invariants (STYLE 8): hypothesis strategies that follow the command grammar

VALUES: dict[str, list[str]] = {
    "who": ["Ada", "bram the quiet", "party", "Zed"],
    "pool": ["hp", "Hit points", "hit_dice", "slot_1", "willpower", "rage", "mana"],
    "amount": ["0", "1", "3", "7", "40", "-2", "-9", "x", "100001"],
    "track": ["exhaustion", "death_saves", "Health", "health", "doom"],
    "kind": ["fatigue", "F", "bashing", "lethal", "aggravated", "bite"],
    "box": ["1", "3", "0", "x"],
    "to": ["0", "2", "9", "-4", "x", "Hidden"],
    "by": ["1", "-1", "3", "-30", "0.5"],
    "condition": ["prone", "Poisoned", "frenzied", "cursed"],
    "on": ["on", "off", "remove", "maybe"],
    "state": ["form", "Form", "mood"],
    "value": ["", "Bless", "war", "Wolf", "human", "x" * 90],
    "field": ["concentration", "level", "hp_rolled", "caster", "willpower_rating", "diary"],
    "rest": ["short", "Long rest", "night", "nap"],
    "name": ["Shield", "nothing"],
}
SHAPES: dict[str, list[tuple[str, ...]]] = {
    "spend": [("pool", "amount")],
    "restore": [("pool", "amount")],
    "heal": [("pool", "amount")],
    "temp": [("pool", "amount")],
    "damage": [("pool", "amount"), ("track", "kind", "amount"), ("track", "kind", "amount", "box")],
    "track": [("track", "to"), ("track", "by")],
    "condition": [("condition",), ("condition", "on")],
    "state": [("state", "value")],
    "note": [("field",), ("field", "value")],
    "rest": [("rest",)],
    "use": [("name",)],
    "cast": [("name", "pool")],
    "advance": [("field", "by"), ("field", "to")],
    "dance": [()],
}
"""Each op with the attributes it reads (a condition's `state` is drawn from `on`)."""


@st.composite
def sheet_tags(draw: st.DrawFn) -> str:
    """A `[sheet:]` tag shaped like its op, with valid and invalid values, sometimes a stray key."""
    op = draw(st.sampled_from(sorted(SHAPES)))
    keys = list(draw(st.sampled_from(SHAPES[op])))
    keys += draw(
        st.lists(st.sampled_from(["who", "who", "amount", "kind"]), unique=True, max_size=1)
    )
    attrs = [f'op="{op}"']
    for key in dict.fromkeys(keys):
        name = "state" if key == "on" else key
        attrs.append(f'{name}="{draw(st.sampled_from(VALUES[key]))}"')
    return f"[sheet: {' '.join(draw(st.permutations(attrs)))}]"


def check_bounds(rules: Ruleset, snapshot: Snapshot) -> None:
    """Every stored live value lies within its bounds and differs from its start (sparse)."""
    members = {member.key: member for member in party_members(snapshot)}
    assert set(snapshot.ruleset_live) <= {*members, PARTY_KEY}
    for key, entry in snapshot.ruleset_live.items():
        if key == PARTY_KEY:
            assert rules.party is not None
            party = {pool.key: pool for pool in PartyValues(rules, rules.party, snapshot).pools()}
            assert all(
                0 <= v <= party[k].max and v != party[k].start for k, v in entry.pools.items()
            )
            continue
        sheet = SheetValues(rules, members[key].card, entry)
        pools = {pool.key: pool for pool in live.character_pools(sheet)}
        for name, value in entry.pools.items():
            assert 0 <= value <= pools[name].max and value != pools[name].start
        for name, value in entry.temp.items():
            assert pools[name].allow_temp and 0 < value <= live.MAX_AMOUNT
        for name, value in entry.tracks.items():
            low, high = sheet.track_bounds(name)
            assert low <= value <= high and value != sheet.track_start(name)
        for name, marks in entry.marks.items():
            shape = sheet.wound_track(name)
            assert shape is not None and 0 < len(marks) <= shape.length
            assert wounds.normalize(shape, wounds.WoundState(tuple(marks))).marks == tuple(marks)
        assert all(value > 0 for value in entry.overflow.values())
        states = {state.id: state for state in rules.sheet.live.states}
        assert all(v in states[k].values and v != states[k].start for k, v in entry.states.items())
        declared = {condition.id for condition in rules.sheet.live.conditions}
        assert set(entry.conditions) <= declared and len(set(entry.conditions)) == len(
            entry.conditions
        )
        lengths = {text.id: text.max_length for text in rules.sheet.live.text}
        assert all(0 < len(v) <= lengths[k] for k, v in entry.text.items())


INVARIANT_RULESETS = st.sampled_from([TORCHES, ASHFALL])
INVARIANT_CARDS: dict[str, Any] = {
    **TORCH_CARDS,
    "Ada": {
        **TORCH_CARDS["Ada"],
        "lists": {"scars": [{"name": "Burn", "levels": 2}]},
        "picks": ["x/y"],
    },
}


class TestInvariants:
    @settings(max_examples=150, deadline=None)
    @given(name=INVARIANT_RULESETS, tags=st.lists(sheet_tags(), max_size=25))
    def test_refusals_change_nothing_and_values_stay_in_bounds(
        self, name: str, tags: list[str]
    ) -> None:
        """A refused command changes nothing; valid live commands keep values in bounds."""
        rules = ruleset(name)
        snapshot = state(INVARIANT_CARDS)
        for text in tags:
            applied = run(text, snapshot, rules)
            if applied.receipt.result == "refused":
                assert applied.snapshot is snapshot
                continue
            if 'op="advance"' in text:
                # Checked, not kept: a lowered maximum leaves a stored value above it, read clamped.
                check_fields(rules, applied.snapshot)
                continue
            snapshot = applied.snapshot
            check_bounds(rules, snapshot)

    @settings(max_examples=100, deadline=None)
    @given(
        tags=st.lists(
            st.builds(
                lambda op, amount: (
                    f'[sheet: sheet="party" op="{op}" pool="coin" amount="{amount}"]'
                ),
                st.sampled_from(["spend", "restore", "heal"]),
                st.sampled_from(["1", "2", "5", "0", "-1"]),
            )
            | st.builds(
                lambda field, how, value: (
                    f'[sheet: sheet="party" op="advance" field="{field}" {how}="{value}"]'
                ),
                st.sampled_from(["heat", "rep", "vault", "size", "lair"]),
                st.sampled_from(["by", "to"]),
                st.sampled_from(["1", "-2", "12", "x", ""]),
            ),
            max_size=20,
        )
    )
    def test_party_sheet_values_hold(self, tags: list[str]) -> None:
        """Party pools stay within 0..max and party fields only ever hold values they can hold."""
        rules = ruleset(CROWS)
        snapshot = CREW
        for text in tags:
            applied = run(text, snapshot, rules)
            if applied.receipt.result == "refused":
                assert applied.snapshot is snapshot
                continue
            snapshot = applied.snapshot
            check_fields(rules, snapshot)
            if 'op="advance"' not in text:
                check_bounds(rules, snapshot)


def check_fields(rules: Ruleset, snapshot: Snapshot) -> None:
    """Every stored permanent field holds a value its field can hold (SPEC §8)."""
    shapes = {field.id: field for field in rules.sheet.fields}
    for card in snapshot.game_character_cards.values():
        for key, value in card.fields.items():
            assert value is not None and shapes[key].holds(value) is None
    if snapshot.game_party_sheet is not None and rules.party is not None:
        party = {field.id: field for field in rules.party.fields}
        for key, value in snapshot.game_party_sheet.fields.items():
            assert value is not None and party[key].holds(value) is None
