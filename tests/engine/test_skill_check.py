"""gmtags/engine/skill_check.py: a `[skill_check:]` from the ask to the receipt."""

from __future__ import annotations

import json
from typing import Any

from gmtags import Snapshot, load_ruleset, process
from gmtags.checks.kinds import KINDS
from tests.conftest import FIXTURES

GRAVEWATCH = FIXTURES / "rulesets" / "reference" / "gravewatch.json"
TROPHY_LIGHT = FIXTURES / "rulesets" / "checks" / "trophy-light.json"


def gravewatch_empty_pools() -> Any:
    """Gravewatch (dice-pool) with `pool.min` 0: an empty pool fails without rolling (000)."""
    data = json.loads(GRAVEWATCH.read_text())
    data["resolution"]["pool"]["min"] = 0
    for ability in data["sheet"]["abilities"]:
        ability["min"] = 0
    return load_ruleset(data)


def bram(nerve: int, resolve: int | None = None) -> Snapshot:
    scores = {"sinew": nerve, "nerve": nerve, "warmth": nerve}
    card = {"abilities": scores, "skills": {"ward": "rating_0"}}
    live = {} if resolve is None else {"bram": {"pools": {"resolve": resolve}}}
    return Snapshot.model_validate({"gameCharacterCards": {"Bram": card}, "rulesetLive": live})


def outputs(result: Any) -> dict[str, str | None]:
    return dict(result.receipts[0].outputs)


class TestEmptyPool:
    def test_a_pool_that_cannot_roll_buys_and_pays_nothing(self) -> None:
        """000: "Un min de 0 permite que una reserva vacía falle sin tirar"; like a refused
        check, it buys and pays nothing, so the pool keeps its points and the receipt names
        no spend."""
        text = '[skill_check: skill="Ward" dc="1" spend="resolve:1" who="Bram"]'
        result = process(text, gravewatch_empty_pools(), bram(nerve=0, resolve=3), seed=4)
        out = outputs(result)
        assert (out["result"], out["rolls"], out["pool"]) == ("failure", "", "0")
        assert "spend" not in out and "auto" not in out
        assert result.snapshot.ruleset_live["bram"].pools["resolve"] == 3

    def test_a_pool_that_rolls_still_pays(self) -> None:
        """With dice to throw, the same spend is paid and its success bought."""
        text = '[skill_check: skill="Ward" dc="1" spend="resolve:1" who="Bram"]'
        result = process(text, gravewatch_empty_pools(), bram(nerve=2, resolve=3), seed=4)
        assert (outputs(result)["spend"], outputs(result)["auto"]) == ("resolve:1", "1")
        assert result.snapshot.ruleset_live["bram"].pools["resolve"] == 2

    def test_zero_dice_fail_rolls_nothing(self) -> None:
        """dice-highest `zeroDice: "fail"`: no die, a failure, nothing marked as rolled."""
        ruleset = load_ruleset(TROPHY_LIGHT)
        result = process('[skill_check: ability="Skill" dc="4"]', ruleset, Snapshot(), seed=1)
        assert (outputs(result)["rolls"], outputs(result)["result"]) == ("", "failure")


class TestKinds:
    def test_every_kind_is_resolved_through_its_registry_entry(self) -> None:
        """A ruleset of each kind rolls through `KINDS`: the receipt says its kind's resolution."""
        for name, kind in KINDS.items():
            assert kind.writes in {"sum", "successes", "against"}, name
