"""Tests for gmtags/sheet/advance.py: permanent field changes (002 party sheet, 004 advancement)."""

from __future__ import annotations

from collections.abc import Collection
from functools import cache
from typing import Any

from gmtags import Ruleset, load_ruleset
from gmtags.ruleset.sheet import HideWhen
from gmtags.sheet.advance import Advanced, advance_field, read_number, show
from gmtags.sheet.live import Refused
from gmtags.sheet.values import Scalar

FIELDS: list[dict[str, Any]] = [
    {"id": "level", "label": "Level", "type": "number", "min": 1, "max": 20, "default": 1},
    {"id": "weight", "label": "Weight", "type": "number", "min": 0, "max": 10, "integer": False},
    {"id": "motto", "label": "Motto", "type": "text", "maxLength": 12},
    {"id": "story", "label": "Story", "type": "longtext", "maxLength": 40},
    {"id": "brave", "label": "Brave", "type": "boolean"},
    {"id": "oil", "label": "Oil", "type": "number", "min": 0, "max": 6, "default": 3,
     "hideWhen": {"field": "level", "equals": 1}},
]  # fmt: skip


@cache
def rules() -> Ruleset:
    data: dict[str, Any] = {
        "schemaVersion": 1,
        "id": "advance-test",
        "version": 1,
        "name": "Advance test",
        "coverage": {"summary": "Fields that advance."},
        "resolution": {
            "kind": "dice-sum",
            "abilityModifier": {"op": "identity"},
            "proficiencyTiers": [{"id": "untrained", "label": "Untrained"}],
        },
        "sheet": {
            "version": 1,
            "fields": FIELDS,
            "advancement": {"fields": ["level", "weight", "motto", "story", "oil"]},
        },
        "gm": {"checkGuidance": "Call for checks."},
    }
    return load_ruleset(data)


def run(
    written: str,
    by: str | None = None,
    to: str | None = None,
    stored: dict[str, Scalar] | None = None,
    locked: Collection[str] = (),
) -> Advanced | Refused:
    """Advance one field of the test sheet, reading `stored` values (defaults otherwise)."""
    sheet = rules().sheet
    shapes = {field.id: field for field in sheet.fields}
    current = stored or {}

    def read(field_id: str) -> Scalar:
        shape = shapes[field_id]
        default = getattr(shape, "default", None)
        return current.get(field_id, default if default is not None else "")

    def hidden(rule: HideWhen | None) -> bool:
        return rule is not None and read(rule.field) == rule.equals

    listed = sheet.advancement.fields if sheet.advancement else ()
    return advance_field(sheet.fields, listed, read, hidden, written, by, to, locked)


def advanced(outcome: Advanced | Refused) -> Advanced:
    assert isinstance(outcome, Advanced), outcome
    return outcome


def refusal(outcome: Advanced | Refused) -> str:
    assert isinstance(outcome, Refused), outcome
    return outcome.reason


class TestAdvanceNumber:
    def test_by_adds_to_the_shown_value(self) -> None:
        """`by` adds to the field's value (its default when unset); `now` is `Label value`."""
        assert advanced(run("level", by="2")) == Advanced("level", 3, "Level 3")
        assert advanced(run("Level", by="-1", stored={"level": 5})).value == 4

    def test_to_sets(self) -> None:
        """`to` sets a number field."""
        assert advanced(run("level", to="20")).now == "Level 20"

    def test_out_of_range_is_refused_not_clamped(self) -> None:
        """SPEC §8: a value the field cannot hold is `invalid-value`, never clamped."""
        assert refusal(run("level", to="21")) == "invalid-value"
        assert refusal(run("level", by="-1")) == "invalid-value"

    def test_whole_numbers_on_integer_fields(self) -> None:
        """An integer field refuses a fraction; a non-integer field takes one."""
        assert refusal(run("level", by="0.5")) == "invalid-value"
        assert advanced(run("weight", to="2.5")) == Advanced("weight", 2.5, "Weight 2.5")
        assert advanced(run("weight", by="1.5", stored={"weight": 2.5})).value == 4

    def test_unreadable_number(self) -> None:
        """A number that does not read (or is too long) is `invalid-value`."""
        assert refusal(run("level", by="two")) == "invalid-value"
        assert refusal(run("level", by="1234567890")) == "invalid-value"


class TestAdvanceText:
    def test_to_sets_text(self) -> None:
        """A text field takes `to`; surrounding spaces are trimmed."""
        assert advanced(run("motto", to=" Hold fast ")) == Advanced(
            "motto", "Hold fast", "Motto Hold fast"
        )

    def test_empty_text_clears(self) -> None:
        """An empty text is a value a text field holds: `Label cleared`."""
        assert advanced(run("story", to="")).now == "Story cleared"

    def test_too_long_or_control_characters(self) -> None:
        """Text over maxLength, or with control characters, is `invalid-value`."""
        assert refusal(run("motto", to="x" * 13)) == "invalid-value"
        assert refusal(run("story", to="a\tb")) == "invalid-value"

    def test_by_on_text_is_invalid(self) -> None:
        """A text field cannot be moved `by` a number."""
        assert refusal(run("motto", by="1")) == "invalid-value"


class TestAdvanceRefusals:
    def test_exactly_one_of_by_and_to(self) -> None:
        """Neither or both of by and to is `malformed`."""
        assert refusal(run("level")) == "malformed"
        assert refusal(run("level", by="1", to="2")) == "malformed"

    def test_unknown_and_hidden_fields(self) -> None:
        """ENGINE-NOTES §8: a field the sheet lacks or hides is `unknown-field`."""
        assert refusal(run("charisma", by="1")) == "unknown-field"
        assert refusal(run("oil", by="1")) == "unknown-field"
        assert advanced(run("oil", by="1", stored={"level": 2})).value == 4

    def test_not_listed_or_not_advanceable(self) -> None:
        """002: a field not in advancement.fields, or locked, is `not-advanceable`."""
        assert refusal(run("brave", to="true")) == "not-advanceable"
        assert refusal(run("level", by="1", locked={"level"})) == "not-advanceable"


class TestHelpers:
    def test_read_number(self) -> None:
        """Numbers read with a bounded length; whole ones as int."""
        assert (read_number("+3"), read_number("2.25"), read_number("1e3")) == (3, 2.25, None)

    def test_show(self) -> None:
        """A whole float shows without `.0`."""
        assert (show(3.0), show(2.5), show("x")) == ("3", "2.5", "x")
