"""Contextual rows and entries on a check (004, "Una lista puede declarar contextual", "Una entrada
de catálogo puede llevar mechanics.contextual", 1.213, 1.214, 1.217, 1.218)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from gmtags import RulesetError, Snapshot, load_ruleset, process
from gmtags.checks.contextual import read_dice, read_names
from tests.checks.conftest import CHECKS, attrs, check, ruleset, snapshot

FATE = ruleset("checks/fate-stunts.json")
EXWOD = ruleset("checks/exwod-specialties.json")
ROOKS = ruleset("checks/rooks.json")


def ada(**extra: Any) -> Snapshot:
    """Ada: Fight Good (+3), Will Fair (+2), Notice Mediocre; Heavy Hitter +2 on Fight."""
    card: dict[str, Any] = {
        "skills": {"fight": "good", "will": "fair"},
        "fields": {"refresh": 3},
        "lists": {
            "stunts": [
                {"name": "Heavy Hitter", "skill": "Fight", "bonus": 2},
                {"name": "Sharp Eyes", "skill": "notice", "bonus": 2},
                {"name": "Ready for Anything", "skill": ""},
                {"name": "Twice", "skill": "", "bonus": 1},
                {"name": "twice", "skill": "Fight", "bonus": 1},
            ],
            "boosts": [{"name": "Blessing", "skill": "", "dice": "1d4"}],
            "wards": [{"name": "Calm", "save": "Composure", "bonus": 1}],
        },
        "picks": ["extras/iron-will", "extras/lucky"],
    }
    card.update(extra)
    return snapshot({"Ada": card})


def bo(picks: list[str] | None = None, live: dict[str, Any] | None = None) -> Snapshot:
    """Bo: Nerve 3, Sinew 2, Ward rating 1; specialties lifting (Sinew) and Wards of Iron (Ward)."""
    card = {
        "abilities": {"nerve": 3, "sinew": 2, "warmth": 1},
        "skills": {"ward": "rating_1"},
        "fields": {"willpower_max": 3},
        "lists": {
            "specialties": [
                {"name": "lifting", "skill": "Sinew"},
                {"name": "Wards of Iron", "skill": "ward"},
            ],
            "edges": [{"name": "Second Wind", "skill": "Listen", "dice": 2}],
        },
        "picks": picks
        if picks is not None
        else ["gifts/steel-nerve", "gifts/iron-grip", "gifts/push"],
    }
    return snapshot({"Bo": card}, rulesetLive={"bo": live} if live else {})


def cat(stress: int = 0) -> Snapshot:
    """Cat: Hunt 3, Finesse 1, Skirmish 0, with Rook's Gambit written with a curly apostrophe."""
    card = {
        "skills": {"hunt": "rating_3", "finesse": "rating_1"},
        "lists": {"special": [{"name": "Rook’s Gambit", "skill": ""}]},
    }
    live = {"cat": {"tracks": {"stress": stress}}} if stress else {}
    return snapshot({"Cat": card}, rulesetLive=live)


def live(state: Snapshot, key: str) -> dict[str, Any]:
    """The stored live entry of a character, as JSON."""
    entry = state.ruleset_live.get(key)
    return {} if entry is None else entry.model_dump(by_alias=True, exclude_defaults=True)


class TestReadNames:
    def test_split_on_semicolons(self) -> None:
        """apply="A; B" names A and B, trimmed."""
        assert read_names(" Strong Back ;Quick Eye ") == ["Strong Back", "Quick Eye"]

    def test_at_most_four(self) -> None:
        """004: up to four names are read; the rest are ignored."""
        assert read_names("a; b; c; d; e") == ["a", "b", "c", "d"]

    def test_blanks_and_repeats_dropped(self) -> None:
        """An empty part or a name written twice (in any case) is read once."""
        assert read_names("A;; a ;B") == ["A", "B"]

    def test_absent(self) -> None:
        """No apply= names nothing."""
        assert read_names(None) == []


