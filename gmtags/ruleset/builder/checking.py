"""What a step kind's reference checks are handed (004): `RefCheck`.

Each step model checks what it names in the rest of the ruleset (the sheet's fields,
lists, abilities, skills and tiers, the catalogs, live reads) in its own `check_refs(check,
at)`, adding every problem to `check` at its JSON path. `check` is
`gmtags.ruleset.validate.builder_refs.BuilderCheck`, which imports this package, so the
models know it only as this Protocol: the parts of it the checks use.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Protocol

from gmtags.ruleset.catalogs import Catalog, RatingTarget, TrainingChoice
from gmtags.ruleset.refs import RulesetValueRef
from gmtags.ruleset.sheet import Ability, CheckEntry, FieldLike, SheetList

if TYPE_CHECKING:
    from gmtags.ruleset.builder import Builder

__all__ = ["RefCheck", "SheetLookups", "filters_of"]


class SheetLookups(Protocol):
    """The sheet a builder builds, the character's or the party's, by id
    (`gmtags.ruleset.validate.index.SheetIndex`): the parts a step's checks read."""

    @property
    def party(self) -> bool: ...

    @property
    def fields(self) -> Mapping[str, FieldLike]: ...

    @property
    def abilities(self) -> Mapping[str, Ability]: ...

    @property
    def skills(self) -> Mapping[str, CheckEntry]: ...

    @property
    def saves(self) -> Mapping[str, CheckEntry]: ...

    @property
    def lists(self) -> Mapping[str, SheetList]: ...


class RefCheck(Protocol):
    """One builder being checked against its ruleset (`BuilderCheck`), as a step sees it.

    `ruleset` is the `gmtags.ruleset.model.Ruleset`, `Any` here: the model imports this
    package (through the sheet section), so this package never imports it."""

    @property
    def ruleset(self) -> Any: ...

    @property
    def index(self) -> SheetLookups: ...

    @property
    def builder(self) -> Builder: ...

    @property
    def base(self) -> str: ...

    @property
    def catalogs(self) -> dict[str, Catalog]: ...

    @property
    def tiers(self) -> list[str]: ...

    @property
    def maps(self) -> dict[str, list[str]]: ...

    @property
    def from_members(self) -> set[str]: ...

    def add(self, path: str, message: str) -> None: ...

    def ref(self, ref: RulesetValueRef | None, at: str, what: str) -> None: ...

    def at(self, place: int) -> str: ...

    def item(self, key: str, place: int) -> str: ...

    def offered(self, what: str) -> list[str]: ...

    def trained_tier(self, tier: str | None, at: str) -> None: ...

    def target(self, target: RatingTarget, at: str) -> tuple[float, float] | None: ...

    def catalog(self, name: str, at: str) -> Catalog | None: ...

    def training_choice(self, at: str, choice: TrainingChoice, tier: str | None) -> None: ...

    def item_ref(self, ref: str, at: str) -> None: ...


def filters_of(catalog: Catalog) -> dict[str, Any]:
    """A catalog's filters by id."""
    return {item.id: item for item in catalog.filters or ()}
