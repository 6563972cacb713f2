"""What a tag handler is given besides the tag and the snapshot, and what it returns."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from gmtags.limits import Limits
from gmtags.ruleset.model import Ruleset
from gmtags.state.snapshot import Snapshot
from gmtags.tags.parse import ParsedTag
from gmtags.tags.receipt import Receipt
from gmtags.typing import DiceSource


@dataclass(frozen=True, slots=True)
class Context:
    """The ruleset, the response's seeded dice and the limits in force."""

    ruleset: Ruleset
    dice: DiceSource
    limits: Limits


@dataclass(frozen=True, slots=True)
class Applied:
    """A handler's answer: the snapshot after the tag (unchanged when refused), its receipt."""

    snapshot: Snapshot
    receipt: Receipt


class TagHandler(Protocol):
    """Applies one parsed tag to a snapshot: `(tag, snapshot, context) → Applied`.

    A handler never raises on bad model input: it returns a refused receipt
    and the snapshot it was given, unchanged.
    """

    def __call__(self, tag: ParsedTag, snapshot: Snapshot, context: Context) -> Applied: ...
