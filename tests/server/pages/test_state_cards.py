"""gmtags/server/pages/state_cards.py: a stored receipt read back as a card."""

from __future__ import annotations

import json

from gmtags.demo import demo_file
from gmtags.process import process
from gmtags.ruleset.load import load_ruleset
from gmtags.server.pages.state_cards import receipt_card
from gmtags.state.snapshot import load_snapshot
from gmtags.tags.receipt import Receipt


def demo_receipts() -> list[Receipt]:
    """The receipts of the bundled demo reply, as the engine writes them."""
    ruleset = load_ruleset(json.loads(demo_file("ruleset.json").read_text(encoding="utf-8")))
    state = load_snapshot(json.loads(demo_file("state.json").read_text(encoding="utf-8")))
    return process(demo_file("reply.txt").read_text(encoding="utf-8"), ruleset, state, 7).receipts


class TestReceiptCard:
    def test_every_demo_receipt_reads_back(self) -> None:
        """Each card names its tag and subject and carries the engine's result or `now`."""
        for receipt in demo_receipts():
            card = receipt_card(receipt.render())
            assert card.tag == receipt.tag and card.text == receipt.render()
            subject = receipt.attr("who") or receipt.attr("name") or ""
            assert card.subject == subject
            if receipt.result == "refused":
                assert card.refused and (receipt.reason or "").replace("-", " ") in card.outcome
            else:
                assert not card.refused
                assert (receipt.attr("now") or receipt.result) in card.outcome

    def test_a_check_shows_its_dice_and_total(self) -> None:
        """A check's card shows the dice thrown, each roll, the total and the result."""
        check = next(r for r in demo_receipts() if r.tag == "skill_check")
        card = receipt_card(check.render())
        rolls = (check.attr("rolls") or "").split("|")
        assert all(roll in card.outcome for roll in rolls)
        assert f"= {check.attr('total')}" in card.outcome
        assert card.outcome.endswith(check.result)
        assert f"DC {check.attr('dc')}" in card.asked

    def test_a_save_is_asked_as_a_save(self) -> None:
        """Issue 28: a saving throw's receipt keeps `save=`, and its card asks for the save."""
        card = receipt_card(
            '[skill_check: save="Dexterity" dc="15" rolls="12" used="12" modifier="5" '
            'total="17" result="success" who="Ada"]'
        )
        assert card.asked == "Dexterity save (DC 15)"

    def test_a_party_command_is_about_the_party_sheet(self) -> None:
        """`sheet="party"` is about the party sheet, not a character."""
        card = receipt_card(
            '[sheet: sheet="party" op="spend" pool="Coin" amount="2" result="ok" now="1/8"]'
        )
        assert card.subject == "Party sheet" and card.outcome == "1/8"
        assert card.asked == "spend Coin (amount 2)"

    def test_text_that_is_no_receipt(self) -> None:
        """A text with no tag in it still gives a card, never an error."""
        card = receipt_card("no tag here")
        assert card.tag == "tag" and card.subject == "" and not card.refused
