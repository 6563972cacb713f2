"""What every kind shares: standing rerolls, spend (000, "Gastar para cambiar una tirada")
and `ResolutionRules`, the base of each kind's model (shared keys, tiers, overrides)."""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Annotated, Any, ClassVar, Literal, Self, get_args

from pydantic import (
    Field,
    TypeAdapter,
    ValidationError,
    ValidatorFunctionWrapHandler,
    WrapValidator,
    conlist,
    model_validator,
)
from pydantic_core import InitErrorDetails, PydanticCustomError

from gmtags.ruleset.base import RulesetModel, SheetId
from gmtags.ruleset.refs import RulesetValueRef
from gmtags.ruleset.resolution.common import (
    Found,
    LineError,
    Loc,
    Rung,
    detail,
    distinct,
    problems_of,
    raise_found,
    under,
)
from gmtags.ruleset.resolution.outcomes import Outcomes
from gmtags.ruleset.resolution.overrides import (
    LOCKED_KEYS,
    Override,
    apply_override,
    override_error,
    parse_overrides,
)
from gmtags.ruleset.resolution.shared import SharedKeys


class RerollRule(RulesetModel):
    """A re-throw: faces ≤ `upTo` are thrown again, `once` or `until` they come up higher.

    000, "dice-pool" (`reroll`), "Gastar para cambiar una tirada" and "Un
    amuleto que cambia una tirada": `upTo` must be below the die's sides
    (checked by the dice pool), or every face would be re-thrown forever.
    """

    up_to: Annotated[int, Field(ge=1, le=999)] = Field(alias="upTo")
    mode: Literal["once", "until"]


class StandingReroll(RerollRule):
    """000, "dice-pool": a free re-throw the GM names on a check with `reroll=`."""

    id: SheetId


def _per_check(value: Any, _handler: ValidatorFunctionWrapHandler) -> Any:
    """000, "Gastar…": `perCheck` is 1–10, a sheet value reference, or `"pool"`."""
    if value == "pool":
        return "pool"
    if isinstance(value, int) and not isinstance(value, bool):
        if not 1 <= value <= 10:
            raise PydanticCustomError("per_check", "perCheck as a number is from 1 to 10")
        return value
    if isinstance(value, dict):
        return RulesetValueRef.model_validate(value)
    raise PydanticCustomError(
        "per_check", 'perCheck is a number from 1 to 10, a value reference or "pool"'
    )


PerCheck = Annotated[int | RulesetValueRef | Literal["pool"], WrapValidator(_per_check)]


class SpendEntry(RulesetModel):
    """000, "Gastar para cambiar una tirada": pay `amount` of a live pool for one purchase.

    A purchase buys `successes`, `dice` or a `reroll` (at least one);
    `perCheck` caps the purchases a check may make. Which kinds may buy what
    is the kind's rule; that the pool exists and does not start empty is
    checked by `validate`.
    """

    pool: SheetId
    amount: Annotated[int, Field(ge=1, le=100)]
    successes: Annotated[int, Field(ge=1, le=10)] | None = None
    dice: Annotated[int, Field(ge=1, le=10)] | None = None
    reroll: RerollRule | None = None
    per_check: PerCheck = Field(alias="perCheck")

    @model_validator(mode="after")
    def _buys_something(self) -> Self:
        if not self.buys():
            raise PydanticCustomError(
                "spend_buys", "a spend buys at least one of successes, dice or reroll"
            )
        return self

    def buys(self) -> list[str]:
        """What one purchase buys: `successes`, `dice` and/or `reroll`."""
        return [key for key in ("successes", "dice", "reroll") if getattr(self, key) is not None]


Spend = Annotated[list[SpendEntry], Field(max_length=4)]
"""000: "Hasta cuatro entradas, y dos no pueden nombrar la misma reserva"."""


def spend_rules(spend: Sequence[SpendEntry], kind: str, buys: frozenset[str]) -> Found:
    found = distinct([entry.pool for entry in spend], ("spend",), "spend pool", ("pool",))
    for position, entry in enumerate(spend):
        for key in entry.buys():
            if key not in buys:
                found.append(
                    (
                        ("spend", position, key),
                        f"a {kind} spend buys only {' or '.join(sorted(buys))}",
                    )
                )
    return found


