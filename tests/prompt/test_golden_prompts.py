"""Golden GM-prompt files: fixtures/prompts/*.md, one per fixture ruleset, side by side."""

from __future__ import annotations

import pytest

from gmtags import Snapshot, load_ruleset
from gmtags.prompt import gm_instructions
from gmtags.testing import GoldenCase, read_cases
from tests.conftest import FIXTURES

CASES = [case for path in sorted((FIXTURES / "prompts").glob("*.md")) for case in read_cases(path)]
"""One case per file at the top of fixtures/prompts (`baseline/` holds the sizes' baseline)."""


def test_every_fixture_system_has_a_prompt_file() -> None:
    """The golden prompts cover the three system fixtures and the three reference rulesets."""
    names = {case.path.stem for case in CASES}
    assert {"five-torches", "ashfall", "crows", "gravewatch", "ember-roads", "5e-2014"} <= names


@pytest.mark.parametrize("case", CASES, ids=[case.path.stem for case in CASES])
def test_golden_prompt(case: GoldenCase) -> None:
    """The system part and the turn reminder are exactly the reviewed text (rewrite them with
    `python -m tests.prompt.regen` and read the diff)."""
    ruleset = load_ruleset(FIXTURES / "rulesets" / case.meta["ruleset"])
    instructions = gm_instructions(ruleset, Snapshot.model_validate(case.json_section("snapshot")))
    assert instructions.system == case.sections["system"]
    assert instructions.reminder == case.sections["reminder"]
