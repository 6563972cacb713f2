"""Results kept by the identity of frozen objects (gmtags.memo, issue 16)."""

from __future__ import annotations

from pathlib import Path

from gmtags import Snapshot, load_ruleset, process
from gmtags.memo import IdentityMemo

RULESETS = Path(__file__).resolve().parent.parent / "fixtures" / "rulesets"


class TestIdentityMemo:
    def test_the_same_objects_hit(self) -> None:
        """The second call with the very same objects and extra does not make again."""
        memo: IdentityMemo[str] = IdentityMemo(8)
        key = ("a", "b")
        made: list[int] = []
        first = memo.get(key, 1, lambda: made.append(1) or "x")
        second = memo.get(key, 1, lambda: made.append(2) or "y")
        assert (first, second, made) == ("x", "x", [1])

    def test_equal_but_other_objects_miss(self) -> None:
        """Equal objects that are not the same ones are another key."""
        memo: IdentityMemo[int] = IdentityMemo(8)
        one, two = [1], [1]
        assert memo.get((one,), None, lambda: 1) == 1
        assert memo.get((two,), None, lambda: 2) == 2

    def test_extra_is_part_of_the_key(self) -> None:
        memo: IdentityMemo[int] = IdentityMemo(8)
        thing = object()
        assert memo.get((thing,), "a", lambda: 1) == 1
        assert memo.get((thing,), "b", lambda: 2) == 2

    def test_full_memo_starts_again(self) -> None:
        """It never holds more than its size."""
        memo: IdentityMemo[int] = IdentityMemo(3)
        things = [object() for _ in range(10)]
        for i, thing in enumerate(things):
            memo.get((thing,), None, lambda i=i: i)  # type: ignore[misc]
            assert len(memo) <= 3


class TestPlayThroughTheMemos:
    def test_a_changed_card_is_read_again(self) -> None:
        """A check against a card, then against a changed card, reads each card's own number."""
        rules = load_ruleset(RULESETS / "checks/d20-naturals.json")
        text = '[skill_check: ability="Dexterity" dc="15"]'
        for dex, modifier in ((20, "5"), (8, "-1"), (20, "5"), (13, "1")):
            state = Snapshot.model_validate(
                {"gameCharacterCards": {"Ada": {"abilities": {"dex": dex}}}}
            )
            assert process(text, rules, state, seed=1).receipts[0].attr("modifier") == modifier

    def test_renamed_character_is_found_again(self) -> None:
        """Who a check is for follows the snapshot's cards, not the last snapshot's."""
        rules = load_ruleset(RULESETS / "checks/d20-naturals.json")
        text = '[skill_check: ability="Dexterity" dc="15" who="Bo"]'
        cards = {"Ada": {"abilities": {"dex": 20}}}
        stranger = process(
            text, rules, Snapshot.model_validate({"gameCharacterCards": cards}), seed=1
        )
        cards = {"Ada": {"abilities": {"dex": 20}}, "Bo": {"abilities": {"dex": 8}}}
        known = process(text, rules, Snapshot.model_validate({"gameCharacterCards": cards}), seed=1)
        assert stranger.receipts[0].attr("modifier") == "0"
        assert known.receipts[0].attr("modifier") == "-1"