# ---------------------------------------------------------------------------
# What every kind shares


class ResolutionRules(SharedKeys):
    """The resolution of one kind: the shared keys, outcome tiers, overrides and the kind's own.

    Validating one runs the kind's rules between keys, then validates the
    resolution each override creates like the ruleset's own (000, "Pruebas
    que tiran a su manera": "La resolución que crea una sustitución se
    comprueba como la del propio conjunto"), reporting its new problems under
    `overrides.N.set`. Every problem is raised at once.
    """

    locked_keys: ClassVar[frozenset[str]] = LOCKED_KEYS
    rung: ClassVar[type[Rung]] = Rung
    buys: ClassVar[frozenset[str]] = frozenset()
    """000, "Gastar para cambiar una tirada": what a standing spend may buy (nothing: no spend)."""
    charms: ClassVar[bool] = False
    """000, "Un amuleto que cambia una tirada": whether `use=` may apply an entry's check."""

    outcomes: Outcomes | None = None
    overrides: Annotated[list[Override], Field(max_length=16)] = []
    """000, "Pruebas que tiran a su manera" (at most 16: the seeds give no number)."""

    @model_validator(mode="wrap")
    @classmethod
    def _validate_whole(cls, data: Any, handler: ValidatorFunctionWrapHandler) -> Any:
        if not isinstance(data, dict) or "overrides" not in data:
            model = handler(data)
            raise_found(model.rules(), cls.__name__)
            return model
        # The resolution without its overrides first, so that a bad override
        # hides none of its problems, then each override on its own.
        problems = cls._problems_of(
            {key: value for key, value in data.items() if key != "overrides"}
        )
        overrides, found = parse_overrides(data["overrides"])
        problems += found
        problems += [
            (loc, "resolution_rule", text, None) for loc, text in cls.override_rules(overrides)
        ]
        known = {(loc, text) for loc, _, text, _ in problems}
        details = [detail(loc, kind, text, value) for loc, kind, text, value in problems]
        details += cls._override_problems(data, known)
        if details:
            raise ValidationError.from_exception_data(cls.__name__, details)
        return handler(data)

    @classmethod
    def _problems_of(cls, data: dict[str, Any]) -> list[LineError]:
        """Every problem of a resolution without overrides: its shapes, then its rules."""
        try:
            cls.model_validate(data)
        except ValidationError as error:
            return problems_of(error)
        return []

    @classmethod
    def _override_problems(
        cls, data: dict[str, Any], known: set[tuple[Loc, str]]
    ) -> list[InitErrorDetails]:
        """New problems of the resolution each override creates, under `overrides.N.set`.

        A problem the ruleset's own resolution already has is reported once, there.
        """
        overrides = data.get("overrides")
        if not isinstance(overrides, list):
            return []
        details: list[InitErrorDetails] = []
        for index, override in enumerate(overrides):
            changes = override.get("set") if isinstance(override, dict) else None
            if not isinstance(changes, dict):
                continue
            try:
                cls.model_validate(apply_override(data, changes, cls.locked_keys))
            except ValidationError as error:
                details += [
                    override_error(index, changes, item)
                    for item in error.errors()
                    if (tuple(item["loc"]), item["msg"]) not in known
                ]
        return details

    @classmethod
    def override_rules(cls, overrides: Sequence[tuple[int, Override]]) -> Found:
        """000, "Pruebas que tiran a su manera": the rules between overrides.

        Ids are distinct; "Una prueba aparece como máximo en una sustitución
        sin when"; a symbol pool's `symbols` and `dice` cannot change.
        `overrides` holds the valid ones with their positions.
        """
        found: Found = []
        ids: dict[str, int] = {}
        unconditional: dict[tuple[str, str], Override] = {}
        for index, override in overrides:
            if ids.setdefault(override.id, index) != index:
                found.append((("overrides", index, "id"), f"override id '{override.id}' repeats"))
            for key in sorted(cls.locked_keys - LOCKED_KEYS):
                if key in override.set_:
                    found.append(
                        (
                            ("overrides", index, "set", key),
                            f"an override cannot change a {cls.kind_literal()} ruleset's {key}",
                        )
                    )
            if override.when is not None:
                continue
            for key, position, name in override.checks():
                other = unconditional.setdefault((key, name), override)
                if other is not override:
                    found.append(
                        (
                            ("overrides", index, key, position),
                            f"'{name}' is already in override '{other.id}' without when: "
                            "a check is in at most one override without when",
                        )
                    )
        return found

    @classmethod
    def kind_literal(cls) -> str:
        """The `kind` this model stands for (`dice-pool`, …), read from its `kind` field."""
        field = cls.model_fields.get("kind")
        names = get_args(field.annotation) if field is not None else ()
        return str(names[0]) if names else ""

    def rules(self) -> Found:
        """Every problem found by the rules between keys (the models checked their shapes)."""
        found: Found = []
        ladder = self.ladder()
        if ladder is not None:
            found += under(("difficultyLadder",), self.ladder_rules(ladder))
        if self.outcomes is not None:
            found += self._outcome_rules(self.outcomes)
        return found + self.kind_rules()

    @property
    def kind_name(self) -> str:
        """`resolution.kind` as the file spells it."""
        return self.kind_literal()

    def ladder(self) -> Sequence[Rung] | None:
        """The kind's `difficultyLadder`, if it declares one."""
        ladder = getattr(self, "difficulty_ladder", None)
        return ladder if isinstance(ladder, list) else None

    def ladder_rules(self, rungs: Sequence[Rung]) -> Found:
        """Problems of a ladder (the resolution's own or a layer's) with this resolution.

        Locations are below the ladder (`2.target`). The shape of each rung is
        the kind's `rung` model.
        """
        return []

    def sheet_refs(self) -> list[tuple[Loc, RulesetValueRef]]:
        """The kind's own value references, by location below `resolution`, for the passes
        that check what they read (none but the shared keys')."""
        return []

    def skill_refs(self) -> list[tuple[Loc, str]]:
        """The skills the kind's own keys name, by location below `resolution`."""
        return []

    def check_effect_rules(self, check: Any) -> Found:
        """How a catalog entry's `mechanics.check` fits this resolution (only a kind that
        `charms` applies one; the passes refuse it on any other)."""
        return []

    def kind_rules(self) -> Found:
        """The kind's own rules between keys."""
        return []

    def _outcome_rules(self, outcomes: Outcomes) -> Found:
        found: Found = []
        if outcomes.naturals == "shift":
            reason = self.shift_problem()
            if reason is not None:
                found.append((("outcomes", "naturals"), reason))
        if outcomes.by == "fraction":
            reason = self.fraction_problem()
            if reason is not None:
                found.append((("outcomes", "by"), reason))
        return found

    def fraction_problem(self) -> str | None:
        """Why `outcomes.by: "fraction"` cannot apply here, or None when it can.

        000, "roll-against": "outcomes puede leer by: "fraction" en una tirada at-most".
        """
        return "by: fraction is only for a roll-against ruleset rolling at-most"

    def shift_problem(self) -> str | None:
        """Why `outcomes.naturals: "shift"` cannot apply here, or None when it can.

        000, "Franjas de resultado": "Necesita un solo dado y sustituye a
        resolution.naturals".
        """
        return f'naturals: "shift" needs a single die, and a {self.kind_name} roll throws several'

    def overridden(self, override: Override) -> Self:
        """The resolution `override` creates, validated like the ruleset's own."""
        own = self.model_dump(mode="json", by_alias=True, exclude_none=True)
        return self.model_validate(apply_override(own, override.set_, self.locked_keys))


@functools.cache
def ladder_adapter(rung: type[Rung]) -> TypeAdapter[list[Rung]]:
    """Validates a whole ladder of `rung`s (1–12), for a layer's `difficultyLadder`."""
    adapter: TypeAdapter[list[Rung]] = TypeAdapter(conlist(rung, min_length=1, max_length=12))
    return adapter
