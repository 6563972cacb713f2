"""gmtags/builder/view.py: a build's views (every step's controls, its reasons, its entry
choices, what it keeps but does not count) and what the character so far holds back."""

from __future__ import annotations

import copy
import json
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from gmtags import build_character, load_ruleset
from gmtags.builder.controls import (
    Choose,
    Count,
    Flag,
    Note,
    Number,
    Pick,
    Press,
    Text,
    change,
    flat,
)
from gmtags.builder.view import holds, step_view, views
from gmtags.ruleset.model import Ruleset
from tests.conftest import FIXTURES

FIVE_E_PATH = FIXTURES / "rulesets" / "builder" / "5e-builder.json"
FIVE_E = load_ruleset(FIVE_E_PATH)


def point_buy_only() -> Ruleset:
    """The 5e sample whose scores step offers point buy alone, with no `default`."""
    data = json.loads(FIVE_E_PATH.read_text(encoding="utf-8"))
    for step in data["sheet"]["builder"]["steps"]:
        if step["kind"] == "abilities":
            step["methods"] = {"pointBuy": step["methods"]["pointBuy"]}
            step.pop("default", None)
    return load_ruleset(data)


def view_of(ruleset: Ruleset, answers: dict[str, Any], step: str) -> list[Any]:
    builder = ruleset.sheet.builder_model
    assert builder is not None
    found = step_view(ruleset, builder, build_character(ruleset, answers), step)
    assert found is not None
    return found


class TestHolds:
    def test_no_scores_while_the_lone_method_waits(self) -> None:
        """No half sheet: while no method is in force the character so far shows, in place of
        the scores, that they are not chosen yet (a dwarf's +2 Constitution is not a score)."""
        ruleset = point_buy_only()
        blank = {"v": 1, "seed": 1, "steps": {"race": {"picks": ["dwarf"]}}}
        said = holds(ruleset, build_character(ruleset, blank))
        assert said == {
            "scores": "Not chosen yet: the Ability Scores step waits for a method."
            " What picks add goes on top then."
        }
        chosen = {**blank, "steps": {**blank["steps"], "scores": {"method": "pointBuy"}}}
        assert holds(ruleset, build_character(ruleset, chosen)) == {}

    def test_a_default_method_or_a_described_card_holds_nothing_back(self) -> None:
        assert holds(FIVE_E, build_character(FIVE_E, {"v": 1, "seed": 1})) == {}
        ruleset = point_buy_only()
        described = {"v": 1, "seed": 1, "described": True}
        assert holds(ruleset, build_character(ruleset, described)) == {}


class TestViews:
    def test_every_step_has_a_view(self) -> None:
        res = build_character(FIVE_E, {"v": 1, "seed": 1})
        assert list(views(FIVE_E, res)) == [s["id"] for s in res.steps]

    def test_the_lone_method_says_so_and_not_choose_a_method(self) -> None:
        """A lone method not chosen yet: its note in its own words, no "choose a method"
        reason, no method picked (the player's first change chooses it)."""
        controls = view_of(point_buy_only(), {"v": 1, "seed": 1}, "scores")
        notes = [c.text for c in controls if isinstance(c, Note)]
        assert any("only method: your first change to a score chooses it" in n for n in notes)
        assert not any(isinstance(c, Note) and c.tone == "reason" for c in controls)
        method = next(c for c in controls if isinstance(c, Pick))
        assert method.value is None and method.choices == (("pointBuy", "Point buy"),)

    def test_a_step_s_reasons_lead_and_a_pick_kept_uncounted_says_why(self) -> None:
        """The build's reasons lead the view; a pick the step does not offer stays listed,
        with the reason it is not counted (nothing is thrown away)."""
        answers = {"v": 1, "seed": 1, "steps": {"race": {"picks": ["elf", "nowhere"]}}}
        controls = view_of(FIVE_E, answers, "race")
        race = next(c for c in controls if isinstance(c, Choose))
        kept = {o.value: o.reason for o in race.options if o.chosen}
        assert kept == {"elf": "", "nowhere": "not offered by this step"}
        over = {"v": 1, "seed": 1, "steps": {"scores": {"scores": {"str": 15, "dex": 15}}}}
        over["steps"]["scores"]["scores"] |= {"con": 15, "int": 10}
        first = view_of(FIVE_E, over, "scores")[0]
        assert first == Note("2 points over budget (29 spent of 27)", "reason")


