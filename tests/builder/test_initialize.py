"""The `initialize` step (`gmtags.builder.kinds.initialize`; 004 "Valores iniciales fijados una
vez", BUILDER F10): the CoC sample's starting Sanity from POW, Set and Set again, and the 5e
sample's hit point maximum and experience."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest

from gmtags import Ruleset, load_ruleset
from gmtags.builder.build import BuildResult, build_character
from gmtags.sheet.values import SheetValues
from gmtags.state.snapshot import CharacterCard, LiveEntry
from tests.builder.samples import BUILDERS, builder, five_e, points

COC: dict[str, Any] = json.loads((BUILDERS / "coc-builder.json").read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def coc() -> Ruleset:
    return load_ruleset(COC)


def answers(pow_faces: list[int], **steps: dict[str, Any]) -> dict[str, Any]:
    """CoC answers with POW rolled on `pow_faces` (×5)."""
    rolls = {"pow": {"faces": pow_faces}}
    return {"v": 1, "seed": 11, "steps": {"characteristics": {"rolls": rolls}, **steps}}


POW_65 = [4, 3, 6]
POW_80 = [6, 5, 5]


def unspent_points() -> dict[str, Any]:
    """The point-based sample with every step paying from a pool hidden (`when` reads 0)."""
    data = points()
    for step in builder(data)["steps"]:
        if "pool" in step:
            step["when"] = {"const": 0}
    return data


def entry(result: BuildResult, step_id: str) -> dict[str, Any]:
    return next(s for s in result.steps if s["id"] == step_id)


def san(result: BuildResult) -> Any:
    return result.card.get("fields", {}).get("san_start")


class TestInitialize:
    def test_f10_nothing_is_written_until_set(self, coc: Ruleset) -> None:
        """004: the badge waits until the player sets the values; the step shows each field
        as it is and the value it will have."""
        result = build_character(coc, answers(POW_65))
        assert san(result) is None
        assert entry(result, "start")["pending"] == 1
        assert entry(result, "start")["writes"] == [
            {"field": "san_start", "now": None, "value": 65}
        ]

    def test_f10_set_writes_san_start_from_pow(self, coc: Ruleset) -> None:
        """004's example: `san_start ← pow`, written at Set and kept in the builder record."""
        result = build_character(coc, answers(POW_65, start={"set": 1}))
        assert san(result) == 65
        assert entry(result, "start")["pending"] == 0
        assert result.card["builder"]["initialize"] == {
            "start": {"set": 1, "values": {"san_start": 65}}
        }

    def test_f10_a_later_pow_change_never_rewrites_it(self, coc: Ruleset) -> None:
        """004: reopening or changing POW later never writes the value again; the step shows
        what Set again would replace."""
        first = build_character(coc, answers(POW_65, start={"set": 1}))
        later = build_character(coc, answers(POW_80, start={"set": 1}), first.card)
        assert later.card["abilities"]["pow"] == 80
        assert san(later) == 65
        assert entry(later, "start")["reasons"] == ["Set again would replace san_start 65 with 80"]
        assert entry(later, "start")["writes"] == [
            {"field": "san_start", "now": None, "value": 80, "set": 65}
        ]

    def test_f10_only_set_again_rewrites_it(self, coc: Ruleset) -> None:
        """004: "solo lo hace el Set again (Volver a fijar) del jugador" (`set` 2)."""
        first = build_character(coc, answers(POW_65, start={"set": 1}))
        changed = build_character(coc, answers(POW_80, start={"set": 1}), first.card)
        again = build_character(coc, answers(POW_80, start={"set": 2}), changed.card)
        assert san(again) == 80
        assert entry(again, "start")["reasons"] == []
        assert again.card["builder"]["initialize"]["start"] == {
            "set": 2,
            "values": {"san_start": 80},
        }
        reopened = build_character(coc, answers(POW_65, start={"set": 2}), again.card)
        assert san(reopened) == 80

    def test_a_hand_edit_after_set_is_the_players(self, coc: Ruleset) -> None:
        """SPEC §10: a value the builder wrote and the player then changed by hand is kept
        while the builder's own value for it stands."""
        first = build_character(coc, answers(POW_65, start={"set": 1}))
        card = copy.deepcopy(first.card)
        card["fields"]["san_start"] = 58
        kept = build_character(coc, answers(POW_80, start={"set": 1}), card)
        assert san(kept) == 58 and kept.dropped == []
        again = build_character(coc, answers(POW_80, start={"set": 2}), card)
        assert san(again) == 80
        assert again.dropped == [{"path": "fields.san_start", "value": 58}]

    def test_unsetting_writes_nothing_and_drops_the_record(self, coc: Ruleset) -> None:
        first = build_character(coc, answers(POW_65, start={"set": 1}))
        unset = build_character(coc, answers(POW_65, start={"set": 0}), first.card)
        assert san(unset) is None
        assert "initialize" not in unset.card["builder"]
        assert entry(unset, "start")["pending"] == 1

    def test_a_record_of_another_shape_is_not_read(self, coc: Ruleset) -> None:
        card = {"builder": {"initialize": {"start": {"set": 1, "values": {"san_start": "x"}}}}}
        result = build_character(coc, answers(POW_65, start={"set": 1}), card)
        assert san(result) == 65

    def test_values_are_read_once_everything_else_is_done(self) -> None:
        """A Ref is read on the finished sheet, even the value of a roll a later step makes."""
        data = copy.deepcopy(COC)
        steps = data["sheet"]["builder"]["steps"]
        start = next(s for s in steps if s["id"] == "start")
        steps.remove(start)
        steps.insert(0, {**start, "writes": [{"field": "san_start", "value": {"field": "luck"}}]})
        ans = answers(POW_65, start={"set": 1}, luck={"rolls": {"luck": {"faces": [1, 2, 3]}}})
        assert san(build_character(load_ruleset(data), ans)) == 30

    def test_f11_reads_before_reads_the_sheet_before_that_step(self) -> None:
        """`reads.before` (1.160, G4): POW is rolled before the luck step, so it reads the same
        (`tests/builder/test_profiles.py` reads a value a later step changes)."""
        data = copy.deepcopy(COC)
        next(s for s in data["sheet"]["builder"]["steps"] if s["id"] == "start")["reads"] = {
            "before": "luck"
        }
        result = build_character(load_ruleset(data), answers(POW_65, start={"set": 1}))
        assert entry(result, "start")["reasons"] == []
        assert san(result) == 65

    def test_never_written_for_a_described_character(self, coc: Ruleset) -> None:
        """004: "Nunca se escribe en un personaje que se describe tal como ya es"."""
        ans = {**answers(POW_65, start={"set": 1}), "described": True}
        assert san(build_character(coc, ans)) is None

    def test_a_fixed_value_and_a_derived_one(self) -> None:
        """The 5e sample: `hp_max ← hp_first_level` (hit die + CON modifier), `xp ← 0`."""
        ans = {
            "v": 1,
            "seed": 1,
            "steps": {
                "class": {"picks": ["fighter"]},
                "scores": {"method": "manual", "scores": {"con": 14}},
                "start": {"set": 1},
            },
        }
        result = build_character(load_ruleset(five_e()), ans)
        assert (result.card["fields"]["hp_max"], result.card["fields"]["xp"]) == (12, 0)

    def test_remaining_of_a_pool_no_step_pays_from(self) -> None:
        """004's `{ "field": "xp", "remaining": "creation" }`: remaining is "lo que una
        reserva del creador ha dejado sin gastar", so a pool no shown step pays from leaves
        its whole budget, and Set writes it."""
        result = build_character(
            load_ruleset(unspent_points()), {"v": 1, "steps": {"start": {"set": 1}}}
        )
        assert result.pools["bonus"] == {"budget": 10, "spent": 0, "credit": 0, "remaining": 10}
        assert result.card["fields"]["xp"] == 10
        assert entry(result, "start")["writes"][1] == {
            "field": "xp",
            "now": None,
            "value": 10,
            "set": 10,
        }

    def test_remaining_is_what_the_pool_left(self) -> None:
        """The sample's `xp ← remaining bonus` after a merit of 3 bonus points is paid."""
        ans = {
            "v": 1,
            "steps": {"traits": {"rows": [{"name": "Quick", "cost": 3}]}, "start": {"set": 1}},
        }
        result = build_character(load_ruleset(points()), ans)
        assert result.pools["bonus"]["remaining"] == 7
        assert result.card["fields"]["xp"] == 7
        assert result.card["fields"]["luck_start"] == result.card["fields"]["luck"]

    def test_remaining_of_a_pool_not_configured_is_not_faked(self) -> None:
        """004: "Una fuente que falta está 'sin configurar'": such a pool has nothing left to
        read, so the step says so and writes nothing for it."""
        data = unspent_points()
        builder(data)["pools"][2]["budget"] = {"const": 0.5}
        result = build_character(load_ruleset(data), {"v": 1, "steps": {"start": {"set": 1}}})
        assert "xp" not in result.card["fields"]
        assert any(
            reason.startswith("pool 'bonus' is not configured")
            for reason in entry(result, "start")["reasons"]
        )


class TestInPlay:
    def test_f12_the_live_pool_starts_from_the_value_set(self, coc: Ruleset) -> None:
        """004: "SAN empieza en el POW a partir del que se fijó y se queda donde la deje el
        juego": the live pool's `startFrom` reads san_start; a stored live value wins."""
        first = build_character(coc, answers(POW_65, start={"set": 1}))
        later = build_character(coc, answers(POW_80, start={"set": 1}), first.card)
        card = CharacterCard.model_validate(later.card)
        assert SheetValues(coc, card, None).pool_value("sanity") == 65
        played = LiveEntry(pools={"sanity": 50})
        assert SheetValues(coc, card, played).pool_value("sanity") == 50
