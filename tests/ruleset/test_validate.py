"""Import validation: each invalid ruleset in fixtures/rulesets/invalid/ fails at its paths."""

from __future__ import annotations

import json
from typing import Any

import pytest

from gmtags import RulesetError, load_ruleset
from gmtags.ruleset.load import CHECKS
from gmtags.ruleset.validate import PASSES, validate
from tests.conftest import FIXTURES

INVALID = FIXTURES / "rulesets" / "invalid"
EXPECTED: dict[str, Any] = {
    name: paths
    for name, paths in json.loads((INVALID / "EXPECTED.json").read_text()).items()
    if not name.startswith("$")
}


class TestInvalidRulesets:
    def test_every_fixture_has_an_expectation(self) -> None:
        """EXPECTED.json lists exactly the invalid fixture files."""
        files = {path.name for path in INVALID.glob("*.json")} - {"EXPECTED.json"}
        assert files == set(EXPECTED)

    @pytest.mark.parametrize("name", sorted(EXPECTED))
    def test_refused_at_its_paths(self, name: str) -> None:
        """Each fixture is refused with every expected path and no other."""
        with pytest.raises(RulesetError) as caught:
            load_ruleset(INVALID / name)
        assert sorted(problem.path for problem in caught.value.problems) == sorted(EXPECTED[name])


class TestPasses:
    def test_the_passes_run_once_in_order(self) -> None:
        """Loading runs `validate` once, and it runs every pass of `PASSES`, in order."""
        assert CHECKS.count(validate) == 1
        assert len(set(PASSES)) == len(PASSES) > 15

    def test_base_fixture_is_valid(self) -> None:
        """The base the invalid fixtures are built from imports cleanly."""
        assert load_ruleset(FIXTURES / "rulesets" / "sheet-base.json").id == "sheet-base"
