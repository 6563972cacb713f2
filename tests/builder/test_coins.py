"""Starting coins in kits (004, "Monedas iniciales tiradas y leídas de la ficha", 1.157)."""

from __future__ import annotations

from typing import Any

from gmtags import Snapshot, build_character, load_ruleset
from gmtags.prompt.reminder import character_block
from tests.builder.conftest import five_e_builder

GOLD = {
    "categories": [{"id": "gear", "label": "Gear"}],
    "currencies": [
        {"id": "coin", "label": "Coin", "units": [{"id": "gp", "label": "gold", "value": 1}]}
    ],
}


def ruleset(*lines: dict[str, Any]) -> Any:
    data = five_e_builder()
    data["items"] = GOLD
    data["sheet"]["builder"]["steps"].append(
        {
            "id": "gear",
            "label": "Gear",
            "kind": "startingGear",
            "kits": [{"id": "purse", "label": "A purse", "lines": list(lines)}],
        }
    )
    return load_ruleset(data)


def taken(rules: Any, seed: int = 5, **steps: Any) -> Any:
    return build_character(
        rules, {"v": 1, "seed": seed, "steps": {"gear": {"kits": ["purse"]}, **steps}}
    )


class TestCoins:
    def test_a_roll_times_ten(self) -> None:
        """004: { "coins": "gold", "roll": "5d4", "times": 10 }, rolled when the kit is taken."""
        result = taken(ruleset({"coins": "gp", "roll": "5d4", "times": 10}))
        faces = result.answers["steps"]["gear"]["rolls"]["purse/0"]["faces"]
        assert len(faces) == 5 and all(1 <= f <= 4 for f in faces)
        assert result.card["builder"]["coins"] == {"gp": sum(faces) * 10}

    def test_rolled_once_never_again(self) -> None:
        """004: "reabrir el selector no puede volver a tirarla": the recorded faces are reused,
        whatever the seed says now."""
        rules = ruleset({"coins": "gp", "roll": "5d4", "times": 10})
        first = taken(rules)
        answers = {**first.answers, "seed": 999}
        again = build_character(rules, answers, first.card)
        assert again.card["builder"]["coins"] == first.card["builder"]["coins"]

    def test_a_fixed_count_and_count_from_the_sheet(self) -> None:
        """countFrom reads the bearer's own sheet (here the level, 3 × 10)."""
        rules = ruleset(
            {"coins": "gp", "count": 15},
            {"coins": "gp", "countFrom": {"field": "level"}, "times": 10},
        )
        result = taken(rules, level={"fields": {"level": 3}})
        assert result.card["builder"]["coins"] == {"gp": 45}

    def test_zero_adds_nothing(self) -> None:
        result = taken(ruleset({"coins": "gp", "count": 0}))
        assert "coins" not in result.card["builder"]

    def test_untaking_the_kit_takes_the_coins_back(self) -> None:
        rules = ruleset({"coins": "gp", "count": 15})
        with_kit = taken(rules)
        without = build_character(rules, {"v": 1, "seed": 5}, with_kit.card)
        assert "coins" not in without.card["builder"]

    def test_the_gms_sheet_block_shows_them(self) -> None:
        rules = ruleset({"coins": "gp", "count": 15})
        card = taken(rules).card
        block = character_block(
            rules, Snapshot.model_validate({"gameCharacterCards": {"Ilse": card}}), "Ilse"
        )
        assert "  Coins: 15 gold" in block