class TestReadDice:
    def test_shapes(self) -> None:
        """A dice cell reads NdS with an optional +M or -M."""
        assert [read_dice(t) for t in ("1d4", "2D6+1", "d8", " 3d6 - 2 ")] == [
            (1, 4, 0),
            (2, 6, 1),
            (1, 8, 0),
            (3, 6, -2),
        ]

    def test_anything_else_adds_nothing(self) -> None:
        """An empty, oversized or unreadable cell is no dice."""
        assert [read_dice(t) for t in (None, "", "21d6", "1d1", "two dice")] == [None] * 5


class TestListRows:
    def test_stunt_adds_its_bonus(self) -> None:
        """004 (Fate stunts): a named row of the check's skill adds its bonus to the modifier."""
        text = '[skill_check: skill="Fight" dc="2" apply="Heavy Hitter"]'
        out = attrs(check(FATE, text, ada(), [2, 2, 2, 2]))
        assert (out["modifier"], out["total"], out["effects"], out["from"]) == (
            "5",
            "5",
            "+2",
            "Heavy Hitter",
        )

    def test_row_of_another_skill_changes_nothing(self) -> None:
        """004: a row of another skill does not apply, so the check rolls as without it."""
        text = '[skill_check: skill="Fight" dc="2" apply="Sharp Eyes"]'
        out = attrs(check(FATE, text, ada(), [2, 2, 2, 2]))
        assert (out["modifier"], "effects" in out, "from" in out) == ("3", False, False)

    def test_skill_cell_by_id_or_label(self) -> None:
        """004: the skill cell names its skill by id or label (Sharp Eyes says "notice")."""
        text = '[skill_check: skill="Notice" dc="2" apply="Sharp Eyes"]'
        assert attrs(check(FATE, text, ada(), [2, 2, 2, 2]))["effects"] == "+2"

    def test_empty_skill_cell_applies_to_any_check(self) -> None:
        """004: an empty skill cell applies to any check; an empty bonus cell reads its default."""
        text = '[skill_check: skill="Notice" dc="2" apply="Ready for Anything"]'
        assert attrs(check(FATE, text, ada(), [2, 2, 2, 2]))["effects"] == "+2"

    def test_shared_name_changes_nothing(self) -> None:
        """004: a name two rows share applies neither."""
        text = '[skill_check: skill="Fight" dc="2" apply="Twice"]'
        assert "from" not in attrs(check(FATE, text, ada(), [2, 2, 2, 2]))

    def test_only_named_rows_apply(self) -> None:
        """004: having a row never changes a roll by itself."""
        text = '[skill_check: skill="Fight" dc="2"]'
        assert attrs(check(FATE, text, ada(), [2, 2, 2, 2]))["modifier"] == "3"

    def test_several_names_sum_and_list_in_order(self) -> None:
        """The receipt lists what applied in from=, in the order written; unknown names drop out."""
        text = (
            '[skill_check: skill="Fight" dc="2" apply="Nobody; Ready for Anything; Heavy Hitter"]'
        )
        out = attrs(check(FATE, text, ada(), [2, 2, 2, 2]))
        assert (out["effects"], out["from"]) == ("+4", "Ready for Anything; Heavy Hitter")

    def test_curly_quotes_and_case(self) -> None:
        """1.218: curly quotes around apply= and any case of the name read the same."""
        text = "[skill_check: skill=“Fight” dc=“2” apply=“heavy HITTER”]"
        assert attrs(check(FATE, text, ada(), [2, 2, 2, 2]))["from"] == "Heavy Hitter"

    def test_to_saves(self) -> None:
        """004: a list with to: "saves" applies its rows to saves, never to checks."""
        save = attrs(
            check(FATE, '[skill_check: save="Composure" dc="2" apply="Calm"]', ada(), [2] * 4)
        )
        skill = attrs(
            check(FATE, '[skill_check: skill="Will" dc="2" apply="Calm"]', ada(), [2] * 4)
        )
        assert (save["effects"], "from" in skill) == ("+1", False)

    def test_check_rows_never_apply_to_saves(self) -> None:
        """004: a list without to applies to checks; an empty cell does not reach a save."""
        text = '[skill_check: save="Composure" dc="2" apply="Ready for Anything"]'
        assert "from" not in attrs(check(FATE, text, ada(), [2] * 4))

    def test_dice_cell_is_thrown_after_the_check(self) -> None:
        """004: a dice cell adds its dice, thrown after the check's own and listed last."""
        text = '[skill_check: skill="Notice" dc="2" apply="Blessing"]'
        out = attrs(check(FATE, text, ada(), [2, 2, 2, 2, 3]))
        assert (out["rolls"], out["dice"], out["modifier"], out["total"], out["effects"]) == (
            "0|0|0|0|3",
            "4d3",
            "3",
            "3",
            "+3",
        )

    def test_from_names_are_cleaned(self) -> None:
        """ENGINE-NOTES §1: from= writes each name with [ ] ; made spaces."""
        state = ada(lists={"stunts": [{"name": "Shield; Old [worn]", "skill": ""}]})
        text = '[skill_check: skill="Fight" dc="2" apply="shield old worn"]'
        assert attrs(check(FATE, text, state, [2] * 4))["from"] == "Shield Old worn"

    def test_stranger_applies_nothing(self) -> None:
        """A character without a sheet has no rows to apply."""
        text = '[skill_check: skill="Fight" dc="2" who="Nobody" apply="Heavy Hitter"]'
        assert "from" not in attrs(check(FATE, text, ada(), [2] * 4))


