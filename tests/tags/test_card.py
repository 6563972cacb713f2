"""Cards (SPEC §7.3): the golden card files under fixtures/cards, the markers, card lines."""

from __future__ import annotations

import pytest

from gmtags import load_ruleset, process
from gmtags.engine.sheet import ALIASES, CHARACTER_OPS
from gmtags.state.snapshot import load_snapshot
from gmtags.tags.card import MARKERS, SHEET_OPS, clock_card, is_card_line, sheet_card
from gmtags.testing import GoldenCase, all_cases
from tests.conftest import FIXTURES

CASES = all_cases(FIXTURES / "cards")


def test_there_is_a_card_file_per_kind_and_refusal() -> None:
    """Each check kind, clocks, the sheet op families and each refused kind have a file."""
    names = {case.path.stem for case in CASES}
    assert {f"check_{kind}" for kind in ("dice_sum", "dice_pool", "dice_highest")} <= names
    assert {"check_roll_against", "check_symbol_pool", "clock"} <= names
    assert {"refused_check", "refused_sheet", "refused_clock", "refused_malformed"} <= names
    assert all("cards" in case.sections for case in CASES)


@pytest.mark.parametrize("case", CASES, ids=[case.id for case in CASES])
def test_card_golden(case: GoldenCase) -> None:
    """Processing the file's input with its seed gives exactly the cards it shows."""
    ruleset = load_ruleset(FIXTURES / "rulesets" / case.meta["ruleset"])
    start = load_snapshot(case.json_section("snapshot")) if "snapshot" in case.sections else None
    result = process(case.sections["input"], ruleset, start, seed=case.seed)
    assert result.cards == case.sections["cards"]


class TestMarkers:
    def test_every_sheet_op_has_a_marker(self) -> None:
        """Each op a sheet takes, and each alias, starts its card with a marker of its own."""
        assert set(CHARACTER_OPS) | set(ALIASES) <= set(SHEET_OPS)

    def test_markers_are_distinct(self) -> None:
        """No two kinds share a marker, so a card line says what it shows."""
        assert len(MARKERS) == len(set(MARKERS))


class TestCardLine:
    @pytest.mark.parametrize(
        "line",
        [
            "🎲 **Ward** · Bram · 3d10 ≥7 vs 2 → 9, 3, 7 · 2 successes · **success**",
            "🕒 **Alarm raised** 4/6",
            "❤️ Bram Harm 2/4",
            "❤ Bram Harm 2/4",
            '⚠️ check refused: not trained in "Old Lore" for "Kai"',
        ],
    )
    def test_cards_are_card_lines(self, line: str) -> None:
        """A marker and a space start a card line (also without the variation selector)."""
        assert is_card_line(line)

    @pytest.mark.parametrize("line", ["🎲dice", "The 🎲 rolls", " 🕒 **A** 1/4", "", "❤️"])
    def test_other_lines_are_not(self, line: str) -> None:
        """A marker elsewhere, or without its space, is narration."""
        assert not is_card_line(line)


class TestWords:
    def test_clock_states_in_words(self) -> None:
        """A new, full or cleared clock says so; a ticked one shows its fill."""
        assert clock_card((("name", "A"), ("size", "4"), ("now", "0/4"))) == "🕒 **A** new 0/4"
        assert clock_card((("name", "A"), ("tick", "4"), ("now", "4/4"))) == "🕒 **A** 4/4 full"
        assert clock_card((("name", "A"), ("tick", "1"), ("now", "2/4"))) == "🕒 **A** 2/4"
        assert clock_card((("name", "A"), ("clear", None), ("now", "cleared"))) == (
            "🕒 **A** cleared"
        )

    def test_sheet_pool_change(self) -> None:
        """A pool op shows the pool, the change and the value after."""
        outputs = (("who", "Bram"), ("op", "damage"), ("pool", "hp"), ("amount", "2"))
        assert sheet_card("damage", (*outputs, ("now", "6/8"))) == "❤️ Bram hp −2 → 6/8"
