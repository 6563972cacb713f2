"""gmtags/server/pages/state_sheet.py: the state drawn for a person (bars, boxes, clocks)."""

from __future__ import annotations

import json
import re

from gmtags import process
from gmtags.demo import demo_file
from gmtags.prompt import gm_instructions
from gmtags.ruleset.load import load_ruleset
from gmtags.ruleset.model import Ruleset
from gmtags.server.pages.state_sheet import bar, clock_svg, state_html, wound_boxes
from gmtags.sheet import wounds
from gmtags.state.snapshot import Clock, Snapshot
from tests.conftest import ROOT

KINDS = (wounds.WoundKind("strain", "S", 0), wounds.WoundKind("break", "B", 1))


class TestBar:
    def test_value_of_max(self) -> None:
        """A bar is a meter with its bounds and value, and says value/max."""
        html = bar("pool", "Lamp oil", 3, 0, 4)
        assert 'role="meter"' in html and 'aria-valuenow="3"' in html
        assert 'aria-valuemax="4"' in html and '<span class="bar-value">3/4</span>' in html
        assert '<rect width="75.0"' in html

    def test_fill_is_held_to_the_bounds(self) -> None:
        """A bar never draws past its ends, nor divides by an empty range."""
        assert '<rect width="100.0"' in bar("track", "T", 9, 0, 4)
        assert '<rect width="0.0"' in bar("track", "T", 2, 2, 2)


class TestWoundBoxes:
    def test_numbered_boxes_hold_their_marks(self) -> None:
        """An indexed track shows Box 1…N, each mark in the box it landed in."""
        track = wounds.WoundTrack("strain", "Strain", KINDS, boxes=5, fill="indexed")
        html = wound_boxes(track, wounds.WoundState(("", "break", "", "strain")), checks=True)
        boxes = re.findall(r'<li class="box( marked" data-kind="\w+)?"', html)
        assert len(boxes) == 5
        assert [bool(b) for b in boxes] == [False, True, False, True, False]
        assert 'aria-label="Box 2: B (break)"' in html and "2/5 marked" in html

    def test_overflow_and_penalty_are_said(self) -> None:
        """Marks past a full track and the penalty in force are written beside the boxes."""
        levels = (wounds.WoundLevel("Fine", 0), wounds.WoundLevel("Hurt", -2))
        track = wounds.WoundTrack("harm", "Harm", KINDS, levels=levels)
        state = wounds.WoundState(("break", "strain"), overflow=2)
        html = wound_boxes(track, state, checks=True)
        assert "+2 over" in html and f"{wounds.penalty(track, state)} to checks" in html
        assert "Kinds, lightest first: S = strain, B = break" in html
        assert 'aria-label="Hurt (-2): S (strain)"' in html

    def test_a_penalty_the_checks_do_not_take_is_not_said(self) -> None:
        """A track whose levels carry penalties that no check rolls with says neither the
        penalty in force nor a level's: only what is marked."""
        levels = (wounds.WoundLevel("Fine", 0), wounds.WoundLevel("Hurt", -2))
        track = wounds.WoundTrack("harm", "Harm", KINDS, levels=levels)
        html = wound_boxes(track, wounds.WoundState(("break", "strain")), checks=False)
        assert "to checks" not in html and "(-2)" not in html
        assert "2/2 marked" in html and 'aria-label="Hurt: S (strain)"' in html


def _demo(resolution: dict[str, str]) -> Ruleset:
    """The demo ruleset (Harm's levels: Scuffed 0, Winded -1, …) with `resolution` keys added."""
    raw = json.loads(demo_file("ruleset.json").read_text(encoding="utf-8"))
    raw["resolution"] = {**raw["resolution"], **resolution}
    return load_ruleset(raw)


HURT_THEN_CHECK = (
    'A stone. [sheet: who="Bram the Quiet" op="damage" track="Harm" kind="knock" amount="2"]'
    ' He holds the gate. [skill_check: skill="Ward" difficulty="Hard" who="Bram the Quiet"]'
)
"""Bram marked twice on Harm (Winded, a level of -1), then a check."""


