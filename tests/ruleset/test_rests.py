"""Rests and their restore steps (002, "Descansos" and "Un descanso puede curar heridas.")."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest

from gmtags import RulesetError, load_ruleset
from gmtags.ruleset.rests import RestoreStep
from tests.conftest import FIXTURES, REFERENCE_RULESETS

BASE: dict[str, Any] = json.loads((FIXTURES / "rulesets" / "sheet-base.json").read_text())

HARM: dict[str, Any] = {
    "id": "harm",
    "label": "Harm",
    "min": 0,
    "max": 2,
    "levels": [{"label": "Winded", "penalty": 0}, {"label": "Down", "penalty": -3}],
    "kinds": [
        {"id": "knock", "label": "K", "severity": 0},
        {"id": "tear", "label": "T", "severity": 1},
    ],
}


def with_rests(*rests: dict[str, Any]) -> dict[str, Any]:
    data = copy.deepcopy(BASE)
    live = data["sheet"]["live"]
    live["tracks"].append(copy.deepcopy(HARM))
    live["pools"] += [
        {"id": "slot_1", "label": "1st-level slots", "max": {"const": 2}, "group": "slots"},
        {"id": "slot_2", "label": "2nd-level slots", "max": {"const": 1}, "group": "slots"},
    ]
    live["states"] = [
        {"id": "light", "label": "Light", "values": ["lit", "shuttered", "out"], "default": "lit"}
    ]
    live["text"] = [{"id": "concentration", "label": "Concentrating on", "maxLength": 80}]
    live["conditions"] = [{"id": "rattled", "label": "Rattled"}]
    data["sheet"]["lists"] = [
        {
            "id": "tricks",
            "label": "Tricks",
            "columns": [
                {"id": "name", "label": "Name", "type": "text", "maxLength": 60},
                {"id": "uses", "label": "Uses", "type": "number", "min": 0, "max": 9, "default": 1},
                {
                    "id": "recharge",
                    "label": "Comes back",
                    "type": "enum",
                    "values": ["camp", "scene"],
                },
            ],
            "pools": {"nameColumn": "name", "maxColumn": "uses", "rechargeColumn": "recharge"},
        }
    ]
    data["rests"] = list(rests)
    return data


def rest(*steps: dict[str, Any], **clear: Any) -> dict[str, Any]:
    return {"id": "camp", "label": "Make camp", "restore": list(steps), "clear": clear}


def paths(data: dict[str, Any]) -> list[str]:
    with pytest.raises(RulesetError) as caught:
        load_ruleset(data)
    return sorted(problem.path for problem in caught.value.problems)


class TestRests:
    def test_gravewatch_rests(self) -> None:
        """Gravewatch: the vigil clears Harm and relights the lantern; the breather heals knocks."""
        ruleset = load_ruleset(REFERENCE_RULESETS / "gravewatch.json")
        vigil, breather = ruleset.rests
        assert [step.target for step in vigil.restore] == [
            ("pool", "resolve"),
            ("track", "harm"),
            ("state", "light"),
        ]
        assert vigil.clear.conditions == ["rattled"]
        step = breather.restore[0]
        assert step.kind == "knock" and step.to == "min"

    def test_5e_long_rest_fraction(self) -> None:
        """The 5e long rest gives back half the hit dice, rounded down, at least one."""
        ruleset = load_ruleset(REFERENCE_RULESETS / "ruleset-5e-2014.example.json")
        hit_dice = ruleset.rests[1].restore[3]
        assert hit_dice.by is not None and hit_dice.by.fraction_of_max == 0.5
        assert hit_dice.by.rounding == "down" and hit_dice.by.min == 1

    def test_every_target_loads(self) -> None:
        """A step names a pool, a pool group, a list's pools, a track or a state."""
        data = with_rests(
            rest(
                {"pool": "grit", "to": "max"},
                {"poolGroup": "slots", "by": {"fractionOfMax": 0.5, "min": 1}, "shared": True},
                {"listPools": "tricks", "recharge": ["camp"], "to": "max"},
                {"track": "harm", "kind": "knock", "by": {"const": -2}},
                {"track": "heat", "to": 0},
                {"state": "light", "to": "default"},
                {"state": "light", "to": "shuttered"},
                text=["concentration"],
                conditions="all",
            )
        )
        ruleset = load_ruleset(data)
        assert len(ruleset.rests[0].restore) == 7 and ruleset.rests[0].clear.conditions == "all"

    def test_to_min_means_zero_on_a_pool(self) -> None:
        """SPEC §9: a pool step `to: "min"` is accepted and means 0."""
        step = RestoreStep.model_validate({"pool": "grit", "to": "min"})
        assert step.to == "min" and step.target == ("pool", "grit")

    @pytest.mark.parametrize(
        ("step", "path"),
        [
            ({"to": "max"}, "rests.0.restore.0"),
            ({"pool": "grit", "state": "light", "to": "max"}, "rests.0.restore.0"),
            ({"pool": "grit"}, "rests.0.restore.0"),
            ({"pool": "grit", "to": "max", "by": {"const": 1}}, "rests.0.restore.0"),
            ({"pool": "grit", "to": "full"}, "rests.0.restore.0"),
            ({"pool": "grit", "to": True}, "rests.0.restore.0.to"),
            ({"pool": "grit", "kind": "knock", "to": "max"}, "rests.0.restore.0"),
            ({"pool": "grit", "recharge": ["camp"], "to": "max"}, "rests.0.restore.0"),
            ({"pool": "grit", "shared": True, "by": {"fractionOfMax": 0.5}}, "rests.0.restore.0"),
            ({"state": "light", "by": {"const": 1}}, "rests.0.restore.0"),
            ({"state": "light", "to": 1}, "rests.0.restore.0"),
            ({"pool": "grit", "by": {"const": 1, "fractionOfMax": 0.5}}, "rests.0.restore.0.by"),
            ({"pool": "grit", "by": {"const": 1, "round": "up"}}, "rests.0.restore.0.by"),
            ({"pool": "grit", "by": {"fractionOfMax": 0}}, "rests.0.restore.0.by"),
            ({"pool": "grit", "by": {"const": 1.5}}, "rests.0.restore.0.by.const"),
        ],
    )
    def test_step_shape(self, step: dict[str, Any], path: str) -> None:
        """One target, exactly one of to/by, recharge/kind/shared only where they belong."""
        assert paths(with_rests(rest(step))) == [path]

    def test_positive_by_on_a_wound_track_is_accepted(self) -> None:
        """002: a step that would add marks is skipped in play, not refused at import."""
        data = with_rests(rest({"track": "harm", "by": {"const": 2}}))
        assert load_ruleset(data).rests[0].restore[0].by is not None

    def test_targets_must_exist(self) -> None:
        """Every target, recharge value, kind, state value and cleared id must be declared."""
        data = with_rests(
            rest(
                {"pool": "luck", "to": "max"},
                {"listPools": "tricks", "recharge": ["dawn"], "to": "max"},
                {"track": "harm", "kind": "burn", "to": "min"},
                {"state": "light", "to": "dim"},
                text=["nope"],
                conditions=["shaken"],
            )
        )
        assert paths(data) == [
            "rests.0.clear.conditions.0",
            "rests.0.clear.text.0",
            "rests.0.restore.0.pool",
            "rests.0.restore.1.recharge.0",
            "rests.0.restore.2.kind",
            "rests.0.restore.3.to",
        ]

    def test_at_most_twelve_rests_of_forty_steps(self) -> None:
        """SCHEMA-NOTES §7: at most 12 rests, each at most 40 steps, ids unique."""
        step = {"pool": "grit", "to": "max"}
        many = [{"id": f"r{n}", "label": f"R{n}"} for n in range(13)]
        assert paths(with_rests(*many)) == ["rests"]
        assert paths(with_rests(rest(*[step] * 41))) == ["rests.0.restore"]
        assert paths(with_rests(rest(step), rest(step))) == ["rests.1.id"]
