"""Free rating dots on targets no allocate step stages (004 `grants.ratings`, BUILDER C8)."""

from __future__ import annotations

from typing import Any

from gmtags import build_character, load_ruleset
from tests.builder.samples import points


def gifted(*ratings: dict[str, Any]) -> Any:
    """The point-based sample whose Ember Skin gift grants `ratings`."""
    data = points()
    data["catalogs"][0]["entries"][0]["grants"] = {"ratings": list(ratings)}
    return load_ruleset(data)


def build(ruleset: Any, **steps: Any) -> Any:
    steps = {"type": {"fields": {"dragon": 1}}, "aspect_gifts": {"picks": ["ember-skin"]}, **steps}
    return build_character(ruleset, {"v": 1, "seed": 1, "steps": steps})


class TestFreeRatings:
    def test_a_free_dot_on_a_skill_a_spend_step_buys(self) -> None:
        """004: `add` positive: one free dot on Occult, written as the tier its map names."""
        result = build(gifted({"target": {"skill": "occult"}, "add": 1}))
        assert result.card["skills"] == {"occult": "trained"}

    def test_the_highest_set_then_every_add(self) -> None:
        ruleset = gifted(
            {"target": {"skill": "athletics"}, "set": 1},
            {"target": {"skill": "athletics"}, "add": 1},
            {"target": {"save": "will"}, "set": 1},
        )
        result = build(ruleset)
        assert result.card["skills"] == {"athletics": "expert"}
        assert result.card["saves"] == {"will": "trained"}

    def test_never_past_the_storage_limit(self) -> None:
        result = build(gifted({"target": {"save": "will"}, "add": 5}))
        assert result.card["saves"] == {"will": "trained"}  # its map ends at trained

    def test_free_dots_are_never_charged(self) -> None:
        """004: "Los valores iniciales y las concesiones gratuitas se conservan y nunca se
        vuelven a cobrar": a buy of one more Occult starts from the free dot (1 → 2 costs 15)."""
        result = build(
            gifted({"target": {"skill": "occult"}, "add": 1}),
            interest_skills={"buys": {"occult": 1}},
        )
        (line,) = [line for line in result.ledger if line["step"] == "interest_skills"]
        assert (line["offer"], line["delta"], line["price"]) == ("occult", 1, 15)

    def test_unpicking_the_gift_takes_the_dots_back(self) -> None:
        ruleset = gifted({"target": {"skill": "occult"}, "add": 1})
        first = build(ruleset)
        back = build_character(ruleset, {"v": 1, "seed": 1}, first.card)
        assert "skills" not in back.card