class TestEntries:
    def test_modifier_and_cost_paid_once(self) -> None:
        """004: a picked entry adds its check modifier and pays its cost once."""
        text = '[skill_check: skill="Will" dc="2" apply="Iron Will"]'
        result = process(text, FATE, ada(), seed=1)
        out = dict(result.receipts[0].outputs)
        assert (out["effects"], out["from"]) == ("+2", "Iron Will")
        assert live(result.snapshot, "ada") == {"pools": {"fate": 2}}

    def test_restricted_to_its_skills(self) -> None:
        """004: skills restrict an entry; on another skill it neither applies nor pays."""
        text = '[skill_check: skill="Fight" dc="2" apply="Iron Will"]'
        result = process(text, FATE, ada(), seed=1)
        assert "from" not in dict(result.receipts[0].outputs)
        assert result.snapshot == ada()

    def test_save_modifier(self) -> None:
        """004: modifiers.saves applies on a save the entry lists."""
        text = '[skill_check: save="Composure" dc="2" apply="Iron Will; Calm"]'
        out = attrs(check(FATE, text, ada(), [2] * 4))
        assert (out["effects"], out["from"]) == ("+2", "Iron Will; Calm")

    def test_checks_only_entry_skips_saves(self) -> None:
        """An entry that modifies only checks does not apply to a save."""
        text = '[skill_check: save="Composure" dc="2" apply="Lucky"]'
        assert "from" not in attrs(check(FATE, text, ada(), [2] * 4))

    def test_unaffordable_cost_changes_nothing(self) -> None:
        """004: a cost the pool cannot cover applies nothing and charges nothing."""
        state = ada()
        empty = state.model_copy(
            update={
                "ruleset_live": Snapshot.model_validate(
                    {"rulesetLive": {"ada": {"pools": {"fate": 0}}}}
                ).ruleset_live
            }
        )
        text = '[skill_check: skill="Will" dc="2" apply="Iron Will; Lucky"]'
        result = process(text, FATE, empty, seed=1)
        assert dict(result.receipts[0].outputs)["from"] == "Lucky"
        assert result.snapshot == empty

    def test_not_picked_does_nothing(self) -> None:
        """004: only an entry the character picked applies."""
        text = '[skill_check: skill="Will" dc="2" apply="Iron Will"]'
        assert "from" not in attrs(check(FATE, text, ada(picks=[]), [2] * 4))

    def test_row_a_pick_wrote_is_the_entry(self) -> None:
        """A row written by the pick of the entry named counts as that entry, not a second match."""
        row = {"name": "Iron Will", "skill": "Will", "bonus": 0, "_catalog": "extras/iron-will"}
        state = ada(lists={"stunts": [row]})
        text = '[skill_check: skill="Will" dc="2" apply="Iron Will"]'
        assert attrs(check(FATE, text, state, [2] * 4))["effects"] == "+2"


