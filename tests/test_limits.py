"""gmtags/limits.py: every input bound lives in `Limits`, and the caller's limits are honoured."""

from __future__ import annotations

from dataclasses import fields

from gmtags import Limits, Snapshot, load_ruleset, process
from gmtags.checks.contextual import read_dice, read_names
from gmtags.limits import DEFAULT_LIMITS
from tests.conftest import FIXTURES

DEMO = load_ruleset(FIXTURES.parent / "gmtags" / "demo" / "ruleset.json")
TWO_D6 = load_ruleset(FIXTURES / "rulesets" / "checks" / "two-d6.json")
COC = load_ruleset(FIXTURES / "rulesets" / "checks" / "coc.json")
BRAM = Snapshot.model_validate(
    {"gameCharacterCards": {"Bram": {"abilities": {"nerve": 3, "hands": 1}}}}
)


def out(text: str, ruleset: object, limits: Limits, snapshot: Snapshot = BRAM) -> dict[str, str]:
    result = process(text, ruleset, snapshot, seed=1, limits=limits)  # type: ignore[arg-type]
    return {k: v or "" for k, v in result.receipts[0].outputs}


class TestLimits:
    def test_every_bound_has_a_default(self) -> None:
        """The bounds the engine enforces are all fields of `Limits`, each with its default."""
        names = {field.name for field in fields(Limits)}
        assert {"now_length", "max_amount", "apply_names", "effect_dice", "scaling_steps"} <= names
        assert {"dc_range", "shift_range", "commands_per_response", "tag_length"} <= names
        assert DEFAULT_LIMITS.max_amount == 100_000 and DEFAULT_LIMITS.dc_range == (-100, 1000)


class TestHonoured:
    def test_max_amount(self) -> None:
        """ENGINE-NOTES §6 under a tighter bound: an amount past `max_amount` is a bad amount."""
        text = '[sheet: who="Bram" op="spend" pool="Lamp oil" amount="3"]'
        assert out(text, DEMO, Limits(max_amount=2))["reason"] == "bad-amount"
        assert out(text, DEMO, Limits(max_amount=3))["result"] == "ok"

    def test_now_length(self) -> None:
        """A receipt's `now=` is cut to `now_length`."""
        text = '[sheet: who="Bram" op="spend" pool="Lamp oil" amount="1"]'
        assert out(text, DEMO, DEFAULT_LIMITS)["now"] == "3/4"
        assert len(out(text, DEMO, Limits(now_length=2))["now"]) <= 2

    def test_dc_range(self) -> None:
        """000, dice-sum: a written dc clamps into `dc_range`."""
        text = '[skill_check: skill="Climb" dc="500"]'
        assert out(text, TWO_D6, DEFAULT_LIMITS)["dc"] == "500"
        assert out(text, TWO_D6, Limits(dc_range=(0, 30)))["dc"] == "30"

    def test_shift_range(self) -> None:
        """000, roll-against: a written dc moves the target at most `shift_range`."""
        text = '[skill_check: skill="Spot Hidden" dc="90"]'
        wide = int(out(text, COC, DEFAULT_LIMITS)["dc"])
        narrow = int(out(text, COC, Limits(shift_range=(-5, 5)))["dc"])
        assert wide - narrow == 85

    def test_apply_names_and_effect_dice(self) -> None:
        """004: `apply=` reads at most `apply_names` names; a dice cell past `effect_dice`
        dice is no cell."""
        assert read_names("a; b; c", Limits(apply_names=2)) == ["a", "b"]
        assert read_dice("3d6", Limits(effect_dice=2)) is None
        assert read_dice("2d6", Limits(effect_dice=2)) == (2, 6, 0)

    def test_scaling_steps(self) -> None:
        """ENGINE-NOTES §5: a scaling charm is bought at most `scaling_steps` times; asking for
        more buys that many (the seed's Potence: blood:3 is three steps)."""
        kindred = load_ruleset(FIXTURES / "rulesets" / "checks" / "kindred.json")
        cards = {
            "Mara": {
                "abilities": {"strength": 2},
                "skills": {"brawl": "dots_1"},
                "picks": ["disciplines/potence"],
            }
        }
        mara = Snapshot.model_validate({"gameCharacterCards": cards})
        text = '[skill_check: skill="Brawl" dc="3" use="Potence" spend="blood:3"]'
        assert out(text, kindred, DEFAULT_LIMITS, mara)["auto"] == "3"
        assert out(text, kindred, Limits(scaling_steps=2), mara)["auto"] == "2"
