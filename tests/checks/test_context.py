"""`dc` written as a rung of the ladder (SPEC §2.1; `gmtags.checks.context.read_dc`)."""

from __future__ import annotations

from gmtags import Snapshot, process
from gmtags.checks.context import read_dc
from gmtags.checks.request import CheckRequest
from tests.checks.conftest import attrs, check, ruleset, snapshot

TWO_D6 = ruleset("checks/two-d6.json")
"""000's own ladder: Easy 6 (the first rung), Hard 10."""
FATE = ruleset("checks/fate.json")
"""A ladder with no Hard (Mediocre … Great)."""
BRAM = snapshot({"Bram": {"abilities": {"grit": 3}, "skills": {"climb": "trained"}}})


def outputs_of(rules_name: str, tag: str, seed: int = 7) -> dict[str, str | None]:
    return attrs(check(ruleset(rules_name), tag, Snapshot(), seed))


class TestReadDc:
    def test_a_number_is_kept(self) -> None:
        """A `dc` that is a whole number needs no ladder."""
        asked = CheckRequest("Climb", "skill", dc=8)
        assert read_dc(asked, None) is asked

    def test_a_rung_is_read_as_difficulty(self) -> None:
        """A rung's name becomes `difficulty=` that rung, by its label as the ladder spells it."""
        asked = CheckRequest("Climb", "skill", dc_text=" hard ")
        read = read_dc(asked, TWO_D6.resolution_rules.ladder())
        assert read is not None and (read.dc, read.dc_text, read.difficulty) == (None, None, "Hard")

    def test_neither_is_refused(self) -> None:
        """A `dc` neither a number nor a rung reads as None: the check is refused."""
        assert read_dc(CheckRequest("Climb", "skill", dc_text="Hard"), None) is None
        ladder = FATE.resolution_rules.ladder()
        assert read_dc(CheckRequest("Climb", "skill", dc_text="Hard"), ladder) is None


class TestDcAsARungOnASum:
    def test_rung_targets_its_number(self) -> None:
        """dc="Hard" on a ladder Easy 6, Hard 10 reads 10, not the first rung's 6: the receipt's
        `dc` is the number read against, and it names the rung."""
        out = attrs(check(TWO_D6, '[skill_check: skill="Climb" dc="Hard"]', BRAM, [2, 3]))
        assert (out["dc"], out["difficulty"], out["total"]) == ("10", "Hard", "9")
        assert out["result"] == "failure"

    def test_same_as_difficulty(self) -> None:
        """A rung in `dc` gives exactly what `difficulty=` gives with the same dice."""
        as_dc = check(TWO_D6, '[skill_check: skill="Climb" dc="hard"]', BRAM, [5, 3])
        as_rung = check(TWO_D6, '[skill_check: skill="Climb" difficulty="Hard"]', BRAM, [5, 3])
        assert as_dc.outputs == as_rung.outputs

    def test_a_number_still_works(self) -> None:
        """A whole-number `dc` is read as before."""
        out = attrs(check(TWO_D6, '[skill_check: skill="Climb" dc="8"]', BRAM, [2, 3]))
        assert (out["dc"], out["result"]) == ("8", "success")
        assert "difficulty" not in out

    def test_no_such_rung_is_refused(self) -> None:
        """SPEC §2.1: on a ladder with no Hard, dc="Hard" is refused `unknown-dc`, echoing the
        ask and throwing nothing."""
        receipt = check(FATE, '[skill_check: skill="Athletics" dc="Hard"]', Snapshot(), [])
        assert receipt.render() == (
            '[skill_check: skill="Athletics" dc="Hard" result="refused" reason="unknown-dc"]'
        )

    def test_no_ladder_is_refused(self) -> None:
        """Without a ladder no word is a rung."""
        receipt = check(ruleset("checks/d20-shift.json"), '[skill_check: skill="X" dc="Hard"]')
        assert receipt.reason == "unknown-dc"

    def test_text_and_blank_are_refused(self) -> None:
        """A `dc` that is blank, a decimal or words is never guessed at."""
        for dc in ("", "  ", "1.5", "DC 10", "Hard (10)", "ten"):
            receipt = check(TWO_D6, f'[skill_check: skill="Climb" dc="{dc}"]', BRAM, [])
            assert (receipt.result, receipt.reason) == ("refused", "unknown-dc"), dc

    def test_rung_in_dc_wins_over_difficulty(self) -> None:
        """A rung named in `dc` stands for `dc=`, which wins over `difficulty=` beside it."""
        text = '[skill_check: skill="Climb" dc="Hard" difficulty="Easy"]'
        out = attrs(check(TWO_D6, text, BRAM, [2, 3]))
        assert (out["dc"], out["difficulty"]) == ("10", "Hard")

    def test_a_refusal_pays_nothing(self) -> None:
        """A refused check changes nothing, spends included."""
        rules = ruleset("reference/gravewatch.json")
        state = snapshot({"Bram": {}}, rulesetLive={"bram": {"pools": {"resolve": 3}}})
        text = '[skill_check: skill="Ward" dc="Tough" spend="resolve:1"]'
        result = process(text, rules, state, seed=3)
        assert result.receipts[0].reason == "unknown-dc" and result.snapshot == state

    def test_the_ladder_of_the_active_layer(self) -> None:
        """An active layer's ladder is the ladder the check reads (SPEC §4, `rulesetLayers`)."""
        rules = ruleset("layers.json")
        base = process('[skill_check: skill="Climb" dc="Risky"]', rules, Snapshot(), seed=2)
        state = Snapshot.model_validate({"rulesetLayers": ["long_day"]})
        layered = process('[skill_check: skill="Climb" dc="Risky"]', rules, state, seed=2)
        assert (base.receipts[0].attr("dc"), layered.receipts[0].attr("dc")) == ("8", "10")