class TestPoolEffects:
    def test_specialty_nines_explode(self) -> None:
        """004: check.explode is every applied row's pool effect (a specialty whose 9s explode)."""
        text = '[skill_check: skill="Ward" dc="1" apply="Wards of Iron"]'
        out = attrs(check(EXWOD, text, bo(picks=[]), [9, 3, 2, 4, 5]))
        assert (out["rolls"], out["explode"], out["used"], out["from"]) == (
            "9|3|2|4|5",
            "9",
            "1",
            "Wards of Iron",
        )

    def test_bonus_cell_is_dice(self) -> None:
        """004: on a pool ruleset a bonus cell adds dice."""
        text = '[skill_check: skill="Listen" dc="1" apply="Second Wind"]'
        out = attrs(check(EXWOD, text, bo(picks=[]), [2] * 5))
        assert (out["pool"], out["effects"]) == ("5", "+2")

    def test_cancel_false_keeps_successes(self) -> None:
        """1.214: with cancel: false the ones no longer take successes away."""
        text = '[skill_check: skill="Ward" dc="2" apply="Steel Nerve"]'
        out = attrs(check(EXWOD, text, bo(), [8, 7, 1, 1]))
        assert (out["used"], out["result"]) == ("2", "success")

    def test_cancel_false_botch_still_reads_ones(self) -> None:
        """1.214: with cancel: false a botch still reads the low faces."""
        text = '[skill_check: skill="Ward" dc="1" apply="Steel Nerve"]'
        out = attrs(check(EXWOD, text, bo(), [1, 2, 3, 4]))
        assert out["result"] == "critical_failure"

    def test_successes_dice_and_pool_cost(self) -> None:
        """004: check successes add after cancelling, check dice join the pool, Willpower pays."""
        text = '[skill_check: skill="Ward" dc="1" apply="Iron Grip"]'
        result = process(text, EXWOD, bo(), seed=2)
        out = dict(result.receipts[0].outputs)
        assert (out["pool"], out["auto"], out["effects"]) == ("5", "1", "+1")
        assert live(result.snapshot, "bo") == {"pools": {"willpower": 1}}

    def test_track_cost_marks_within_bounds(self) -> None:
        """1.218: a {track, by} cost marks a simple track, only as far as its max."""
        text = '[skill_check: skill="Ward" dc="1" apply="Push"]'
        result = process(text, EXWOD, bo(live={"tracks": {"strain": 2}}), seed=2)
        assert dict(result.receipts[0].outputs)["effects"] == "+2"
        assert live(result.snapshot, "bo") == {"tracks": {"strain": 3}}

    def test_costs_paid_in_order_all_or_nothing(self) -> None:
        """A later name whose cost the earlier ones left unpayable applies nothing."""
        state = bo(live={"pools": {"willpower": 3}})
        text = '[skill_check: skill="Ward" dc="1" apply="Iron Grip; Iron Grip"]'
        result = process(text, EXWOD, state, seed=2)
        assert dict(result.receipts[0].outputs)["from"] == "Iron Grip"
        assert live(result.snapshot, "bo") == {"pools": {"willpower": 1}}


