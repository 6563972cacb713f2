"""gmtags/ruleset/load.py under hostile files: a `RulesetError` naming the place, nothing else.

Issue 11: nesting thousands deep, integers of thousands of digits, `NaN` and
`Infinity`, files over 256 KiB — through `load_ruleset` and `gmtags validate`.
SPEC §1 and §8: a ruleset whose `id` (or any key) has the wrong JSON type raises
`RulesetError` with its path, never `TypeError`, `KeyError` or `RecursionError`.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gmtags import RulesetError, load_ruleset
from gmtags.cli import main
from gmtags.errors import Problem
from tests.conftest import FIXTURES, Hostile, hostile_files
from tests.json_values import replaced_somewhere

BASE_TEXT = (FIXTURES / "rulesets" / "clocks-default.json").read_text(encoding="utf-8")
BASE: dict[str, Any] = json.loads(BASE_TEXT)
KIB_256 = 256 * 1024


def with_version(raw: str) -> str:
    """The base ruleset's text with `version` spelled as `raw`, on a line of its own."""
    data = {key: value for key, value in BASE.items() if key != "version"}
    head = json.dumps(data, indent=2)[:-2]
    return f'{head},\n  "version": {raw}\n}}\n'


# name -> (file text, what the message says, where: "line L, column C" or None)
HOSTILE: dict[str, tuple[str, str, str | None]] = {
    "100,000 [": ("[" * 100_000, "nested deeper than 100", "line 1, column 101"),
    "deep inside a key": (
        '{"notes": ' + "[" * 50_000 + "]" * 50_000 + "}",
        "nested deeper than 100",
        "line 1, column 110",
    ),
    "5,000-digit integer": (with_version("9" * 5_000), "an integer of 5000 digits", None),
    "negative 4,400 digits": (with_version("-" + "1" * 4_400), "an integer of 4400 digits", None),
    "NaN": (with_version("NaN"), "NaN is not allowed", None),
    "Infinity": (with_version("Infinity"), "Infinity is not allowed", None),
    "-Infinity": (with_version("-Infinity"), "-Infinity is not allowed", None),
    "1e999": (with_version("1e999"), "too large to hold", None),
}


def version_place(text: str) -> str:
    """Where the `version` value starts in `with_version` text."""
    line = text.count("\n", 0, text.rindex('"version"')) + 1
    return f"line {line}, column 14"


def refused(path: Path) -> Problem:
    """The one problem `load_ruleset` reports for `path`."""
    with pytest.raises(RulesetError) as caught:
        load_ruleset(path)
    (problem,) = caught.value.problems
    return problem


hostile = hostile_files(HOSTILE, "hostile.json")


class TestHostileFiles:
    def test_refused_at_its_place(self, hostile: Hostile) -> None:
        """Each hostile file is one `RulesetError` at `(file)`, with the line and column."""
        problem = refused(hostile.file)
        assert problem.path == "(file)"
        assert hostile.message in problem.message
        assert (hostile.place or version_place(hostile.text)) in problem.message

    def test_21_digits_read_22_refused(self, tmp_path: Path) -> None:
        """An integer is read up to 21 digits (JSON.stringify's longest) and refused past it."""
        file = tmp_path / "long.json"
        file.write_text(with_version("1" * 22), encoding="utf-8")
        assert "an integer of 22 digits" in refused(file).message
        file.write_text(with_version("1" * 21), encoding="utf-8")
        assert load_ruleset(file).version == int("1" * 21)

    def test_larger_than_256_kib_is_refused_before_parsing(self, tmp_path: Path) -> None:
        """SCHEMA-NOTES §1: a ruleset file is at most 256 KiB; one byte more is refused unread."""
        file = tmp_path / "big.json"
        file.write_bytes(b"[" * (KIB_256 + 1))  # would be "nested too deep" if it were parsed
        assert refused(file) == Problem("(file)", "the ruleset file is larger than 256 KiB")

    def test_exactly_256_kib_loads(self, tmp_path: Path) -> None:
        """A valid ruleset padded to exactly 256 KiB still imports."""
        raw = BASE_TEXT.encode("utf-8")
        file = tmp_path / "full.json"
        file.write_bytes(raw + b" " * (KIB_256 - len(raw)))
        assert file.stat().st_size == KIB_256
        assert load_ruleset(file).id == BASE["id"]

    def test_not_utf8_is_a_ruleset_error(self, tmp_path: Path) -> None:
        """A file that is not UTF-8 is a `RulesetError` naming the byte, not a `ValueError`."""
        file = tmp_path / "latin1.json"
        file.write_bytes(b'{"name": "caf\xe9"}')
        assert refused(file) == Problem("(file)", "not UTF-8 text at byte 13")


class TestHostileObjects:
    def test_deep_dict_is_refused_at_its_path(self) -> None:
        """`load_ruleset(dict)` nested 100,000 deep reports where, never `RecursionError`."""
        deep: dict[str, Any] = {}
        for _ in range(100_000):
            deep = {"x": deep}
        with pytest.raises(RulesetError) as caught:
            load_ruleset({**BASE, "notes": deep})
        (problem,) = caught.value.problems
        assert problem.path == ".".join(["notes", *["x"] * 99])
        assert problem.message == "nested deeper than 100 arrays and objects"

    def test_deep_list_is_refused_at_its_path(self) -> None:
        """Lists count as nesting too; the path names their indexes."""
        deep: list[Any] = []
        for _ in range(100_000):
            deep = [deep]
        with pytest.raises(RulesetError) as caught:
            load_ruleset({**BASE, "notes": deep})
        assert caught.value.problems[0].path == ".".join(["notes", *["0"] * 99])

    def test_every_number_no_file_could_hold_is_listed(self) -> None:
        """NaN, infinities and a 5,000-digit integer in a dict are each refused at their path."""
        data = {**BASE, "version": 10**5_000, "extra": [float("nan"), {"y": float("-inf")}]}
        with pytest.raises(RulesetError) as caught:
            load_ruleset(data)
        assert sorted(problem.path for problem in caught.value.problems) == [
            "extra.0",
            "extra.1.y",
            "version",
        ]


