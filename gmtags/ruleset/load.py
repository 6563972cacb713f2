"""`load_ruleset`: read a ruleset file and collect every problem with its JSON path."""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from typing import Any

from pydantic import ValidationError

from gmtags.errors import Problem, RulesetError, json_path
from gmtags.jsonfile import DEPTH, JsonTextError, loads, scalar_problem
from gmtags.ruleset.model import Ruleset

Check = Callable[[Ruleset], list[Problem]]
"""A validation pass over a parsed ruleset; passes run in order and all run."""

CHECKS: list[Check] = []
"""Cross-reference passes, registered by the section modules as they land."""

_RESERVED_IDS = frozenset({"engine-legacy", "traditional"})


FILE_BYTES = 256 * 1024
"""SCHEMA-NOTES §1, size limits: a ruleset file is at most 256 KiB (checked before parsing)."""


def _strip(
    value: Any, path: tuple[str | int, ...], problems: list[Problem], root: bool = False
) -> Any:
    """`strip_comments` at `path`; what a strict file could not hold goes to `problems`.

    The recursion is bounded: past `DEPTH` levels the walk stops and reports
    where (a dict handed to `load_ruleset` may nest without limit).
    """
    if isinstance(value, dict | list) and len(path) >= DEPTH:
        problems.append(Problem(json_path(path), f"nested deeper than {DEPTH} arrays and objects"))
        return value
    if isinstance(value, dict):
        kept: dict[str, Any] = {}
        for key, item in value.items():
            if key == "$comment" or (root and key == "$schema"):
                continue
            if not isinstance(key, str):
                problems.append(Problem(json_path(path), f"the key {key!r} is not a string"))
                continue
            kept[key] = _strip(item, (*path, key), problems)
        return kept
    if isinstance(value, list):
        return [_strip(item, (*path, index), problems) for index, item in enumerate(value)]
    problem = scalar_problem(value)
    if problem is not None:
        problems.append(Problem(json_path(path), problem))
    return value


def strip_comments(value: Any, *, root: bool = True) -> Any:
    """Remove every `$comment` key at any depth, and `$schema` at the root (SCHEMA-NOTES §2).

    Issue 11: JSON data that no strict file could hold (nesting deeper than
    `gmtags.jsonfile.DEPTH`, `NaN` or infinite numbers, integers of more
    than 21 digits) raises `RulesetError` naming each place, never `RecursionError`.
    """
    problems: list[Problem] = []
    stripped = _strip(value, (), problems, root)
    if problems:
        raise RulesetError(problems)
    return stripped


def _read(source: str | os.PathLike[str]) -> Any:
    """A ruleset file's JSON: at most 256 KiB, UTF-8, strict JSON (`gmtags.jsonfile.loads`)."""
    with open(source, "rb") as handle:
        raw = handle.read(FILE_BYTES + 1)
    if len(raw) > FILE_BYTES:
        raise RulesetError([Problem("(file)", "the ruleset file is larger than 256 KiB")])
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as error:
        raise RulesetError([Problem("(file)", f"not UTF-8 text at byte {error.start}")]) from None
    try:
        return loads(text)
    except JsonTextError as error:
        raise RulesetError([Problem("(file)", str(error))]) from None


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