class TestAbilitySpecialties:
    def test_pure_ability_check(self) -> None:
        """1.213: a row naming an ability applies to that ability's own check."""
        text = '[skill_check: ability="Sinew" dc="1" apply="lifting"]'
        assert attrs(check(EXWOD, text, bo(picks=[]), [2, 2]))["from"] == "lifting"

    def test_skill_switched_by_with(self) -> None:
        """1.213: it applies to a skill that with= switches to the ability."""
        text = '[skill_check: skill="Ward" dc="1" with="Sinew" apply="lifting"]'
        assert attrs(check(EXWOD, text, bo(picks=[]), [2, 2, 2]))["from"] == "lifting"

    def test_skill_on_another_ability(self) -> None:
        """1.213: a skill rolled with another ability is not that ability's check."""
        text = '[skill_check: skill="Ward" dc="1" apply="lifting"]'
        assert "from" not in attrs(check(EXWOD, text, bo(picks=[]), [2] * 4))

    def test_needs_abilities_true(self) -> None:
        """1.213: without abilities: true a cell naming an ability matches no check."""
        data = json.loads((CHECKS / "checks" / "exwod-specialties.json").read_text())
        del data["sheet"]["lists"][0]["contextual"]["abilities"]
        text = '[skill_check: ability="Sinew" dc="1" apply="lifting"]'
        assert "from" not in attrs(check(load_ruleset(data), text, bo(picks=[]), [2, 2]))


class TestBest:
    def test_rooks_gambit_rolls_the_best_rating(self) -> None:
        """1.217/1.218 (Rook's Gambit): Finesse 1 rolls Hunt's 3 dice and marks 2 stress."""
        text = '[skill_check: skill="Finesse" difficulty="Full" apply="Rook\'s Gambit"]'
        result = process(text, ROOKS, cat(), seed=3)
        out = dict(result.receipts[0].outputs)
        assert (out["pool"], out["from"]) == ("3", "Rook’s Gambit")
        assert live(result.snapshot, "cat") == {"tracks": {"stress": 2}}

    def test_best_only_when_higher(self) -> None:
        """1.217: the asked rating stays when it is already the best."""
        text = '[skill_check: skill="Hunt" dc="4" apply="Rook\'s Gambit"]'
        assert attrs(check(ROOKS, text, cat(), [1, 2, 3]))["pool"] == "3"

    def test_stress_marks_as_far_as_the_max(self) -> None:
        """1.218: marking stops at the track's max; the row still applies."""
        text = '[skill_check: skill="Finesse" dc="4" apply="Rook\'s Gambit"]'
        result = process(text, ROOKS, cat(stress=8), seed=3)
        assert dict(result.receipts[0].outputs)["pool"] == "3"
        assert live(result.snapshot, "cat") == {"tracks": {"stress": 9}}

    def test_best_ignored_on_an_ability_check(self) -> None:
        """1.217: best changes only a skill check."""
        rules = _with_list("genesys.json", {"check": {"best": True}})
        state = snapshot(
            {
                "Rey": {
                    "abilities": {"brawn": 1},
                    "skills": {"stealth": "rank_three"},
                    "lists": {"feats": [{"name": "Knack"}]},
                }
            }
        )
        out = attrs(check(rules, '[skill_check: ability="Brawn" dc="1" apply="Knack"]', state, 1))
        assert out["from"] == "Knack"
        assert out["thrown"].count("ability") + out["thrown"].count("proficiency") == 1


def _with_list(name: str, contextual: dict[str, Any]) -> Any:
    """A checks fixture with a `feats` list (name, skill, bonus, dice) declaring `contextual`."""
    data = json.loads((CHECKS / "checks" / name).read_text())
    data["sheet"].setdefault("lists", []).append(
        {
            "id": "feats",
            "label": "Feats",
            "columns": [
                {"id": "name", "label": "Name", "type": "text", "maxLength": 80},
                {"id": "skill", "label": "Skill", "type": "text", "maxLength": 40},
                {
                    "id": "bonus",
                    "label": "Bonus",
                    "type": "number",
                    "min": -20,
                    "max": 20,
                    "default": 0,
                },
                {"id": "dice", "label": "Dice", "type": "dice"},
            ],
            "contextual": {
                "name": "name",
                "skill": "skill",
                "bonus": "bonus",
                "dice": "dice",
                **contextual,
            },
        }
    )
    return load_ruleset(data)


