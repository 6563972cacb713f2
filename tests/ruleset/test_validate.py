"""Import validation: each invalid ruleset in fixtures/rulesets/invalid/ fails at its paths."""

from __future__ import annotations

import json
from typing import Any

import pytest

from gmtags import RulesetError, load_ruleset
from gmtags.ruleset.validate import PASSES, READS
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
    def test_every_pass_says_what_it_reads(self) -> None:
        """Each pass is listed once, in order, with the sections it reads."""
        assert len(set(PASSES)) == len(PASSES) > 15
        assert set(READS) == set(PASSES)

    def test_a_shape_error_hides_no_rule_problem_elsewhere(self) -> None:
        """A shape error in one section and a rule problem in another are reported in one round;
        the passes reading the broken section do not run (they would read a stand-in)."""
        data = json.loads((FIXTURES / "rulesets" / "sheet-base.json").read_text())
        data["rests"] = [{"id": 7}]  # a shape error
        data["sheet"]["advancement"] = {"fields": ["nope"]}  # a rule problem
        with pytest.raises(RulesetError) as caught:
            load_ruleset(data)
        paths = {problem.path for problem in caught.value.problems}
        assert "sheet.advancement.fields.0" in paths
        assert any(path.startswith("rests.0") for path in paths)

    def test_a_broken_sheet_leaves_the_passes_that_do_not_read_it(self) -> None:
        """With the sheet broken, only the passes that never read the sheet run."""
        data = json.loads((FIXTURES / "rulesets" / "sheet-base.json").read_text())
        data["sheet"]["version"] = "one"
        with pytest.raises(RulesetError) as caught:
            load_ruleset(data)
        assert [p.path for p in caught.value.problems] == ["sheet.version"]

    def test_base_fixture_is_valid(self) -> None:
        """The base the invalid fixtures are built from imports cleanly."""
        assert load_ruleset(FIXTURES / "rulesets" / "sheet-base.json").id == "sheet-base"
