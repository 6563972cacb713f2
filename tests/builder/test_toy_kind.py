"""A new step kind is one file and one registry line: the tests' own `oath` kind
(`toy_kind.py`), registered with `register(OATH)`, is read by the ruleset model (its shape
rule and its reference to the sheet checked at their paths), built, and used from the
command line, the terminal wizard and the builder page, none of which names it."""

from __future__ import annotations

import copy
import inspect
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator
from jsonschema.exceptions import best_match

from gmtags.builder.build import build_character
from gmtags.builder.steps import KINDS, register, unregister
from gmtags.builder.wizard import Wizard
from gmtags.cli import main
from gmtags.errors import RulesetError
from gmtags.ruleset.builder.steps import STEPS
from gmtags.ruleset.load import load_ruleset
from gmtags.ruleset.model import Ruleset
from gmtags.ruleset.schema import ruleset_schema
from tests.builder.toy_kind import OATH
from tests.conftest import FIXTURES, invoke

OATH_STEP = {
    "id": "oath",
    "label": "Oath",
    "kind": "oath",
    "field": "occupation",
    "oaths": [{"id": "honour", "label": "By my honour"}, {"id": "blood", "label": "By blood"}],
}


def toy_data(**step: Any) -> dict[str, Any]:
    """The CoC sample builder with an `oath` step first."""
    data = json.loads((FIXTURES / "rulesets/builder/coc-builder.json").read_text("utf-8"))
    data["sheet"]["builder"]["steps"].insert(0, {**OATH_STEP, **step})
    return data


@pytest.fixture
def oath() -> Iterator[None]:
    register(OATH)  # the one registry line
    yield
    unregister("oath")


@pytest.fixture
def ruleset(oath: None) -> Ruleset:
    return load_ruleset(toy_data())


class TestTheTable:
    def test_every_kind_the_model_reads_is_a_kind_the_builder_runs(self) -> None:
        """A kind the ruleset model accepts always builds, and the walk runs no kind a
        ruleset cannot hold: the two tables are one."""
        assert set(KINDS) == set(STEPS)
        assert all(STEPS[name] is kind.model for name, kind in KINDS.items())

    def test_each_runner_takes_the_walk_and_its_step(self) -> None:
        for name, kind in KINDS.items():
            assert len(inspect.signature(kind.run).parameters) == 2, name

    def test_unregistered_the_kind_is_unknown(self) -> None:
        with pytest.raises(RulesetError) as refused:
            load_ruleset(toy_data())
        assert any(
            p.path == "sheet.builder.steps.0.kind" and "must be one of" in p.message
            for p in refused.value.problems
        )


class TestTheModel:
    def test_its_shape_rule_is_checked_at_its_path(self, oath: None) -> None:
        twice = [{"id": "honour", "label": "A"}, {"id": "honour", "label": "B"}]
        with pytest.raises(RulesetError) as refused:
            load_ruleset(toy_data(oaths=twice))
        found = [(p.path, p.message) for p in refused.value.problems]
        assert found == [("sheet.builder.steps.0.oaths", "two oaths share an id")]

    def test_its_reference_to_the_sheet_is_checked_at_its_path(self, oath: None) -> None:
        with pytest.raises(RulesetError) as refused:
            load_ruleset(toy_data(field="luck"))
        found = [(p.path, p.message) for p in refused.value.problems]
        assert found == [("sheet.builder.steps.0.field", "'luck' is not a text field of the sheet")]

    def test_the_json_schema_describes_it(self, oath: None) -> None:
        """`gmtags schema` made with the kind registered: an editor accepts the oath step and
        underlines a missing oath list at the step (the schema is read from the table)."""
        schema = Draft202012Validator(ruleset_schema())
        assert not list(schema.iter_errors(toy_data()))
        broken = toy_data()
        del broken["sheet"]["builder"]["steps"][0]["oaths"]
        found = best_match(schema.iter_errors(broken))
        assert found is not None and list(found.absolute_path) == ["sheet", "builder", "steps", 0]
        assert found.message == "'oaths' is a required property"
        unregister("oath")
        assert not list(schema.iter_errors(toy_data()))  # made before: it knows the oath
        assert list(Draft202012Validator(ruleset_schema()).iter_errors(toy_data()))
        register(OATH)

    def test_the_step_is_dumped_as_written(self, ruleset: Ruleset) -> None:
        builder = ruleset.sheet.builder_model
        assert builder is not None
        dumped = builder.model_dump(mode="json", by_alias=True, exclude_none=True)
        assert dumped["steps"][0] == OATH_STEP


