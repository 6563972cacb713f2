"""Loading a ruleset: the top level, clocks, comments and error collection."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from gmtags import RulesetError, load_ruleset
from tests.conftest import FIXTURES, REFERENCE_RULESETS

BASE: dict[str, Any] = json.loads((FIXTURES / "rulesets" / "clocks-default.json").read_text())


def with_changes(**changes: Any) -> dict[str, Any]:
    data = copy.deepcopy(BASE)
    data.update(changes)
    return data


def paths(data: dict[str, Any]) -> list[str]:
    with pytest.raises(RulesetError) as caught:
        load_ruleset(data)
    return [problem.path for problem in caught.value.problems]


class TestReferenceRulesets:
    @pytest.mark.parametrize(
        "name", ["gravewatch.json", "ember-roads.json", "ruleset-5e-2014.example.json"]
    )
    def test_reference_ruleset_loads_unchanged(self, name: str) -> None:
        """The three reference rulesets import as they are, with no section dropped."""
        raw = json.loads((REFERENCE_RULESETS / name).read_text())
        ruleset = load_ruleset(REFERENCE_RULESETS / name)
        assert ruleset.id == raw["id"]
        dumped = ruleset.model_dump(by_alias=True, exclude_none=True)
        kept = {key for key in raw if not key.startswith("$")}
        assert kept <= set(dumped)


class TestTopLevel:
    def test_every_problem_is_listed_with_its_path(self) -> None:
        """Errors are collected, never stopping at the first, each with a dotted path."""
        data = with_changes(schemaVersion=2, id="Bad Id", version=0, name="a[b")
        data["coverage"] = {"summary": "x", "nonsense": True}
        assert sorted(paths(data)) == sorted(
            ["schemaVersion", "id", "version", "name", "coverage.nonsense"]
        )

    def test_unknown_top_level_key_is_refused(self) -> None:
        """The top level is strict."""
        assert paths(with_changes(extra=1)) == ["extra"]

    def test_missing_required_keys(self) -> None:
        """schemaVersion, id, version, name, coverage, resolution, sheet and gm are required."""
        assert sorted(paths({})) == sorted(
            ["schemaVersion", "id", "version", "name", "coverage", "resolution", "sheet", "gm"]
        )

    def test_comments_are_dropped_at_any_depth(self) -> None:
        """$comment keys go before validation, everywhere; $schema only at the root."""
        data = with_changes(**{"$schema": "x", "$comment": "top"})
        data["clocks"] = {"$comment": "inner", "max": 3}
        assert load_ruleset(data).clocks is not None

    def test_reserved_ids(self) -> None:
        """engine-legacy and traditional are refused as ruleset ids."""
        assert paths(with_changes(id="engine-legacy")) == ["id"]

    def test_strict_types(self) -> None:
        """A number written as a string is refused, not coerced."""
        assert paths(with_changes(version="1")) == ["version"]

    def test_gm_reference_is_prompt_safe(self) -> None:
        """gmReference is one prompt-safe line of at most 16,000 characters."""
        assert load_ruleset(with_changes(gmReference="Judge supplies.")).gm_reference
        assert paths(with_changes(gmReference="a\nb")) == ["gmReference"]
        assert paths(with_changes(gmReference="{{char}}")) == ["gmReference"]
        assert paths(with_changes(gmReference="x" * 16001)) == ["gmReference"]

    def test_bad_json_file(self, tmp_path: Path) -> None:
        """A file that is not JSON is one problem naming the line and column."""
        path = tmp_path / "bad.json"
        path.write_text('{"id": ')
        with pytest.raises(RulesetError) as caught:
            load_ruleset(path)
        assert "line 1" in str(caught.value)

    def test_missing_file_raises_oserror(self, tmp_path: Path) -> None:
        """A path that does not exist is the caller's error: FileNotFoundError."""
        with pytest.raises(FileNotFoundError):
            load_ruleset(tmp_path / "nope.json")


