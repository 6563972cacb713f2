"""The builder samples the import tests start from, and how they read a refusal."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest

from gmtags import RulesetError, load_ruleset
from tests.conftest import FIXTURES

BUILDERS = FIXTURES / "rulesets" / "builder"

_FIVE_E: dict[str, Any] = json.loads((BUILDERS / "5e-builder.json").read_text(encoding="utf-8"))
_POINTS: dict[str, Any] = json.loads((BUILDERS / "points-builder.json").read_text(encoding="utf-8"))

AT = "sheet.builder"


def five_e() -> dict[str, Any]:
    """A fresh copy of the 5e builder sample (race, subrace, class, … gear, hit points)."""
    return copy.deepcopy(_FIVE_E)


def points() -> dict[str, Any]:
    """A fresh copy of the point-based sample (allocate, spend, pools, profiles, …)."""
    return copy.deepcopy(_POINTS)


def builder(data: dict[str, Any]) -> dict[str, Any]:
    """The `sheet.builder` object of a ruleset."""
    found: dict[str, Any] = data["sheet"]["builder"]
    return found


def step(data: dict[str, Any], step_id: str) -> dict[str, Any]:
    """The step with this id."""
    return next(s for s in builder(data)["steps"] if s["id"] == step_id)


def place(data: dict[str, Any], step_id: str) -> int:
    """The position of the step with this id."""
    return next(i for i, s in enumerate(builder(data)["steps"]) if s["id"] == step_id)


def catalog(data: dict[str, Any], catalog_id: str) -> tuple[int, dict[str, Any]]:
    """A catalog's position and its JSON."""
    return next((i, c) for i, c in enumerate(data["catalogs"]) if c["id"] == catalog_id)


def entry(data: dict[str, Any], catalog_id: str, entry_id: str) -> tuple[str, dict[str, Any]]:
    """An entry's JSON path and its JSON."""
    at, found = catalog(data, catalog_id)
    item = next(i for i, e in enumerate(found["entries"]) if e["id"] == entry_id)
    return f"catalogs.{at}.entries.{item}", found["entries"][item]


def refused(data: dict[str, Any]) -> list[str]:
    """The sorted paths a ruleset is refused at (it must be refused)."""
    with pytest.raises(RulesetError) as caught:
        load_ruleset(data)
    return sorted(problem.path for problem in caught.value.problems)


def messages(data: dict[str, Any]) -> dict[str, str]:
    """Each refused path with its message."""
    with pytest.raises(RulesetError) as caught:
        load_ruleset(data)
    return {problem.path: problem.message for problem in caught.value.problems}
