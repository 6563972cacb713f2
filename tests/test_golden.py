"""The golden cases under fixtures/cases: every expectation of every case."""

from __future__ import annotations

import json

import pytest

from gmtags import load_ruleset, process
from gmtags.checks.kinds import KINDS
from gmtags.state.snapshot import load_snapshot
from gmtags.testing import GoldenCase, all_cases, read_cases
from tests.conftest import FIXTURES

CASES = all_cases(FIXTURES / "cases")
SKILL_CHECK = FIXTURES / "cases" / "skill_check"
CONTEXTUAL = "contextual.md"
"""The `apply=` cases: contextual entries, whatever kind the ruleset rolls with."""


def test_cases_exist() -> None:
    """The golden folder holds cases, so the parametrized test below cannot pass empty."""
    assert len(CASES) >= 15


def test_one_skill_check_file_per_resolution_kind() -> None:
    """Each kind has its own file of at least two cases, and each case rolls with that kind."""
    expected = {f"{kind.replace('-', '_')}.md" for kind in KINDS} | {CONTEXTUAL}
    assert {path.name for path in SKILL_CHECK.glob("*.md")} == expected
    for kind in KINDS:
        cases = read_cases(SKILL_CHECK / f"{kind.replace('-', '_')}.md")
        assert len(cases) >= 2, kind
        for case in cases:
            ruleset = json.loads((FIXTURES / "rulesets" / case.meta["ruleset"]).read_text())
            assert ruleset["resolution"]["kind"] == kind, case.id


@pytest.mark.parametrize("case", CASES, ids=[case.id for case in CASES])
def test_golden(case: GoldenCase) -> None:
    """Processing the case's input gives exactly the expected receipts, display and state."""
    ruleset = load_ruleset(FIXTURES / "rulesets" / case.meta["ruleset"])
    start = load_snapshot(case.json_section("snapshot")) if "snapshot" in case.sections else None
    result = process(case.sections["input"], ruleset, start, seed=case.seed)
    assert "input" in case.sections and "text" in case.sections
    assert result.text == case.sections["text"]
    if "display" in case.sections:
        assert result.display == case.sections["display"]
    if "cards" in case.sections:
        assert result.cards == case.sections["cards"]
    if "snapshot after" in case.sections:
        assert result.snapshot.to_json_dict() == case.json_section("snapshot after")
        assert json.loads(result.snapshot.to_json()) == case.json_section("snapshot after")