class TestClocksConfig:
    def test_empty_object_enables_defaults(self) -> None:
        """`"clocks": {}` gives sizes [4, 6, 8] and max 8."""
        clocks = load_ruleset(with_changes(clocks={})).clocks
        assert clocks is not None and clocks.sizes == [4, 6, 8] and clocks.max == 8

    def test_absent_means_disabled(self) -> None:
        """Without `clocks` the ruleset has no clock commands."""
        data = with_changes()
        del data["clocks"]
        assert load_ruleset(data).clocks is None

    def test_strict_three_keys(self) -> None:
        """clocks accepts only sizes, max and text."""
        assert paths(with_changes(clocks={"sizes": [4], "colour": "red"})) == ["clocks.colour"]

    @pytest.mark.parametrize(
        ("clocks", "path"),
        [
            ({"sizes": []}, "clocks.sizes"),
            ({"sizes": [2, 3, 4, 5, 6, 7, 8]}, "clocks.sizes"),
            ({"sizes": [1]}, "clocks.sizes.0"),
            ({"sizes": [4, 13]}, "clocks.sizes.1"),
            ({"sizes": [4, 4]}, "clocks.sizes"),
            ({"max": 0}, "clocks.max"),
            ({"max": 13}, "clocks.max"),
            ({"text": "x" * 401}, "clocks.text"),
            ({"text": "two\nlines"}, "clocks.text"),
            ({"text": "[bracket]"}, "clocks.text"),
        ],
    )
    def test_out_of_range(self, clocks: dict[str, Any], path: str) -> None:
        """Sizes are 1–6 distinct numbers of 2–12; max is 1–12; text is one safe line ≤ 400."""
        assert paths(with_changes(clocks=clocks)) == [path]

    def test_limits_themselves_are_allowed(self) -> None:
        """The edges of every range are accepted."""
        clocks = {"sizes": [2, 3, 4, 5, 6, 12], "max": 12, "text": "x" * 400}
        assert load_ruleset(with_changes(clocks=clocks)).clocks is not None


SYMBOL_DICE: list[dict[str, Any]] = [
    {"id": "hope", "label": "Hope", "faces": [[], ["s"]]},
    {"id": "dread", "label": "Dread", "faces": [[], ["f"]]},
]

KIND_KEYS: dict[str, dict[str, Any]] = {
    "dice-sum": {"dice": {"count": 1, "sides": 20}},
    "dice-pool": {"target": {"default": 7, "min": 7, "max": 7}},
    "dice-highest": {},
    "roll-against": {"dice": {"count": 1, "sides": 20}},
    "symbol-pool": {
        "symbols": [
            {"id": "s", "label": "Success"},
            {"id": "f", "label": "Failure", "cancels": "s"},
        ],
        "dice": SYMBOL_DICE,
        "success": {"symbol": "s"},
        "pool": {"die": "hope"},
    },
}
"""The least each kind needs beside the shared keys (the kinds' rules: test_resolution.py)."""


class TestResolutionKind:
    @pytest.mark.parametrize("kind", sorted(KIND_KEYS))
    def test_the_five_kinds(self, kind: str) -> None:
        """The five resolution kinds of 000 are accepted at the top level."""
        data = with_changes()
        shared = {key: value for key, value in data["resolution"].items() if key != "dice"}
        data["resolution"] = {**shared, "kind": kind, **KIND_KEYS[kind]}
        assert load_ruleset(data).resolution_kind == kind

    def test_unknown_or_missing_kind(self) -> None:
        """Any other kind, or none, is refused at resolution.kind."""
        data = with_changes()
        data["resolution"] = {**data["resolution"], "kind": "d6-tower"}
        assert paths(data) == ["resolution.kind"]
        del data["resolution"]["kind"]
        assert paths(data) == ["resolution.kind"]


class TestGm:
    def test_reference_gm_sections_load(self) -> None:
        """The reference rulesets' gm sections are valid and typed."""
        ruleset = load_ruleset(REFERENCE_RULESETS / "gravewatch.json")
        assert ruleset.gm_text.check_guidance and ruleset.gm_text.sheet_summary.fields == ["post"]

    @pytest.mark.parametrize(
        ("gm", "path"),
        [
            ({"checkGuidance": "Roll [dice]"}, "gm.checkGuidance"),
            ({"checkGuidance": "ok", "sheetGuidance": "{{char}} rolls"}, "gm.sheetGuidance"),
            ({"checkGuidance": "x" * 1501}, "gm.checkGuidance"),
            ({"checkGuidance": "ok", "opposition": "dealer"}, "gm.opposition"),
            ({"checkGuidance": "ok", "tone": "grim"}, "gm.tone"),
            ({"sheetSummary": {"fields": ["nope"]}}, "gm.sheetSummary.fields.0"),
            ({"sheetSummary": {"derived": ["nope"]}}, "gm.sheetSummary.derived.0"),
            (
                {"sheetSummary": {"lists": [{"list": "nope", "nameColumn": "name"}]}},
                "gm.sheetSummary.lists.0.list",
            ),
        ],
    )
    def test_gm_is_strict_and_prompt_safe(self, gm: dict[str, Any], path: str) -> None:
        """gm takes only its keys, prompt-safe text of at most 1,500, and real summary entries."""
        assert paths(with_changes(gm=gm)) == [path]

    def test_missing_check_guidance_is_allowed(self) -> None:
        """Without checkGuidance the GM gets the built-in paragraph (002: it only replaces it)."""
        assert load_ruleset(with_changes(gm={})).gm_text.check_guidance is None