class TestValidateCommand:
    def test_exit_1_with_one_clear_message(self, hostile: Hostile) -> None:
        """`gmtags validate` on a hostile file: exit 1, the reason at (file), no traceback."""
        result = CliRunner().invoke(main, ["validate", str(hostile.file)])
        assert result.exit_code == 1
        assert isinstance(result.exception, SystemExit)
        assert result.stderr.startswith(f"gmtags: ruleset {hostile.file} is invalid:\n  (file): ")
        assert hostile.message in result.stderr and "Traceback" not in result.output

    def test_too_large(self, tmp_path: Path) -> None:
        """`gmtags validate` on a file over 256 KiB says so and exits 1."""
        file = tmp_path / "big.json"
        file.write_text(BASE_TEXT + " " * KIB_256, encoding="utf-8")
        result = CliRunner().invoke(main, ["validate", str(file)])
        assert result.exit_code == 1
        assert "(file): the ruleset file is larger than 256 KiB" in result.stderr


BUNDLED: dict[str, Any] = {
    str(path.relative_to(FIXTURES / "rulesets")): json.loads(path.read_text(encoding="utf-8"))
    for path in sorted((FIXTURES / "rulesets").rglob("*.json"))
    if "invalid" not in path.parts
}
"""Every ruleset the fixtures hold that imports (the reference rulesets among them)."""


class TestWrongTypes:
    @pytest.mark.parametrize("value", [["x"], {"id": "x"}, 5, 2.5, True, None])
    def test_an_id_of_the_wrong_type(self, value: Any) -> None:
        """SPEC §8: "a ruleset whose `id` (or any key) has the wrong type raises `RulesetError`
        with its path" (an id that is a list was a `TypeError`: unhashable)."""
        with pytest.raises(RulesetError) as caught:
            load_ruleset({**BASE, "id": value})
        assert [problem.path for problem in caught.value.problems] == ["id"]

    @pytest.mark.parametrize("key", sorted(BASE))
    @pytest.mark.parametrize("value", [[1], {"x": 1}, 5, "x"])
    def test_any_top_level_key_of_the_wrong_type(self, key: str, value: Any) -> None:
        """Each top-level key given a value of another JSON type is refused at a path under it."""
        if type(value) is type(BASE[key]):
            return
        with pytest.raises(RulesetError) as caught:
            load_ruleset({**BASE, key: value})
        assert any(problem.path.startswith(key) for problem in caught.value.problems)

    @pytest.mark.parametrize("data", [[BASE], None, 5, True], ids=["list", "null", "int", "bool"])
    def test_a_document_that_is_no_object(self, data: Any) -> None:
        """A JSON value that is no object, handed over as data, is one problem at the root."""
        with pytest.raises(RulesetError) as caught:
            load_ruleset(data)
        assert [str(p) for p in caught.value.problems] == [
            "(root): a ruleset must be a JSON object"
        ]

    def test_an_item_tag_id_of_the_wrong_type(self) -> None:
        """`items.tags` are kept as written (SCHEMA-NOTES §10 counts them only), so a tag whose
        id is a list is no tag: what names it is refused there, never an unhashable `TypeError`
        while `itemStat` is checked against the tags."""
        data = copy.deepcopy(BUNDLED["sheets/satchel.json"])
        data["items"]["tags"][0]["id"] = ["x"]
        with pytest.raises(RulesetError) as caught:
            load_ruleset(data)
        assert [str(problem) for problem in caught.value.problems] == [
            "sheet.derived.2.of.0.itemStat.tag: items declares no tag 'shot'",
            "catalogs.0.entries.4.item.tags.0: names no tag 'shot'",
            "catalogs.0.entries.5.item.tags.0: names no tag 'shot'",
        ]

    @pytest.mark.parametrize("value", [["x"], {"a": 1}, 5])
    def test_validate_names_the_path(self, tmp_path: Path, value: Any) -> None:
        """`gmtags validate` on a file whose `id` has the wrong type: exit 1, `id` named, no
        traceback."""
        file = tmp_path / "wrong.json"
        file.write_text(json.dumps({**BASE, "id": value}), encoding="utf-8")
        result = CliRunner().invoke(main, ["validate", str(file)])
        assert result.exit_code == 1 and isinstance(result.exception, SystemExit)
        assert "\n  id: " in result.stderr and "Traceback" not in result.output

    @settings(max_examples=250, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(data=st.data(), name=st.sampled_from(sorted(BUNDLED)))
    def test_any_value_anywhere_in_a_bundled_ruleset(self, data: st.DataObject, name: str) -> None:
        """A bundled ruleset with the value at any key path replaced by any JSON value (or by
        one of its own ids and numbers) imports or raises `RulesetError` with paths, nothing
        else (SPEC §1: `load_ruleset` raises only `RulesetError` on bad input)."""
        _, changed = data.draw(replaced_somewhere(BUNDLED[name]))
        try:
            load_ruleset(changed)
        except RulesetError as error:
            assert error.problems
