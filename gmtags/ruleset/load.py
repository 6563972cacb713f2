"""`load_ruleset`: read a ruleset file and collect every problem with its JSON path."""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from typing import Any

from gmtags.errors import RulesetError
from gmtags.ruleset.borrow import borrow_catalogs
from gmtags.ruleset.model import Ruleset
from gmtags.ruleset.read import read_validated, strip_comments

__all__ = ["load_ruleset", "strip_comments"]


def load_ruleset(
    source: str | os.PathLike[str] | Mapping[str, Any],
    *,
    library: Sequence[str | os.PathLike[str]] = (),
) -> Ruleset:
    """Read and validate a ruleset from a file path or an already-parsed JSON object.

    The order is explicit: the JSON (size, strictness), the shapes of every section (the
    models), then every cross-reference pass of `gmtags.ruleset.validate.PASSES` on the
    parts with sound shapes (`gmtags.ruleset.read`), then (a sound file) its borrowed
    catalogs, read from their lenders among the ruleset files of the `library` folders
    (`gmtags.ruleset.borrow`: what they leave out is in `Ruleset.borrow_notes`, never an
    error). Raises `RulesetError` listing every problem (never only the first), and
    `OSError` when the file cannot be read.
    """
    ruleset = read_validated(source)
    borrowed = borrow_catalogs(ruleset, library)
    if borrowed.problems:
        raise RulesetError(list(borrowed.problems))
    if borrowed.catalogs:
        ruleset.lend(borrowed)
    return ruleset
