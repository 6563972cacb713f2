"""gmtags/state/snapshot.py and the `--state` loader under hostile files; strict JSON written.

Issue 11: deep nesting, `NaN`/`Infinity` and huge integers in a snapshot are a
`SnapshotError` with a path (exit 1 on the command line), and every snapshot
gmtags writes (`Snapshot.to_json`, `--state-out`) is strict JSON.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from pydantic import ValidationError

from gmtags import Snapshot
from gmtags.cli import main
from gmtags.errors import Problem, SnapshotError
from gmtags.state.snapshot import load_snapshot
from tests.conftest import FIXTURES, Hostile, hostile_files

RULESET = str(FIXTURES / "rulesets" / "clocks-default.json")

# name -> (file text, what the message says, "line L, column C")
HOSTILE: dict[str, tuple[str, str, str | None]] = {
    "100,000 [": ("[" * 100_000, "nested deeper than 100", "line 1, column 101"),
    "deep in a card": (
        '{"gameCharacterCards": {"Bram": {"items": ' + "[" * 100_000 + "]" * 100_000 + "}}}",
        "nested deeper than 100",
        "line 1, column 140",
    ),
    "5,000-digit integer": (
        '{"rulesetLive": {"bram": {"pools": {"hp": ' + "9" * 5_000 + "}}}}",
        "an integer of 5000 digits",
        "line 1, column 43",
    ),
    "NaN": ('{\n  "gameCharacterCards": {"Bram": {"abilities": {"grit": NaN}}}}', "NaN", "line 2"),
    "Infinity": ('{"rulesetClocks": [{"name": "A", "size": Infinity}]}', "Infinity", "column 42"),
    "-Infinity": ('{"x": -Infinity}', "-Infinity is not allowed", "line 1, column 7"),
    "1e999": ('{"x": 1e999}', "the number 1e999 is too large to hold", "line 1, column 7"),
}


def strict(text: str) -> Any:
    """Parse `text` refusing what strict JSON has not (NaN, Infinity, -Infinity)."""

    def refuse(constant: str) -> Any:
        raise AssertionError(f"{constant} in output that must be strict JSON")

    return json.loads(text, parse_constant=refuse)


hostile = hostile_files(HOSTILE, "state.json")


class TestHostileFiles:
    def test_refused_at_its_place(self, hostile: Hostile) -> None:
        """Each hostile snapshot file is one `SnapshotError` at `(file)`, line and column."""
        with pytest.raises(SnapshotError) as caught:
            load_snapshot(hostile.file)
        (problem,) = caught.value.problems
        assert problem.path == "(file)"
        assert hostile.place is not None
        assert hostile.message in problem.message and hostile.place in problem.message

    def test_not_utf8_is_a_snapshot_error(self, tmp_path: Path) -> None:
        """A snapshot file that is not UTF-8 is a `SnapshotError`, not a `UnicodeDecodeError`."""
        file = tmp_path / "state.json"
        file.write_bytes(b'{"x": "\xff"}')
        with pytest.raises(SnapshotError) as caught:
            load_snapshot(file)
        assert caught.value.problems == (Problem("(file)", "not UTF-8 text at byte 7"),)


class TestHostileObjects:
    def test_deep_dict_is_refused_at_its_path(self) -> None:
        """`load_snapshot(dict)` nested 100,000 deep reports where, never `RecursionError`."""
        deep: list[Any] = []
        for _ in range(100_000):
            deep = [deep]
        with pytest.raises(SnapshotError) as caught:
            load_snapshot({"gameCharacterCards": {"Bram": {"items": deep}}})
        (problem,) = caught.value.problems
        assert problem.path == ".".join(["gameCharacterCards", "Bram", "items", *["0"] * 97])
        assert problem.message == "nested deeper than 100 arrays and objects"

    @pytest.mark.parametrize(
        "value", [float("nan"), float("inf"), -(10**5_000)], ids=["nan", "inf", "-10**5000"]
    )
    def test_numbers_no_file_holds_are_refused(self, value: float) -> None:
        """NaN, infinities and a 5,000-digit integer passed as data are refused at their path."""
        with pytest.raises(SnapshotError) as caught:
            load_snapshot({"gameCharacterCards": {"Bram": {"abilities": {"grit": value}}}})
        assert [p.path for p in caught.value.problems] == ["gameCharacterCards.Bram.abilities.grit"]

    def test_the_model_holds_only_finite_numbers(self) -> None:
        """A snapshot is written as strict JSON, so its numbers are never NaN or infinite."""
        with pytest.raises(ValidationError):
            Snapshot.model_validate(
                {"gameCharacterCards": {"Bram": {"bonuses": {"x": float("inf")}}}}
            )


class TestStateOption:
    def test_exit_1_with_the_reason(self, hostile: Hostile) -> None:
        """`gmtags process --state` on a hostile file: exit 1 and the reason at (file)."""
        args = ["process", "--ruleset", RULESET, "--state", str(hostile.file)]
        result = CliRunner().invoke(main, args)
        assert result.exit_code == 1 and isinstance(result.exception, SystemExit)
        assert result.stderr.startswith(f"gmtags: state {hostile.file} is invalid:\n  (file): ")
        assert hostile.message in result.stderr


class TestStrictOutput:
    def test_to_json_is_strict_and_escapes_lone_surrogates(self) -> None:
        """`Snapshot.to_json` is strict JSON; a lone surrogate half goes out as its escape."""
        snapshot = Snapshot.model_validate(
            {"gameCharacterCards": {"Bram": {"fields": {"mood": "grim \ud83d"}}}, "note": "\ude00"}
        )
        text = snapshot.to_json(indent=2)
        text.encode("utf-8")
        assert "\\ud83d" in text and "\\ude00" in text
        assert Snapshot.model_validate(strict(text)) == snapshot

    def test_to_json_never_writes_nan(self) -> None:
        """A NaN slipped into an unknown key never reaches the text as `NaN`."""
        snapshot = Snapshot.model_validate({"note": float("nan"), "more": [float("-inf")]})
        assert strict(snapshot.to_json()) == {"note": None, "more": [None]}

    def test_state_out_is_strict_json(self, tmp_path: Path) -> None:
        """`--state-out` writes strict UTF-8 JSON, even from a state holding a lone surrogate."""
        state = tmp_path / "state.json"
        state.write_text(
            '{"gameCharacterCards": {"Bram": {"abilities": {"grit": 1.5},'
            ' "fields": {"mood": "\\ud83d"}}}}',
            encoding="utf-8",
        )
        out = tmp_path / "out.json"
        result = CliRunner().invoke(
            main,
            ["process", "--ruleset", RULESET, "--state", str(state), "--state-out", str(out)],
            input='[clock: name="A" size="4"]',
        )
        assert result.exit_code == 0, result.output
        data = strict(out.read_text(encoding="utf-8"))
        assert data["gameCharacterCards"]["Bram"]["fields"]["mood"] == "\ud83d"
        assert data["rulesetClocks"] == [{"name": "A", "size": 4, "filled": 0}]