class TestTheBuild:
    def test_the_oath_sworn_is_written_and_the_badge_waits_for_one(self, ruleset: Ruleset) -> None:
        blank = build_character(ruleset, {"v": 1, "seed": 1})
        assert blank.pending["oath"] == 1
        sworn = build_character(
            ruleset, {"v": 1, "seed": 1, "steps": {"oath": {"picks": ["honour", "blood"]}}}
        )
        assert sworn.card["fields"]["occupation"] == "By blood"
        assert sworn.pending["oath"] == 0
        entry = next(s for s in sworn.steps if s["id"] == "oath")
        assert entry["active"] == ["blood"]
        assert entry["inactive"] == [{"answer": "honour", "reason": "replaced by a later oath"}]

    def test_its_gate_reads_the_finished_character(self, oath: None) -> None:
        """An oath that needs a retainer is not offered while the finished character has
        none, though the retainers step comes after the oath: the kind's own gate joins the
        build's reads of the finished sheet, and the build is made again with it."""
        needs = [*OATH_STEP["oaths"], {"id": "kin", "label": "By my kin", "needs": "retainers"}]
        ruleset = load_ruleset(toy_data(oaths=needs))
        alone = {"v": 1, "seed": 1, "steps": {"oath": {"picks": ["kin"]}}}
        res = build_character(ruleset, alone)
        entry = next(s for s in res.steps if s["id"] == "oath")
        assert entry["offered"] == ["honour", "blood"]
        assert entry["inactive"] == [{"answer": "kin", "reason": "needs a row in retainers"}]
        assert "occupation" not in res.card.get("fields", {})
        alone["steps"]["retainers"] = {"rows": [{"name": "Bob"}]}
        res = build_character(ruleset, alone)
        assert res.card["fields"]["occupation"] == "By my kin"
        assert next(s for s in res.steps if s["id"] == "oath")["active"] == ["kin"]

    def test_a_list_it_needs_is_checked_at_its_path(self, oath: None) -> None:
        needs = [{"id": "kin", "label": "By my kin", "needs": "nowhere"}]
        with pytest.raises(RulesetError) as refused:
            load_ruleset(toy_data(oaths=needs))
        found = [(p.path, p.message) for p in refused.value.problems]
        assert found == [
            ("sheet.builder.steps.0.oaths.0.needs", "'nowhere' is not a list of the sheet")
        ]


class TestTheCommandLine:
    def test_character_build_writes_the_oath(self, ruleset: Ruleset, tmp_path: Path) -> None:
        (tmp_path / "r.json").write_text(json.dumps(toy_data()), "utf-8")
        answers = {"v": 1, "seed": 3, "steps": {"oath": {"picks": ["honour"]}}}
        (tmp_path / "a.json").write_text(json.dumps(answers), "utf-8")
        ran = invoke(
            main, "character", "build", "--ruleset", tmp_path / "r.json",
            "--answers", tmp_path / "a.json",
        )  # fmt: skip
        assert ran.returncode == 0, ran.stderr
        assert json.loads(ran.stdout)["fields"]["occupation"] == "By my honour"


class TestTheWizard:
    def test_the_wizard_draws_the_view_and_a_number_swears(self, ruleset: Ruleset) -> None:
        w = Wizard(ruleset, seed=5)
        screen = w.start()
        assert "Oath (oath)" in screen
        assert "  Swear one oath\n" in screen
        assert "   1. [ ] By my honour" in screen and "   2. [ ] By blood" in screen
        after = w.feed("2")
        assert "   2. [x] By blood" in after
        assert w.answers["steps"]["oath"] == {"picks": ["blood"]}
        assert w.result.card["fields"]["occupation"] == "By blood"
        assert w.feed("3").startswith("no entry 3 here (1-2)")
        w.feed("u")
        assert "oath" not in w.answers.get("steps", {})


def test_the_answers_stay_a_copy(ruleset: Ruleset) -> None:
    """The view reads the build; drawing it changes no answer."""
    answers = {"v": 1, "seed": 2, "steps": {"oath": {"picks": ["blood"]}}}
    kept = copy.deepcopy(answers)
    Wizard(ruleset, answers=answers).start()
    assert answers == kept
