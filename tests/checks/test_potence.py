"""The seed's Potence charm (000, "Un amuleto que cambia una tirada"), end to end."""

from __future__ import annotations

from gmtags import Snapshot
from tests.checks.conftest import attrs, check, ruleset

KINDRED = ruleset("checks/kindred.json")


def vampire(picks: list[str], blood: int | None = None) -> Snapshot:
    live = {} if blood is None else {"rulesetLive": {"Mara": {"pools": {"blood": blood}}}}
    cards = {"Mara": {"abilities": {"strength": 2}, "skills": {"brawl": "dots_1"}, "picks": picks}}
    return Snapshot.model_validate({"gameCharacterCards": cards, **live})


class TestPotence:
    TAG = '[skill_check: skill="Brawl" dc="3" use="Potence" spend="blood:3"]'

    def test_scales_with_the_blood_paid(self) -> None:
        """spend="blood:3" buys Potence three times (perCostStep): three unrolled successes."""
        receipt = check(KINDRED, self.TAG, vampire(["disciplines/potence"]), [2, 3, 4])
        out = attrs(receipt)
        assert (out["use"], out["spend"], out["auto"]) == ("Potence", "blood:3", "3")
        assert (out["total"], out["result"]) == ("3", "success")

    def test_rerolls_ones_once(self) -> None:
        """Its reroll throws each 1 again once and keeps the new face."""
        out = attrs(check(KINDRED, self.TAG, vampire(["disciplines/potence"]), [1, 7, 2, 9]))
        assert out["rerolled"] == "1" and out["rolls"] == "1|7|2|9"
        assert out["total"] == "5"

    def test_blood_is_paid(self) -> None:
        """The check pays the blood it used: 10 → 7."""
        from gmtags import process

        result = process(self.TAG, KINDRED, vampire(["disciplines/potence"]), seed=1)
        assert result.snapshot.ruleset_live["mara"].pools["blood"] == 7

    def test_all_or_nothing(self) -> None:
        """With only 2 blood, nothing is bought and nothing is paid."""
        from gmtags import process

        start = vampire(["disciplines/potence"], blood=2)
        result = process(self.TAG, KINDRED, start, seed=1)
        out = dict(result.receipts[0].outputs)
        assert "use" not in out and "auto" not in out and result.snapshot == start

    def test_not_picked_does_nothing(self) -> None:
        """A charm the character did not pick does nothing (000: never applied on trust)."""
        out = attrs(check(KINDRED, self.TAG, vampire([]), [8, 8, 8]))
        assert "use" not in out and "spend" not in out