def _uses(controls: list[Any]) -> list[tuple[Any, Any]]:
    """Every (control, value) a player could use on a step's view, as the page offers them."""
    found: list[tuple[Any, Any]] = []
    for control in flat(controls):
        if isinstance(control, Choose):
            found += [(control, o.value) for o in control.options]
        elif isinstance(control, Pick):
            found += [(control, v) for v, _ in control.choices] + [(control, None)]
        elif isinstance(control, Count):
            found += [(control, 1), (control, -1)]
        elif isinstance(control, Number):
            low = control.low if control.low is not None else 0
            high = control.high if control.high is not None else low + 20
            found += [(control, low), (control, high), (control, None)]
        elif isinstance(control, Press):
            found.append((control, None))
        elif isinstance(control, Text | Flag):
            found += [(control, "x" if isinstance(control, Text) else True), (control, None)]
    return found


class TestAnyPlay:
    @settings(max_examples=40, deadline=None)
    @given(st.lists(st.tuples(st.integers(0, 63), st.integers(0, 10_000)), max_size=12))
    def test_any_use_of_the_views_builds_and_the_answers_rebuild_the_card(
        self, moves: list[tuple[int, int]]
    ) -> None:
        """A player using the views' controls in any order on any step: every change builds
        (nothing raises, the answers always read back), and the answers alone build the
        same card again (the card is a function of the answers, however they were made)."""
        builder = FIVE_E.sheet.builder_model
        assert builder is not None
        answers: dict[str, Any] = {"v": 1, "seed": 7}
        res = build_character(FIVE_E, answers)
        for at, pick in moves:
            step = builder.steps[at % len(builder.steps)]
            uses = _uses(step_view(FIVE_E, builder, res, step.id) or [])
            if not uses:
                continue
            control, value = uses[pick % len(uses)]
            changed = copy.deepcopy(res.answers)
            change(changed, control, value)
            res = build_character(FIVE_E, changed)
        again = build_character(FIVE_E, res.answers)
        assert again.card == res.card and again.answers == res.answers


class TestManualScores:
    def test_typed_scores_carry_the_manual_limits(self) -> None:
        """004 `manual{min, max}` (1.110): a typed score's control holds the limits the build
        holds it to (`manual: true` none of its own)."""
        data = json.loads(FIVE_E_PATH.read_text(encoding="utf-8"))
        for step in data["sheet"]["builder"]["steps"]:
            if step["kind"] == "abilities":
                step["methods"]["manual"] = {"min": 3, "max": 18}
        answers = {"v": 1, "seed": 1, "steps": {"scores": {"method": "manual"}}}
        limited = [c for c in flat(view_of(load_ruleset(data), answers, "scores"))]
        typed = [c for c in limited if isinstance(c, Number)]
        assert len(typed) == 6 and {(c.low, c.high) for c in typed} == {(3, 18)}
        plain = [c for c in flat(view_of(FIVE_E, answers, "scores")) if isinstance(c, Number)]
        assert {(c.low, c.high) for c in plain} == {(None, None)}


def test_a_kit_s_coins_read_from_the_sheet_are_shown_as_the_build_reads_them() -> None:
    """A kit's coin line with `countFrom` (the 5e sample's background gold) shows the coins
    the sheet gives now ("10 gp" for a sage), not the coin's name alone."""
    answers = {"v": 1, "seed": 1, "steps": {"background": {"picks": ["sage"]}}}
    kits = next(c for c in view_of(FIVE_E, answers, "gear") if isinstance(c, Choose))
    assert kits.options[0].details[-1] == "10 gp"
    res = build_character(
        FIVE_E, {**answers, "steps": {**answers["steps"], "gear": {"kits": ["cleric-kit"]}}}
    )
    assert res.card["builder"]["coins"] == {"gp": 10}
