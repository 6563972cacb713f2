"""The golden case reader (gmtags/testing.py): sections, fences, and the files already there."""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest

from gmtags.testing import read_cases
from tests.conftest import FIXTURES

THREE = "`" * 3
FOUR = "`" * 4
FIVE = "`" * 5


def _write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "case.md"
    path.write_text(text, encoding="utf-8")
    return path


class TestReadCases:
    def test_sections_and_meta(self, tmp_path: Path) -> None:
        """A case's title, meta lines and fenced sections are read, without final newlines."""
        path = _write(
            tmp_path,
            f"# A title\n- ruleset: clocks-default.json\n- seed: 4\n\n"
            f"## input\n{THREE}text\nline one\nline two\n{THREE}\n\n"
            f"## text\n{THREE}text\nout\n{THREE}\n",
        )
        [case] = read_cases(path)
        assert case.title == "A title"
        assert case.meta == {"ruleset": "clocks-default.json", "seed": "4"}
        assert case.seed == 4
        assert case.sections == {"input": "line one\nline two", "text": "out"}

    def test_longer_fence_holds_a_code_fence(self, tmp_path: Path) -> None:
        """A section opened with four backticks runs past lines of three, to a line of four."""
        body = f'He reads the sign.\n{THREE}\n[clock: name="Bell" tick="1"]\n{THREE}'
        path = _write(
            tmp_path,
            f"# Fenced\n- ruleset: clocks-default.json\n\n"
            f"## input\n{FOUR}text\n{body}\n{FOUR}\n\n## display\n{THREE}text\nshown\n{THREE}\n",
        )
        [case] = read_cases(path)
        assert case.sections == {"input": body, "display": "shown"}

    def test_fence_closes_only_at_the_same_length(self, tmp_path: Path) -> None:
        """A section of N backticks does not close at a line of more or fewer backticks."""
        body = f"{FOUR}\n{THREE}md\ninside\n{THREE}\n{FOUR}"
        path = _write(tmp_path, f"# Five\n\n## input\n{FIVE}\n{body}\n{FIVE}\n")
        [case] = read_cases(path)
        assert case.sections["input"] == body

    def test_three_backticks_close_at_the_first_line_of_three(self, tmp_path: Path) -> None:
        """A section of three backticks closes where it always did: the first line of three."""
        path = _write(tmp_path, f"# Three\n\n## input\n{THREE}text\na\n{FOUR}\nb\n{THREE}\nc\n")
        [case] = read_cases(path)
        assert case.sections["input"] == f"a\n{FOUR}\nb"

    @pytest.mark.parametrize(
        "path",
        sorted(
            path
            for folder in ("cases", "cards", "prompts")
            for path in (FIXTURES / folder).rglob("*.md")
        ),
        ids=lambda path: f"{path.parent.name}/{path.name}",
    )
    def test_existing_fixtures_read_as_before(self, path: Path) -> None:
        """Every golden file written for three-backtick sections reads as it did: each of
        its sections opens with exactly three backticks, and a section of three closes at
        the first line of three (the test above), which is all the old reader did."""
        lines = path.read_text(encoding="utf-8").split("\n")
        openers = [
            line
            for before, line in itertools.pairwise(lines)
            if before.startswith("## ") and line.startswith(THREE)
        ]
        assert openers and all(not line.startswith(FOUR) for line in openers)
        assert all(case.sections for case in read_cases(path))
