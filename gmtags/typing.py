"""Type aliases and Protocols for the pluggable parts of gmtags."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from gmtags.checks.context import CheckInput
    from gmtags.checks.record import CheckRecord
    from gmtags.engine.context import Applied, Context
    from gmtags.limits import Limits
    from gmtags.ruleset.resolution import ResolutionRules
    from gmtags.state.snapshot import Snapshot
    from gmtags.tags.parse import ParsedTag


class TagHandler(Protocol):
    """Applies one parsed tag to a snapshot: `(tag, snapshot, context) → Applied`.

    A handler never raises on bad model input: it returns a refused receipt
    and the snapshot it was given, unchanged.
    """

    def __call__(self, tag: ParsedTag, snapshot: Snapshot, context: Context) -> Applied: ...


class DiceSource(Protocol):
    """Where dice come from: `randint(1, sides)` like `random.Random`, seeded per response."""

    def randint(self, a: int, b: int) -> int: ...


class Kind(Protocol):
    """One resolution kind (000, "Tipos de resolución") and every part of the engine it brings.

    `rules` is always the kind's own model (`model`), validated; `attrs` are a
    receipt's attributes as written. `gmtags.checks.kinds.KINDS` holds one per
    kind (`gmtags.checks.kind.KindParts`).
    """

    @property
    def name(self) -> str:
        """`resolution.kind` as a ruleset file spells it."""
        ...

    @property
    def model(self) -> type[ResolutionRules]:
        """The strict model of the kind's `resolution` object."""
        ...

    @property
    def buys(self) -> frozenset[str]:
        """What a standing spend may buy (000, "Gastar…"); empty: the kind has no spend."""
        ...

    @property
    def charms(self) -> bool:
        """Whether `use=` may apply a catalog entry's `mechanics.check` (000, "Un amuleto…")."""
        ...

    @property
    def writes(self) -> str:
        """The `resolution=` its receipts carry (SPEC §3)."""
        ...

    def resolve(self, rules: Any, check: CheckInput) -> CheckRecord:
        """Roll one check under the kind's rules."""
        ...

    def tray_limit(self, rules: Any, limits: Limits) -> int:
        """The most dice one check may throw (SPEC §8)."""
        ...

    def reminder(self, rules: Any) -> list[str]:
        """The reminder lines that teach the GM the kind's options."""
        ...

    def audit(self, attrs: Mapping[str, str | None], faces: list[int], rules: Any) -> list[str]:
        """What `rebuild` finds wrong in one of its receipts (SPEC §6)."""
        ...

    def faces(self, rules: Any, attrs: Mapping[str, str | None]) -> frozenset[int] | None:
        """The face values its receipts may show (None: 1..S of `dice="NdS"`)."""
        ...
