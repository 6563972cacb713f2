"""The golden cases under fixtures/cases: every expectation of every case."""

from __future__ import annotations

import json

import pytest

from gmtags import load_ruleset, process
from gmtags.state.snapshot import load_snapshot
from gmtags.testing import GoldenCase, all_cases
from tests.conftest import FIXTURES

CASES = all_cases(FIXTURES / "cases")


def test_cases_exist() -> None:
    """The golden folder holds cases, so the parametrized test below cannot pass empty."""
    assert len(CASES) >= 15


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