class TestDcAsARungInEveryKind:
    def test_dice_pool(self) -> None:
        """dice-pool: the rung's successes and its target, as `difficulty=` reads them."""
        as_dc = outputs_of("checks/exwod.json", '[skill_check: skill="Ward" dc="Grim"]')
        as_rung = outputs_of("checks/exwod.json", '[skill_check: skill="Ward" difficulty="Grim"]')
        assert as_dc == as_rung
        assert (as_dc["dc"], as_dc["threshold"], as_dc["difficulty"]) == ("3", "8", "Grim")

    def test_dice_highest(self) -> None:
        """dice-highest: the rung's dc is what the kept dice must reach."""
        as_dc = outputs_of("checks/trophy.json", '[skill_check: skill="X" dc="Full"]')
        as_rung = outputs_of("checks/trophy.json", '[skill_check: skill="X" difficulty="Full"]')
        assert as_dc == as_rung and as_dc["dc"] == "6"

    def test_roll_against(self) -> None:
        """roll-against (000: a `dc=` moves the target): a rung in `dc` divides and moves the
        target as its `difficulty=` does; a number still moves it."""
        card = snapshot({"Ada": {"skills": {"climb": {"tier": "base", "bonus": 60}}}})
        coc = ruleset("checks/coc.json")
        as_dc = attrs(check(coc, '[skill_check: skill="Climb" dc="Hard"]', card, 4))
        as_rung = attrs(check(coc, '[skill_check: skill="Climb" difficulty="Hard"]', card, 4))
        plain = attrs(check(coc, '[skill_check: skill="Climb"]', card, 4))
        moved = attrs(check(coc, '[skill_check: skill="Climb" dc="-10"]', card, 4))
        assert as_dc == as_rung and as_dc["dc"] == str(int(plain["dc"] or "") // 2)
        assert moved["dc"] == str(int(plain["dc"] or "") - 10)

    def test_symbol_pool(self) -> None:
        """symbol-pool: the rung's opposing dice."""
        as_dc = outputs_of("checks/genesys.json", '[skill_check: skill="X" dc="Hard"]')
        as_rung = outputs_of("checks/genesys.json", '[skill_check: skill="X" difficulty="Hard"]')
        assert as_dc == as_rung and as_dc["difficulty"] == "Hard"
