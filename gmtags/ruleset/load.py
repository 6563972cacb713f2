"""`load_ruleset`: read a ruleset file and collect every problem with its JSON path."""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Mapping
from typing import Any

from pydantic import ValidationError

from gmtags.errors import Problem, RulesetError, json_path
from gmtags.ruleset.model import Ruleset

Check = Callable[[Ruleset], list[Problem]]
"""A validation pass over a parsed ruleset; passes run in order and all run."""

CHECKS: list[Check] = []
"""Cross-reference passes, registered by the section modules as they land."""

_RESERVED_IDS = frozenset({"engine-legacy", "traditional"})


def strip_comments(value: Any, *, root: bool = True) -> Any:
    """Remove every `$comment` key at any depth, and `$schema` at the root (SCHEMA-NOTES §2)."""
    if isinstance(value, dict):
        return {
            key: strip_comments(item, root=False)
            for key, item in value.items()
            if key != "$comment" and not (root and key == "$schema")
        }
    if isinstance(value, list):
        return [strip_comments(item, root=False) for item in value]
    return value


def _read(source: str | os.PathLike[str]) -> Any:
    with open(source, encoding="utf-8") as handle:
        text = handle.read()
    try:
        return json.loads(text)
    except json.JSONDecodeError as error:
        raise RulesetError(
            [
                Problem(
                    "(file)",
                    f"not valid JSON: {error.msg} at line {error.lineno}, column {error.colno}",
                )
            ]
        ) from None


def load_ruleset(source: str | os.PathLike[str] | Mapping[str, Any]) -> Ruleset:
    """Read and validate a ruleset from a file path or an already-parsed JSON object.

    Raises `RulesetError` listing every problem (never only the first), and
    `OSError` when the file cannot be read.
    """
    data = _read(source) if isinstance(source, (str, os.PathLike)) else dict(source)
    if not isinstance(data, dict):
        raise RulesetError([Problem("(root)", "a ruleset must be a JSON object")])
    data = strip_comments(data)
    problems: list[Problem] = []
    if data.get("id") in _RESERVED_IDS:
        problems.append(Problem("id", f"'{data['id']}' is a reserved ruleset id"))
    try:
        ruleset = Ruleset.model_validate(data)
    except ValidationError as error:
        problems.extend(Problem(json_path(item["loc"]), item["msg"]) for item in error.errors())
        raise RulesetError(problems) from None
    for check in CHECKS:
        problems.extend(check(ruleset))
    if problems:
        raise RulesetError(problems)
    return ruleset