class TestOtherKinds:
    def test_roll_against_moves_the_target_before_the_rung(self) -> None:
        """roll-against: what applies adds to the sheet's number, before Hard divides it."""
        rules = _with_list("coc.json", {})
        card = {
            "skills": {"spot_hidden": {"tier": "base", "bonus": 50}},
            "lists": {"feats": [{"name": "Keen", "skill": "Spot Hidden", "bonus": 10}]},
        }
        text = '[skill_check: skill="Spot Hidden" difficulty="Hard" apply="Keen"]'
        out = attrs(check(rules, text, snapshot({"Ida": card}), [25]))
        assert (out["dc"], out["effects"], out["total"]) == ("30", "+10", "25")

    def test_symbol_pool_bonus_is_boost(self) -> None:
        """symbol-pool: a positive bonus joins the signed bonus as boost dice."""
        rules = _with_list("genesys.json", {})
        card = {
            "abilities": {"agility": 2},
            "skills": {"stealth": "rank_one"},
            "lists": {"feats": [{"name": "Shadow", "skill": "Stealth", "bonus": 1}]},
        }
        text = '[skill_check: skill="Stealth" dc="1" apply="Shadow"]'
        out = attrs(check(rules, text, snapshot({"Rey": card}), 1))
        assert ("boost" in out["thrown"], out["effects"]) == (True, "+1")

    def test_dice_highest_bonus_is_dice(self) -> None:
        """dice-highest: a bonus cell adds dice before the pool's clamp."""
        data = json.loads((CHECKS / "checks" / "rooks.json").read_text())
        data["sheet"]["lists"][0]["columns"].append(
            {"id": "bonus", "label": "Bonus", "type": "number", "min": 0, "max": 3, "default": 1}
        )
        data["sheet"]["lists"][0]["contextual"]["bonus"] = "bonus"
        text = '[skill_check: skill="Finesse" dc="4" apply="Rook’s Gambit"]'
        out = attrs(check(load_ruleset(data), text, cat(), [1, 2, 3, 4]))
        assert (out["pool"], out["effects"]) == ("4", "+1")


class TestImport:
    def test_entry_contextual_is_validated(self) -> None:
        """mechanics.contextual is strict and names skills, saves, pools and tracks that exist."""
        data = json.loads((CHECKS / "checks" / "fate-stunts.json").read_text())
        mechanics = data["catalogs"][0]["entries"][0]["mechanics"]
        mechanics["contextual"] = {
            "skills": ["juggling"],
            "check": {"dice": 1},
            "cost": [{"track": "nowhere", "by": 1}],
        }
        with pytest.raises(RulesetError) as raised:
            load_ruleset(data)
        paths = sorted(problem.path for problem in raised.value.problems)
        base = "catalogs.0.entries"
        assert paths == [
            f"{base}.0.mechanics.contextual.check",
            f"{base}.0.mechanics.contextual.cost.0.track",
            f"{base}.0.mechanics.contextual.skills.0",
        ]

    def test_entry_contextual_is_strict(self) -> None:
        """mechanics.contextual refuses unknown keys at import, as the rest of the catalog does."""
        data = json.loads((CHECKS / "checks" / "fate-stunts.json").read_text())
        data["catalogs"][0]["entries"][1]["mechanics"]["contextual"] = {"bogus": 1}
        with pytest.raises(RulesetError) as raised:
            load_ruleset(data)
        assert [problem.path for problem in raised.value.problems] == [
            "catalogs.0.entries.1.mechanics.contextual.bogus"
        ]

    def test_cancel_false_needs_a_cancel_rule(self) -> None:
        """1.214: an entry's cancel: false needs a resolution.cancel to switch off."""
        data = json.loads((CHECKS / "checks" / "exwod-specialties.json").read_text())
        del data["resolution"]["cancel"]
        with pytest.raises(RulesetError) as raised:
            load_ruleset(data)
        assert [p.path for p in raised.value.problems] == [
            "catalogs.0.entries.0.mechanics.contextual.check.cancel"
        ]
