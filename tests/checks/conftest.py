"""Helpers for check tests: run one `[skill_check:]` with scripted or seeded dice."""

from __future__ import annotations

import random
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from gmtags import Ruleset, Snapshot, load_ruleset
from gmtags.engine.context import Context
from gmtags.engine.skill_check import apply_skill_check
from gmtags.limits import DEFAULT_LIMITS
from gmtags.tags.parse import parse_span
from gmtags.tags.receipt import ENGINE_ATTRS, Receipt
from gmtags.tags.scan import find_spans

CHECKS = Path(__file__).resolve().parents[2] / "fixtures" / "rulesets"


class Scripted:
    """A dice source answering from a script, so a test names the exact faces thrown."""

    def __init__(self, faces: Iterable[int]) -> None:
        self._faces: Iterator[int] = iter(faces)

    def randint(self, a: int, b: int) -> int:
        face = next(self._faces)
        assert a <= face <= b, f"scripted face {face} is not on a d{b}"
        return face


def ruleset(name: str) -> Ruleset:
    """A fixture ruleset by its path under fixtures/rulesets/."""
    return load_ruleset(CHECKS / name)


def snapshot(cards: dict[str, Any] | None = None, **extra: Any) -> Snapshot:
    """A snapshot with these character cards."""
    return Snapshot.model_validate({"gameCharacterCards": cards or {}, **extra})


def check(
    rules: Ruleset, text: str, state: Snapshot | None = None, dice: Iterable[int] | int = 1
) -> Receipt:
    """Apply one check tag; `dice` is a seed or the exact faces to throw."""
    (span,) = list(find_spans(text, DEFAULT_LIMITS))
    tag = parse_span(text, span, ENGINE_ATTRS["skill_check"])
    source = random.Random(dice) if isinstance(dice, int) else Scripted(dice)
    context = Context(rules, source, DEFAULT_LIMITS)
    return apply_skill_check(tag, state or Snapshot(), context).receipt


def attrs(receipt: Receipt) -> dict[str, str | None]:
    """The receipt's attributes as a dict."""
    return dict(receipt.outputs)