class TestWoundPenaltyAsTheEngineApplies:
    """002, "La penalización de las tiradas": `penaltyFrom` names the track whose penalty the
    checks roll with; the page says "to checks" exactly when the engine applies it."""

    def _played(self, ruleset: Ruleset) -> tuple[str, str]:
        """The check's receipt and the state page's Harm after the reply."""
        start = Snapshot.model_validate_json(demo_file("state.json").read_text(encoding="utf-8"))
        result = process(HURT_THEN_CHECK, ruleset, start, seed=3)
        harm = re.search(
            r'<div class="wounds" data-track="Harm">.*?</div>', state_html(ruleset, result.snapshot)
        )
        assert harm is not None
        return result.receipts[-1].render(), harm.group()

    def test_a_ruleset_whose_checks_take_the_penalty(self) -> None:
        """With `penaltyFrom: "harm"` the check rolls with -1 and the page says so."""
        check, harm = self._played(_demo({"penaltyFrom": "harm"}))
        assert 'penalty="-1"' in check
        assert "2/4 marked; -1 to checks" in harm and "Winded (-1)" in harm

    def test_a_ruleset_whose_checks_do_not(self) -> None:
        """The demo ruleset names no `penaltyFrom`: the check rolls without the level's -1,
        and the page says only what is marked, no penalty to checks, no level's cost."""
        check, harm = self._played(_demo({}))
        assert "penalty=" not in check
        assert "to checks" not in harm and "(-1)" not in harm and "2/4 marked" in harm

    def test_the_gm_block_says_the_same(self) -> None:
        """The GM block's "Now:" line tells the model a penalty only where checks take it."""
        start = Snapshot.model_validate_json(demo_file("state.json").read_text(encoding="utf-8"))
        for ruleset, told in ((_demo({"penaltyFrom": "harm"}), True), (_demo({}), False)):
            after = process(HURT_THEN_CHECK, ruleset, start, seed=3).snapshot
            reminder = gm_instructions(ruleset, after).reminder
            assert "Harm 2/4 Winded" in reminder
            assert ("Harm 2/4 Winded (-1 to checks)" in reminder) is told


class TestClock:
    def test_segments_are_its_size_and_filled_its_fill(self) -> None:
        """A clock of 8 with 3 filled has 8 segments, 3 shaded, and says so."""
        html = clock_svg(Clock(name="Dawn", size=8, filled=3))
        assert html.count('class="segment ') == 8 and html.count('"segment filled"') == 3
        assert 'aria-label="Dawn: 3 of 8 filled"' in html

    def test_a_full_clock_says_it_is_full(self) -> None:
        """Every segment of a full clock is shaded."""
        html = clock_svg(Clock(name="Dawn", size=4, filled=4))
        assert html.count('"segment filled"') == 4 and "(full)" in html


class TestStateHtml:
    def test_states_conditions_and_wounds_of_a_character(self) -> None:
        """A character's live states, conditions and wound marks are all drawn."""
        path = ROOT / "fixtures" / "rulesets" / "sheets" / "ashfall.json"
        ruleset = load_ruleset(json.loads(path.read_text(encoding="utf-8")))
        snapshot = Snapshot.model_validate(
            {
                "gameCharacterCards": {"Rook": {}},
                "rulesetLive": {
                    "rook": {
                        "states": {"form": "war"},
                        "conditions": ["frenzied"],
                        "marks": {"health": ["lethal", "bashing"]},
                    }
                },
            }
        )
        html = state_html(ruleset, snapshot)
        assert "<dt>Form</dt><dd>War form</dd>" in html
        assert '<li class="chip">Frenzied</li>' in html
        assert html.count('class="box marked"') == 2
        assert 'data-kind="lethal"' in html and 'data-pool="Willpower"' in html

    def test_no_characters(self) -> None:
        """An empty snapshot says there is nobody yet."""
        path = ROOT / "fixtures" / "rulesets" / "sheets" / "ashfall.json"
        ruleset = load_ruleset(json.loads(path.read_text(encoding="utf-8")))
        assert "No characters yet." in state_html(ruleset, Snapshot())
