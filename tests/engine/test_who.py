"""`who=` on checks and sheet commands, end to end (SPEC §4, revised; issue 28)."""

from __future__ import annotations

from typing import Any

from gmtags import process
from tests.checks.conftest import attrs, check, ruleset, snapshot

TWO_D6 = ruleset("checks/two-d6.json")
TORCHES = ruleset("sheets/five-torches.json")
BRAM = {"abilities": {"grit": 3}, "skills": {"climb": "trained"}}
"""Climb on two-d6: Grit 3 + trained 1 = +4."""


def cards(**named: Any) -> dict[str, Any]:
    return {name.replace("_", " "): card for name, card in named.items()}


class TestCheckWho:
    def test_first_name_is_the_card_it_starts(self) -> None:
        """`who="Bram"` rolls as "Bram Ironfoot" (+4, not a stranger's +0); the receipt
        names the card's stored name."""
        state = snapshot(cards(Juno={}, Bram_Ironfoot=BRAM))
        out = attrs(check(TWO_D6, '[skill_check: skill="Climb" dc="8" who="Bram"]', state, [3, 3]))
        assert (out["modifier"], out["total"], out["who"]) == ("4", "10", "Bram Ironfoot")
        assert "sheet" not in out

    def test_a_part_of_a_word_is_no_start(self) -> None:
        """Word by word: "Bra" is a stranger, not "Bram Ironfoot"."""
        state = snapshot(cards(Bram_Ironfoot=BRAM))
        out = attrs(check(TWO_D6, '[skill_check: skill="Climb" dc="8" who="Bra"]', state, [3, 3]))
        assert (out["modifier"], out["who"], out["sheet"]) == ("0", "Bra", "none")

    def test_two_cards_starting_with_it_refuse(self) -> None:
        """SPEC §4: two cards whose names start with `who` refuse the check, `ambiguous-who`,
        echoing the ask."""
        state = snapshot(cards(Bram_Ironfoot=BRAM, Bram_Stoker={}))
        receipt = check(TWO_D6, '[skill_check: skill="Climb" dc="8" who="Bram"]', state, [3, 3])
        assert receipt.render() == (
            '[skill_check: skill="Climb" dc="8" who="Bram" result="refused" reason="ambiguous-who"]'
        )

    def test_two_cards_sharing_the_name_refuse(self) -> None:
        """SPEC §2.1 (never guess) over ENGINE-NOTES §4 (rolled unmodified): two cards sharing
        the name, neither the player's, refuse the check, `ambiguous-character`."""
        state = snapshot(cards(Ada={}, Tom=BRAM, TOM={}))
        receipt = check(TWO_D6, '[skill_check: skill="Climb" dc="8" who="tom"]', state, [3, 3])
        assert (receipt.result, receipt.reason) == ("refused", "ambiguous-character")

    def test_the_players_shared_name_rolls(self) -> None:
        """A name the player's card shares is the player's, as before."""
        state = snapshot(cards(Tom=BRAM, TOM={}))
        out = attrs(check(TWO_D6, '[skill_check: skill="Climb" dc="8" who="tom"]', state, [3, 3]))
        assert (out["modifier"], out["who"]) == ("4", "Tom")


class TestCharacterWithoutASheet:
    def test_stranger_says_sheet_none(self) -> None:
        """SPEC §4: a name matching no card rolls with nothing from a sheet and its receipt says
        `sheet="none"`, among the extras, before `outcome`."""
        state = snapshot(cards(Bram=BRAM))
        receipt = check(TWO_D6, '[skill_check: skill="Climb" dc="8" who="Old Tom"]', state, [3, 3])
        assert receipt.render() == (
            '[skill_check: skill="Climb" dc="8" rolls="3|3" used="6" modifier="0" total="6" '
            'result="failure" mode="normal" resolution="sum" dice="2d6" who="Old Tom" '
            'sheet="none"]'
        )

    def test_no_untrained_rule(self) -> None:
        """A stranger has no training, so an untrained `refuse` skill still rolls for them."""
        state = snapshot(cards(Bram=BRAM))
        refused = check(TWO_D6, '[skill_check: skill="Old Lore" dc="8"]', state, [3, 3])
        assert refused.reason == "untrained"
        out = attrs(
            check(TWO_D6, '[skill_check: skill="Old Lore" dc="8" who="Zed"]', state, [3, 3])
        )
        assert (out["result"], out["modifier"], out["sheet"]) == ("failure", "0", "none")

    def test_sheet_comes_before_outcome(self) -> None:
        """SPEC §3 order: `sheet` is among the extras (after `who`), before the attributes
        the newer kinds add (`highest`) and `outcome`, which stays last."""
        crows = ruleset("sheets/crows.json")
        receipt = check(crows, '[skill_check: skill="Hunt" who="Zed"]', snapshot(), [5, 2])
        keys = [key for key, _ in receipt.outputs]
        assert keys.index("who") < keys.index("sheet") < keys.index("highest")
        assert keys[-1] == "outcome"

    def test_card_says_no_sheet(self) -> None:
        """The dice card says why nothing came from a sheet."""
        receipt = check(TWO_D6, '[skill_check: skill="Climb" dc="8" who="Zed"]', snapshot(), [3, 3])
        assert (receipt.card or "").endswith("no sheet")

    def test_omitted_who_without_cards(self) -> None:
        """With no who and no card at all nothing is named, so nothing says `sheet`."""
        out = attrs(check(TWO_D6, '[skill_check: skill="Climb" dc="8"]', snapshot(), [3, 3]))
        assert "sheet" not in out and "who" not in out


class TestSheetWho:
    TEXT = '[sheet: who="Bram" op="spend" pool="hp" amount="1"]'

    def test_first_name_is_the_card_it_starts(self) -> None:
        """`who="Bram"` spends from "Bram the Quiet"; the receipt names the stored name."""
        state = snapshot(cards(Ada={}, Bram_the_Quiet={}))
        result = process(self.TEXT, TORCHES, state, seed=1)
        assert result.receipts[0].render() == (
            '[sheet: who="Bram the Quiet" op="spend" pool="hp" amount="1" result="ok" now="7/8"]'
        )

    def test_two_cards_starting_with_it_refuse(self) -> None:
        """Two cards starting with the name refuse the command, `ambiguous-who`."""
        state = snapshot(cards(Bram_the_Quiet={}, Bram_Stoker={}))
        result = process(self.TEXT, TORCHES, state, seed=1)
        assert result.receipts[0].reason == "ambiguous-who"
        assert result.snapshot == state

    def test_no_card_either_way(self) -> None:
        """A sheet command for a name no card has or starts with has no sheet to change."""
        result = process(self.TEXT, TORCHES, snapshot(cards(Bramble={})), seed=1)
        assert result.receipts[0].reason == "unknown-character"
