"""gmtags/builder/result.py: the result entries' types say what every build writes — each
step entry, entry choice, inactive answer and ledger line of every bundled builder has the
keys its type names (required ones always), so a type and the JSON cannot drift apart."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from gmtags import build_character, load_ruleset
from gmtags.builder.result import ChoiceEntry, Inactive, LedgerLine, StepEntry
from gmtags.errors import RulesetError
from tests.conftest import FIXTURES

BUILDERS = sorted((FIXTURES / "rulesets" / "builder").glob("*.json"))
WIZARD = json.loads((FIXTURES / "answers" / "5e-half-elf-wizard.json").read_text("utf-8"))


def holds(kind: Any, found: dict[str, Any]) -> None:
    keys = set(kind.__required_keys__)
    assert keys <= set(found) <= keys | set(kind.__optional_keys__), (kind.__name__, found)


@pytest.mark.parametrize("path", BUILDERS, ids=lambda p: p.stem)
def test_every_entry_has_the_keys_of_its_type(path: Path) -> None:
    try:
        ruleset = load_ruleset(path)
    except RulesetError:
        pytest.skip("refused on purpose")
    answers = WIZARD if path.stem == "5e-builder" else {"v": 1, "seed": 9}
    party = ruleset.sheet.builder_model is None  # a party sheet's builder alone
    res = build_character(ruleset, answers, party=party)
    for entry in res.steps:
        holds(StepEntry, dict(entry))
        for choice in entry["choices"]:
            holds(ChoiceEntry, dict(choice))
            for kept in choice["inactive"]:
                holds(Inactive, dict(kept))
        for kept in entry["inactive"]:
            holds(Inactive, dict(kept))
    for line in res.ledger:
        holds(LedgerLine, dict(line))


def test_a_step_s_own_keys_are_those_of_its_kind() -> None:
    """A roll step says what it rolled and an initialize step what it writes; no other kind
    adds a key."""
    ruleset = load_ruleset(FIXTURES / "rulesets" / "builder" / "coc-builder.json")
    res = build_character(ruleset, {"v": 1, "seed": 9})
    extra = {e["id"]: set(e) - set(StepEntry.__required_keys__) for e in res.steps}
    assert extra == {
        "characteristics": set(),
        "luck": {"rolls"},
        "improvement": {"rolls"},
        "potential": {"rolls"},
        "wealth": {"rolls"},
        "retainers": set(),
        "start": {"writes"},
    }
