"""A resolution kind's parts in one value (`KindParts`), and `Kind`: what gmtags asks of one.

000, "Tipos de resolución": a ruleset resolves checks with one of five kinds.
Each kind is one model file in `gmtags/ruleset/resolution/` and one file in
`gmtags/checks/` that ends with its `KIND`: the model, the resolver, the most
dice a check may throw, the lines that teach the GM its options, and the
audit `rebuild` runs on its receipts. `gmtags.checks.kinds.KINDS` lists them.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Generic, Protocol, TypeVar

from gmtags.checks.context import CheckInput
from gmtags.checks.receipts import Attrs
from gmtags.checks.record import CheckRecord
from gmtags.limits import Limits
from gmtags.ruleset.resolution import ResolutionRules, Rung

R = TypeVar("R", bound=ResolutionRules)


def any_face(rules: Any, attrs: Attrs) -> frozenset[int] | None:
    """The faces a receipt may show are those of its `dice="NdS"`: 1..S."""
    return None


@dataclass(frozen=True, slots=True)
class KindParts(Generic[R]):
    """One resolution kind: its model and everything the engine does with it."""

    model: type[R]
    resolve: Callable[[R, CheckInput], CheckRecord]
    """Rolls one check under the kind's rules."""
    tray_limit: Callable[[R, Limits], int]
    """The most dice one check may throw (SPEC §8), before `apply=` adds its own."""
    reminder: Callable[[R], list[str]]
    """The lines of the GM's reminder that teach the kind's options."""
    audit: Callable[[Attrs, list[int], R], list[str]]
    """What `rebuild` checks in one of its receipts: (attributes, faces, rules) → problems."""
    writes: str
    """The `resolution=` its receipts carry (SPEC §3)."""
    faces: Callable[[R, Attrs], frozenset[int] | None] = any_face
    """The face values its receipts may show (None: 1..S of `dice="NdS"`)."""

    @property
    def name(self) -> str:
        """`resolution.kind` as a ruleset file spells it."""
        return self.model.kind_literal()

    @property
    def buys(self) -> frozenset[str]:
        """What a standing spend may buy on this kind (000, "Gastar…")."""
        return self.model.buys

    @property
    def charms(self) -> bool:
        """Whether `use=` may apply a catalog entry's check (000, "Un amuleto…")."""
        return self.model.charms


def ladder_line(rungs: Sequence[Rung] | None, describe: Callable[[Any], str]) -> list[str]:
    """The reminder line naming a ladder's rungs, each as `describe` gives it (none: no line)."""
    if not rungs:
        return []
    parts = ", ".join(describe(rung) for rung in rungs)
    return [f'Difficulty rungs (write difficulty="<rung>" instead of dc): {parts}.']


def dc_rung(rung: Any) -> str:
    """A rung read by its `dc`: "Hard (9)"."""
    return f"{rung.label} ({rung.dc})"


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
