"""Import validation: each invalid ruleset in fixtures/rulesets/invalid/ fails at its paths.

Each fixture says, beside what it breaks, the paths its problems are reported at:
`"$comment"` says why, `"$expected"` lists every path (none missing, none extra),
and the test takes `$expected` out before the ruleset is loaded.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from gmtags import RulesetError, load_ruleset
from gmtags.ruleset.validate import PASSES, READS
from tests.conftest import FIXTURES

INVALID = FIXTURES / "rulesets" / "invalid"
FILES = sorted(path.name for path in INVALID.glob("*.json"))


def fixture(name: str) -> tuple[dict[str, Any], list[str]]:
    """The fixture's ruleset without `$expected`, and the paths `$expected` lists."""
    data = json.loads((INVALID / name).read_text(encoding="utf-8"))
    return data, data.pop("$expected")


class TestInvalidRulesets:
    @pytest.mark.parametrize("name", FILES)
    def test_refused_at_its_paths(self, name: str) -> None:
        """Each fixture is refused with every path its `$expected` lists and no other."""
        data, expected = fixture(name)
        assert expected and "$comment" in data
        with pytest.raises(RulesetError) as caught:
            load_ruleset(data)
        assert sorted(problem.path for problem in caught.value.problems) == sorted(expected)


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

    def test_a_broken_sheet_key_leaves_the_passes_of_the_others(self) -> None:
        """A shape error in one key of the sheet hides no rule problem of another key."""
        data = json.loads((FIXTURES / "rulesets" / "sheet-base.json").read_text())
        data["sheet"]["version"] = "one"
        data["sheet"]["advancement"] = {"fields": ["nope"]}
        with pytest.raises(RulesetError) as caught:
            load_ruleset(data)
        paths = [p.path for p in caught.value.problems]
        assert paths == ["sheet.version", "sheet.advancement.fields.0"]

    def test_a_broken_sheet_leaves_the_passes_that_do_not_read_it(self) -> None:
        """With the whole sheet broken, no pass looks a name up in it (a stand-in sheet)."""
        data = json.loads((FIXTURES / "rulesets" / "sheet-base.json").read_text())
        data["sheet"] = "a sheet"
        data["gm"] = {"sheetSummary": {"fields": ["nope"]}}
        with pytest.raises(RulesetError) as caught:
            load_ruleset(data)
        assert [p.path for p in caught.value.problems] == ["sheet"]

    def test_base_fixture_is_valid(self) -> None:
        """The base the invalid fixtures are built from imports cleanly."""
        assert load_ruleset(FIXTURES / "rulesets" / "sheet-base.json").id == "sheet-base"
