"""gmtags/builder/controls.py: what each control of a view does to the answers, the one edit
the wizard makes and the page's renderer mirrors."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest

from gmtags.builder.controls import (
    Choose,
    Fact,
    Number,
    Option,
    Pick,
    Press,
    Table,
    Text,
    as_json,
    at,
    change,
    read_control,
)
from tests.conftest import FIXTURES

PICKS = ("steps", "oath", "picks")
OPTIONS = (Option("a", "A"), Option("b", "B"))


def changed(document: dict[str, Any], control: Any, value: Any) -> dict[str, Any]:
    change(document, control, value)
    return document


class TestChoose:
    def test_single_makes_the_list_the_value_alone_and_unpicks_it(self) -> None:
        one = Choose("Oath", PICKS, OPTIONS, single=True)
        doc = changed({}, one, "a")
        assert doc == {"steps": {"oath": {"picks": ["a"]}}}
        assert changed(doc, one, "b")["steps"]["oath"]["picks"] == ["b"]
        assert changed(doc, one, "b")["steps"]["oath"]["picks"] == []

    def test_many_toggle_each_value_in_order(self) -> None:
        many = Choose("Gifts", PICKS, OPTIONS, single=False)
        doc = changed(changed({}, many, "b"), many, "a")
        assert at(doc, PICKS) == ["b", "a"]
        assert at(changed(doc, many, "b"), PICKS) == ["a"]

    def test_none_clears_and_a_list_of_another_shape_is_started_again(self) -> None:
        one = Choose("Oath", PICKS, OPTIONS, clearable=True)
        assert at(changed({"steps": {"oath": {"picks": ["a"]}}}, one, None), PICKS) == []
        doc: dict[str, Any] = {"steps": {"oath": "not an answer"}}
        assert at(changed(doc, one, "a"), PICKS) == ["a"]


class TestTypedAndPressed:
    def test_a_number_or_text_replaces_and_none_drops(self) -> None:
        level = Number("Level", ("steps", "lv", "fields", "level"), low=1, high=20)
        doc = changed({"v": 1}, level, 3)
        assert doc == {"v": 1, "steps": {"lv": {"fields": {"level": 3}}}}
        assert changed(doc, level, None) == {"v": 1, "steps": {"lv": {"fields": {}}}}
        name = Text("Name", ("steps", "who", "fields", "name"))
        assert at(changed({}, name, "Mira"), name.path) == "Mira"

    def test_a_press_puts_its_own_value_and_a_fact_changes_nothing(self) -> None:
        again = Press("Roll again", ("steps", "r", "rolls", "luck"), {"attempt": 2})
        doc = {"steps": {"r": {"rolls": {"luck": {"faces": [3, 4, 5]}}}}}
        assert at(changed(doc, again, "ignored"), again.path) == {"attempt": 2}
        assert changed({"v": 1}, Fact("Luck", "50"), 7) == {"v": 1}


EDITS = json.loads((FIXTURES / "builder" / "control-edits.json").read_text("utf-8"))["cases"]


@pytest.mark.parametrize("case", EDITS, ids=[c["name"] for c in EDITS])
def test_the_edit_each_control_makes(case: dict[str, Any]) -> None:
    """The shared cases the page's renderer is held to as well
    (tests/clients/builder-view.test.mjs)."""
    document = copy.deepcopy(case["before"])
    change(document, read_control(case["control"]), case["value"])
    assert document == case["after"]


def test_a_control_read_back_is_the_control() -> None:
    """`read_control` reads what `as_json` wrote (the page gets the same controls)."""
    controls = [
        Choose("Oath", PICKS, OPTIONS, single=False, most=2),
        Pick("Method", ("steps", "s", "method"), (("a", "A"),), then=(("a", ((PICKS, None),)),)),
        Number("Int", ("steps", "s", "scores", "int"), 8, 8, 15, buttons=True),
        Table("Rows", ("Roll",), ((Number("Roll, row 1", ("steps", "r", "rows", 0, "roll")),),)),
    ]
    assert [read_control(c) for c in as_json(controls)] == controls
