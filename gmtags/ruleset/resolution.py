"""The whole `resolution` object: one strict model per kind, tagged by `kind`.

000 ("Pruebas de conjuntos de reglas") is the authority: "Tipos de
resolución" names the five kinds, each with a section of its own, and
"Franjas de resultado", "Pruebas que tiran a su manera" and "Gastar para
cambiar una tirada" add outcome tiers, overrides and spend to all of them.
SCHEMA-NOTES §5 gives the older engine's limits for dice-sum and dice-pool
(and §9 those of a catalog entry's `mechanics.check`); where the seeds add a
key or a newer limit, the seeds win.

Every model is strict (unknown keys are refused) and checks the rules between
its own keys (a face a rule names must be on the die, …), reporting every
problem at its plain JSON path below `resolution` (`resolution.cancel.upTo`).
What needs the rest of the file — a spend's pool, the skills an override or a
stance names, value references, catalog `mechanics.check`, layer ladders and
`combat` — is checked by `gmtags.ruleset.validate`.

`Ruleset.resolution` stays the JSON object it is; `Ruleset.resolution_rules`
is the typed model `parse_resolution` gives. The rules between keys run once
the keys they read have valid shapes, so a file with shape errors lists those
first.

Decisions where the seeds and the notes are silent:
- Limits: at most 16 overrides; every `text` (tier, override, symbol, exact,
  dark) is one prompt-safe line of at most 200, like a tier's; `atLeast` is
  within ±10,000; `success.needed` 1–20; `pastTarget` 1–10,000; `tens.max`
  1–10; `unmodified` 1–20 distinct faces; custom face values ±1,000; a
  roll-against rung's `dc` keeps to the tag's −100..100.
- Defaults: dice-highest rolls d6 with `pool` {min 0, max 20}; a symbol pool
  may omit `difficulty`, but then has no ladder; `target.default` stays
  required beside `target.from` (a stranger has no sheet to read); a stance
  may list no skills (004's row checks name stances of their own).
- Rules that could never fire are refused, as 000 says of faces: `target.from`
  when min = max; an open end that fires on every face; an upgrade to the
  same die; a success or critical symbol that no face shows; `critical.count`
  above the dice that count.
- "Best first" places a tier `on` critical-success above every tier read
  from the number and one `on` critical-failure below them; an `on` tier's
  `success` matches its critical; with `by: "fraction"` every `atLeast` is 1
  or more. `naturals: "shift"` is refused on every kind that throws a varying
  handful (dice-pool, dice-highest, symbol-pool).
- `exceptional` beside `outcomes` is accepted: 000 says a pool with tiers
  leaves it out, so the engine ignores it.
- A critical rule is faces (`from`/`to`) or `pastTarget`, never both;
  `whenTarget` may give both bounds, `atLeast` below `below`.
- An override's `set` changes at least one key and never holds `overrides`;
  a check named in two overrides without `when` is a per-list rule (skills,
  saves and abilities apart). A problem of the resolution an override creates
  is reported below `overrides.N.set` (at the key when `set` holds it), and
  one the ruleset's own resolution already has is reported once, there.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from typing import Annotated, Any, ClassVar, Literal, Self, get_args

from pydantic import (
    AfterValidator,
    Field,
    PlainValidator,
    StringConstraints,
    TypeAdapter,
    ValidationError,
    ValidatorFunctionWrapHandler,
    WrapValidator,
    conlist,
    model_validator,
)
from pydantic_core import ErrorDetails, InitErrorDetails, PydanticCustomError

from gmtags.ruleset.base import PromptSafe80, RulesetModel, SheetId
from gmtags.ruleset.refs import RulesetValueRef
from gmtags.ruleset.resolution_common import SharedKeys
from gmtags.ruleset.sheet import tagged
from gmtags.text import prompt_safe_problem

Loc = tuple[str | int, ...]
"""A JSON location below the model being validated, as pydantic spells one."""

Found = list[tuple[Loc, str]]
"""Problems found by the rules between keys: each a location and a message."""

# ---------------------------------------------------------------------------
# Helpers


def _detail(loc: Loc, kind: str, message: str, value: object) -> InitErrorDetails:
    return InitErrorDetails(type=PydanticCustomError(kind, message), loc=loc, input=value)


def raise_found(found: Found, title: str) -> None:
    """Raise every problem in `found` at once, each at its own location."""
    if found:
        raise ValidationError.from_exception_data(
            title, [_detail(loc, "resolution_rule", message, None) for loc, message in found]
        )


def _prompt_safe(value: str) -> str:
    problem = prompt_safe_problem(value)
    if problem is not None:
        raise PydanticCustomError("prompt_safe", "prompt-safe text {problem}", {"problem": problem})
    return value


PromptSafe200 = Annotated[str, StringConstraints(max_length=200), AfterValidator(_prompt_safe)]
"""One prompt-safe line of at most 200 characters (000: a tier's `text`)."""


def _no_spend(value: object) -> None:
    if value is not None:
        raise PydanticCustomError(
            "spend_kind",
            "only dice-pool, dice-highest and symbol-pool rulesets can declare spend "
            "(000, Gastar para cambiar una tirada)",
        )
    return None


NoSpend = Annotated[None, PlainValidator(_no_spend)]
"""000, "Gastar para cambiar una tirada": "Los demás tipos no pueden declarar spend"."""


def _distinct(values: Sequence[str], base: Loc, what: str, key: Loc = ()) -> Found:
    """A problem at each position (and `key` below it) whose value an earlier one holds."""
    seen: set[str] = set()
    found: Found = []
    for position, value in enumerate(values):
        if value in seen:
            found.append(((*base, position, *key), f"{what} '{value}' repeats"))
        seen.add(value)
    return found


LineError = tuple[Loc, str, str, object]
"""A validation error kept to be raised with others: location, type, message, input."""


def _problems(error: ValidationError) -> list[LineError]:
    return [
        (tuple(item["loc"]), item["type"], item["msg"], item["input"]) for item in error.errors()
    ]


def _under(base: Loc, found: Found) -> Found:
    return [((*base, *loc), message) for loc, message in found]


# ---------------------------------------------------------------------------
# Difficulty ladders, one rung shape per kind


class Rung(RulesetModel):
    """A rung of `difficultyLadder`: a difficulty the GM may name with `difficulty=`."""

    label: PromptSafe80


class SumRung(Rung):
    """000, "dice-sum": `dc` is the number the total must reach (SCHEMA-NOTES §5: −100..1000)."""

    dc: Annotated[int, Field(ge=-100, le=1000)]


class PoolRung(Rung):
    """000, "dice-pool": `successes` needed, and optionally the per-die `target` at that rung.

    A rung `target` is only allowed when the target can move, and within its
    min..max (checked by `DicePool`).
    """

    successes: Annotated[int, Field(ge=1, le=100)]
    target: Annotated[int, Field(ge=2, le=100)] | None = None


class HighestRung(Rung):
    """000, "dice-highest": `dc`, the number the kept dice must reach (1..keep × sides)."""

    dc: Annotated[int, Field(ge=1, le=300)]


class AgainstRung(Rung):
    """000, "roll-against": `dc` moves the target; `divide` (2–10) divides the sheet number first.

    The tag's `dc=` moves the number from −100 to 100; a rung's `dc` keeps
    to the same range.
    """

    dc: Annotated[int, Field(ge=-100, le=100)]
    divide: Annotated[int, Field(ge=2, le=10)] | None = None


class SymbolRung(Rung):
    """000, "symbol-pool": `dc` counts opposing dice, 0..`difficulty.max`."""

    dc: Annotated[int, Field(ge=0, le=12)]


# ---------------------------------------------------------------------------
# Outcome tiers


class OutcomeTier(RulesetModel):
    """000, "Franjas de resultado": one tier; the tier decides success and critical.

    `atLeast` is the lowest number landing in the tier; `on` makes it the tier a
    critical lands in (and nothing else), with no `atLeast`.
    """

    id: SheetId
    label: PromptSafe80
    at_least: Annotated[int, Field(ge=-10000, le=10000)] | None = Field(
        default=None, alias="atLeast"
    )
    success: bool = False
    critical: bool = False
    on: Literal["critical-success", "critical-failure"] | None = None
    text: PromptSafe200 | None = None


class Outcomes(RulesetModel):
    """000, "Franjas de resultado: más que éxito o fracaso": 2–8 tiers, the best first.

    Tiers read from the number have strictly descending `atLeast`, the last of
    them none (it catches everything below). A tier `on` a critical has no
    `atLeast`, a critical-success one is a success and a critical-failure one
    is not, at most one of each, placed above (below) every tier read from the
    number. At least one tier succeeds and one fails. `by: "fraction"` (only
    an at-most roll-against; checked by the kind) divides the target by each
    `atLeast`, so those are whole numbers from 1. `naturals: "shift"` needs a
    single die and `resolution.naturals` none (checked by the kind).
    """

    by: Literal["margin", "total", "fraction"] = "margin"
    naturals: Literal["shift"] | None = None
    tiers: Annotated[list[OutcomeTier], Field(min_length=2, max_length=8)]

    @model_validator(mode="after")
    def _tier_rules(self) -> Self:
        found = _distinct([tier.id for tier in self.tiers], ("tiers",), "tier id", ("id",))
        numbered = [(position, tier) for position, tier in enumerate(self.tiers) if tier.on is None]
        found += self._critical_tiers(numbered)
        if not numbered:
            found.append((("tiers",), "at least one tier must be read from the number (no on)"))
        above: int | None = None
        for order, (position, tier) in enumerate(numbered):
            at = ("tiers", position, "atLeast")
            last = order == len(numbered) - 1
            if last and tier.at_least is not None:
                found.append((at, "the last tier has no atLeast: it catches everything below"))
            elif not last and tier.at_least is None:
                found.append((at, "every tier but the last needs atLeast"))
            if tier.at_least is None:
                continue
            if above is not None and tier.at_least >= above:
                found.append((at, f"atLeast must be lower than the tier above's ({above})"))
            if self.by == "fraction" and tier.at_least < 1:
                found.append((at, "with by: fraction, atLeast divides the target: 1 or more"))
            above = tier.at_least
        if not any(tier.success for tier in self.tiers):
            found.append((("tiers",), "at least one tier must be a success"))
        if all(tier.success for tier in self.tiers):
            found.append((("tiers",), "at least one tier must be a failure"))
        raise_found(found, "Outcomes")
        return self

    def _critical_tiers(self, numbered: list[tuple[int, OutcomeTier]]) -> Found:
        found: Found = []
        first = numbered[0][0] if numbered else len(self.tiers)
        last = numbered[-1][0] if numbered else -1
        seen: set[str] = set()
        for position, tier in enumerate(self.tiers):
            if tier.on is None:
                continue
            at: Loc = ("tiers", position)
            if tier.at_least is not None:
                found.append(((*at, "atLeast"), f"a tier on {tier.on} has no atLeast"))
            if tier.on in seen:
                found.append(((*at, "on"), f"at most one tier is on {tier.on}"))
            seen.add(tier.on)
            if tier.on == "critical-success":
                if not tier.success:
                    found.append(((*at, "success"), "a critical-success tier is a success"))
                if position > first:
                    found.append(((*at, "on"), "best first: a critical-success tier goes on top"))
            else:
                if tier.success:
                    found.append(((*at, "success"), "a critical-failure tier is not a success"))
                if position < last:
                    found.append(
                        ((*at, "on"), "best first: a critical-failure tier goes at the bottom")
                    )
        return found


# ---------------------------------------------------------------------------
# Overrides

LOCKED_KEYS: frozenset[str] = frozenset(
    {
        "kind",
        "abilityModifier",
        "proficiency",
        "proficiencyTiers",
        "penaltyFrom",
        "spend",
        "adjust",
        "difficultyLadder",
        "overrides",
    }
)
"""000, "Pruebas que tiran a su manera": keys an override's `set` may not change.

The seed names kind, the sheet's sums and the ladder; `overrides` is added
because an override holding overrides would mean nothing.
"""


def _no_locked_keys(value: dict[str, Any]) -> dict[str, Any]:
    locked = [key for key in value if key in LOCKED_KEYS]
    if locked:
        raise ValidationError.from_exception_data(
            "set",
            [
                _detail(
                    (key,),
                    "override_locked",
                    f"an override cannot change {key}: only the kind's own rolling keys",
                    value[key],
                )
                for key in locked
            ],
        )
    return value


class Override(RulesetModel):
    """000, "Pruebas que tiran a su manera": checks that roll with other resolution keys.

    It names `skills`, `saves` or `abilities` (one or more of the three), a
    `label`, optional `text` for the GM and `when` (a value of the roller's
    sheet: the override applies only when it is not 0). `set` replaces
    resolution keys of the ruleset's own kind for those checks; `null`
    deletes one. The kind, the sheet's sums and the ladder cannot change
    (`LOCKED_KEYS`; a symbol pool also locks `symbols` and `dice`).
    """

    id: SheetId
    label: PromptSafe80
    text: PromptSafe200 | None = None
    skills: Annotated[list[SheetId], Field(min_length=1, max_length=120)] | None = None
    saves: Annotated[list[SheetId], Field(min_length=1, max_length=40)] | None = None
    abilities: Annotated[list[SheetId], Field(min_length=1, max_length=20)] | None = None
    when: RulesetValueRef | None = None
    set_: Annotated[dict[str, Any], Field(min_length=1), AfterValidator(_no_locked_keys)] = Field(
        alias="set"
    )

    @model_validator(mode="after")
    def _names_checks(self) -> Self:
        if not self.checks():
            raise PydanticCustomError(
                "override_checks", "an override names skills, saves or abilities"
            )
        found: Found = []
        for key in ("skills", "saves", "abilities"):
            found += _distinct(getattr(self, key) or [], (key,), CHECK_WORDS[key])
        raise_found(found, "Override")
        return self

    def checks(self) -> list[tuple[str, int, str]]:
        """The checks it names: (`skills`/`saves`/`abilities`, position, id)."""
        return [
            (key, position, name)
            for key in ("skills", "saves", "abilities")
            for position, name in enumerate(getattr(self, key) or [])
        ]


CHECK_WORDS = {"skills": "skill", "saves": "save", "abilities": "ability"}
"""An override's lists of checks, each with the word for one of them."""


def apply_override(
    resolution: Mapping[str, Any], changes: Mapping[str, Any], locked: frozenset[str]
) -> dict[str, Any]:
    """The resolution object an override's `set` creates (000, "Pruebas que tiran a su manera").

    Each key of `set` replaces the ruleset's own, whole; `null` deletes it.
    Locked keys are left as they are (they are refused on their own), and the
    result holds no overrides.
    """
    merged = {key: value for key, value in resolution.items() if key != "overrides"}
    for key, value in changes.items():
        if key in locked:
            continue
        if value is None:
            merged.pop(key, None)
        else:
            merged[key] = value
    return merged


def _override_error(
    index: int, changes: Mapping[str, Any], error: ErrorDetails
) -> InitErrorDetails:
    """Where a problem of the resolution an override creates is reported: under its `set`."""
    loc, message = tuple(error["loc"]), error["msg"]
    base: Loc = ("overrides", index, "set")
    top = loc[0] if loc else None
    if isinstance(top, str) and top in changes:
        if changes[top] is None:
            message = f"deleting {top} leaves a resolution that is invalid: {message}"
            loc = (top,)
        return _detail((*base, *loc), error["type"], message, error["input"])
    where = ".".join(str(part) for part in loc) or "the resolution"
    return _detail(base, error["type"], f"with this override, {where}: {message}", changes)


# ---------------------------------------------------------------------------
# Spend


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


def _spend_rules(spend: Sequence[SpendEntry], kind: str, buys: frozenset[str]) -> Found:
    found = _distinct([entry.pool for entry in spend], ("spend",), "spend pool", ("pool",))
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
        overrides, found = _overrides(data["overrides"])
        problems += found
        problems += [
            (loc, "resolution_rule", text, None) for loc, text in cls.override_rules(overrides)
        ]
        known = {(loc, text) for loc, _, text, _ in problems}
        details = [_detail(loc, kind, text, value) for loc, kind, text, value in problems]
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
            return _problems(error)
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
                    _override_error(index, changes, item)
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
            found += _under(("difficultyLadder",), self.ladder_rules(ladder))
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


# ---------------------------------------------------------------------------
# dice-sum

NaturalRule = Literal["none", "both", "max-only", "min-only"]


class SumDice(RulesetModel):
    """000, "dice-sum": `count` dice of `sides` (SCHEMA-NOTES §5: 1–10 of 2–1000).

    `faces` (1.136) gives what each face is worth, from the lowest: Fate's
    four dice are `{count: 4, sides: 3, faces: [-1, 0, 1]}`. One value per face.
    """

    count: Annotated[int, Field(ge=1, le=10)]
    sides: Annotated[int, Field(ge=2, le=1000)]
    faces: list[Annotated[int, Field(ge=-1000, le=1000)]] | None = None

    @model_validator(mode="after")
    def _one_value_per_face(self) -> Self:
        if self.faces is not None and len(self.faces) != self.sides:
            raise_found(
                [
                    (
                        ("faces",),
                        f"faces gives one value per face: {self.sides} values, "
                        f"not {len(self.faces)}",
                    )
                ],
                "SumDice",
            )
        return self


class Naturals(RulesetModel):
    """000, "dice-sum": what a single die's top and bottom faces do on checks and saves."""

    check: NaturalRule = "none"
    save: NaturalRule = "none"


class OpenEnded(RulesetModel):
    """000, "dice-sum" (1.136): a single die that keeps rolling.

    A face ≥ `high` rolls again and adds, a face ≤ `low` rolls again and
    subtracts; Rolemaster is `{high: 96, low: 5}` on a d100. At least one is
    given; both must be faces of the die that do not cover every face
    (`high` ≥ 2, `low` below the top face), and `low` < `high`.
    """

    high: Annotated[int, Field(ge=2, le=1000)] | None = None
    low: Annotated[int, Field(ge=1, le=999)] | None = None

    @model_validator(mode="after")
    def _one_end(self) -> Self:
        if self.high is None and self.low is None:
            raise PydanticCustomError("open_ended", "openEnded takes high, low or both")
        if self.high is not None and self.low is not None and self.low >= self.high:
            raise_found([(("low",), "low must be below high")], "OpenEnded")
        return self


class DiceSum(ResolutionRules):
    """000, "dice-sum: sumar los dados": dice plus the sheet's number against a DC.

    `naturals` other than none, `openEnded` and `unmodified` need a single
    die; the faces they name must be on it. A dice-sum ruleset cannot spend.
    """

    rung: ClassVar[type[Rung]] = SumRung

    kind: Literal["dice-sum"]
    dice: SumDice = SumDice(count=1, sides=20)
    advantage: bool = False
    naturals: Naturals | None = None
    open_ended: OpenEnded | None = Field(default=None, alias="openEnded")
    unmodified: (
        Annotated[list[Annotated[int, Field(ge=1)]], Field(min_length=1, max_length=20)] | None
    ) = None
    difficulty_ladder: Annotated[list[SumRung], Field(min_length=1, max_length=12)] | None = Field(
        default=None, alias="difficultyLadder"
    )
    spend: NoSpend = None

    def kind_rules(self) -> Found:
        found: Found = []
        sides, single = self.dice.sides, self.dice.count == 1
        if self.naturals is not None:
            for key in ("check", "save"):
                if getattr(self.naturals, key) != "none" and not single:
                    found.append(
                        (
                            ("naturals", key),
                            "naturals need a single die: a roll of several dice uses none",
                        )
                    )
        if self.open_ended is not None:
            if not single:
                found.append((("openEnded",), "openEnded needs a single die"))
            high, low = self.open_ended.high, self.open_ended.low
            if high is not None and high > sides:
                found.append((("openEnded", "high"), f"face {high} is not on a d{sides}"))
            if low is not None and low >= sides:
                found.append(
                    (("openEnded", "low"), f"low must be below the top face of a d{sides}")
                )
        if self.unmodified is not None:
            if not single:
                found.append((("unmodified",), "unmodified faces are those of a single die"))
            found += _distinct([str(face) for face in self.unmodified], ("unmodified",), "face")
            for position, face in enumerate(self.unmodified):
                if face > sides:
                    found.append((("unmodified", position), f"face {face} is not on a d{sides}"))
        return found

    def shift_problem(self) -> str | None:
        if self.dice.count != 1:
            return 'naturals: "shift" needs a single die'
        if self.naturals is not None and (self.naturals.check, self.naturals.save) != (
            "none",
            "none",
        ):
            return 'naturals: "shift" replaces resolution.naturals: set its check and save to none'
        return None


# ---------------------------------------------------------------------------
# dice-pool

PoolFace = Annotated[int, Field(ge=2, le=100)]
"""A face a dice-pool rule names (SCHEMA-NOTES §5: 2–100, and on the die)."""


class PoolDie(RulesetModel):
    """000: the faces of each die of the pool, 2 to 100."""

    sides: Annotated[int, Field(ge=2, le=100)]


class PoolLimits(RulesetModel):
    """000, "dice-pool": bounds on the sheet's number before explosions (max ≤ 100).

    `abilityPlusAbility` lets an ability check name a second ability with `with=`.
    """

    min: Annotated[int, Field(ge=0, le=100)]
    max: Annotated[int, Field(ge=1, le=100)]
    ability_plus_ability: bool = Field(default=False, alias="abilityPlusAbility")

    @model_validator(mode="after")
    def _in_order(self) -> Self:
        if self.min > self.max:
            raise_found([(("max",), "pool.max must be at least pool.min")], "PoolLimits")
        return self


class Target(RulesetModel):
    """000, "dice-pool": the face a die must reach, with the range the GM may move it in.

    min ≤ default ≤ max; equal values fix it. `from` ("target.from: opcional",
    1.137) reads each character's target from the sheet, clamped to min..max.
    """

    default: PoolFace
    min: PoolFace
    max: PoolFace
    from_: RulesetValueRef | None = Field(default=None, alias="from")

    @model_validator(mode="after")
    def _in_order(self) -> Self:
        found: Found = []
        if self.min > self.max:
            found.append((("max",), "target.max must be at least target.min"))
        elif not self.min <= self.default <= self.max:
            found.append((("default",), "target.default must lie within target.min..max"))
        raise_found(found, "Target")
        return self

    @property
    def movable(self) -> bool:
        """True when the GM may move the target (min < max)."""
        return self.min < self.max


class FaceRule(RulesetModel):
    """000, "dice-pool": `explode` or `double`, from a face and down to a `min` a check may ask.

    With `min` and no `from` the rule fires only when a check asks for it;
    `from` cannot be below `min`.
    """

    from_: PoolFace | None = Field(default=None, alias="from")
    min: PoolFace | None = None

    @model_validator(mode="after")
    def _from_and_min(self) -> Self:
        if self.from_ is None and self.min is None:
            raise PydanticCustomError("face_rule", "the rule takes from, min or both")
        if self.from_ is not None and self.min is not None and self.from_ < self.min:
            raise_found([(("from",), "from cannot be below min")], "FaceRule")
        return self


class Cancel(RulesetModel):
    """000, "dice-pool": a face ≤ `upTo` takes a success away (never below zero)."""

    up_to: Annotated[int, Field(ge=1, le=99)] = Field(alias="upTo")


class Botch(RulesetModel):
    """000, "dice-pool": no success and a face ≤ `upTo` is a critical failure.

    `halfOrMore` reads it as at least half the first-thrown dice at or below `upTo`.
    """

    up_to: Annotated[int, Field(ge=1, le=99)] = Field(alias="upTo")
    rule: Literal["noSuccesses", "halfOrMore"] = "noSuccesses"


class Exceptional(RulesetModel):
    """000, "dice-pool": this many net successes on a passed check is a critical success."""

    successes: Annotated[int, Field(ge=1, le=100)]


class SituationalDice(RulesetModel):
    """000: the dice the GM may add or take away with `bonus=` (SCHEMA-NOTES §5: −20..0, 0..20)."""

    min: Annotated[int, Field(ge=-20, le=0)]
    max: Annotated[int, Field(ge=0, le=20)]


class Stance(RulesetModel):
    """000, "target.from: opcional" (1.137): skills whose dice count below or above the target.

    Lasers & Feelings counts below for Lasers and above for Feelings. A skill
    is in at most one stance. `skills` may be empty: 004's list row checks
    name a stance of their own ("Pruebas de fila en una postura").
    """

    id: SheetId
    label: PromptSafe80
    count: Literal["below", "above"]
    skills: Annotated[list[SheetId], Field(max_length=120)] = []


class Exact(RulesetModel):
    """000, "target.from: opcional" (1.137): a die showing exactly the target.

    It is named by `label` ("LASER FEELINGS"), `text` may say what it does,
    and it counts as a success unless `counts` is false.
    """

    label: PromptSafe80
    text: PromptSafe200 | None = None
    counts: bool = True


class MechanicsCheck(RulesetModel):
    """000, "Un amuleto que cambia una tirada" (SCHEMA-NOTES §9): a catalog entry's check effect.

    `reroll` re-throws faces ≤ upTo, `dice` adds dice before the throw,
    `successes` adds successes after counting, `threshold` sets the per-die
    target, `explode`/`double` move those rules' faces. At least one. Only a
    dice-pool ruleset may apply it; its faces are checked by
    `DicePool.check_effect_rules`.
    """

    reroll: RerollRule | None = None
    dice: Annotated[int, Field(ge=1, le=10)] | None = None
    successes: Annotated[int, Field(ge=1, le=10)] | None = None
    threshold: Annotated[int, Field(ge=2, le=1000)] | None = None
    explode: Annotated[int, Field(ge=2, le=1000)] | None = None
    double: Annotated[int, Field(ge=2, le=1000)] | None = None

    @model_validator(mode="after")
    def _does_something(self) -> Self:
        if all(getattr(self, key) is None for key in type(self).model_fields):
            raise PydanticCustomError(
                "check_effect",
                "mechanics.check must do at least one of reroll, dice, successes, "
                "threshold, explode or double",
            )
        return self


class DicePool(ResolutionRules):
    """000, "dice-pool: tirar los dados y contarlos": the sheet's number is the dice thrown.

    "Las caras de cancel y botch deben estar por debajo del objetivo mínimo,
    y todas las caras nombradas deben existir en el dado": every face a rule
    names is on the die, cancel and botch are below target.min, a reroll's
    `upTo` is below the die's sides, `exceptional` is reachable. A dice pool
    may spend for successes, dice and rerolls.
    """

    rung: ClassVar[type[Rung]] = PoolRung

    kind: Literal["dice-pool"]
    die: PoolDie = PoolDie(sides=10)
    pool: PoolLimits = PoolLimits(min=1, max=40)
    target: Target
    double: FaceRule | None = None
    explode: FaceRule | None = None
    cancel: Cancel | None = None
    botch: Botch | None = None
    exceptional: Exceptional | None = None
    situational_dice: SituationalDice | None = Field(default=None, alias="situationalDice")
    reroll: Annotated[list[StandingReroll], Field(min_length=1, max_length=6)] | None = None
    stances: Annotated[list[Stance], Field(max_length=6)] | None = None
    exact: Exact | None = None
    difficulty_ladder: Annotated[list[PoolRung], Field(min_length=1, max_length=12)] | None = Field(
        default=None, alias="difficultyLadder"
    )
    spend: Spend = []

    @property
    def max_successes(self) -> int:
        """SCHEMA-NOTES §5: the most successes a throw can count.

        (pool.max, plus pool.max again with explosions) × 2 when faces count double.
        """
        dice = self.pool.max * (2 if self.explode is not None else 1)
        return dice * (2 if self.double is not None else 1)

    def _face(self, face: int | None, loc: Loc) -> Found:
        sides = self.die.sides
        return [(loc, f"face {face} is not on a d{sides}")] if face and face > sides else []

    def kind_rules(self) -> Found:
        target = self.target
        found: Found = []
        for key in ("default", "min", "max"):
            found += self._face(getattr(target, key), ("target", key))
        if target.from_ is not None and not target.movable:
            found.append(
                (
                    ("target", "from"),
                    "target.from is clamped to target.min..max, which are equal here: "
                    "it could never change the target",
                )
            )
        for name, rule in (("explode", self.explode), ("double", self.double)):
            if rule is not None:
                found += self._face(rule.from_, (name, "from"))
                found += self._face(rule.min, (name, "min"))
        for name, low in (("cancel", self.cancel), ("botch", self.botch)):
            if low is not None and low.up_to >= target.min:
                found.append(
                    (
                        (name, "upTo"),
                        f"{name} faces must be below target.min ({target.min}): "
                        "a face that succeeds could never fire it",
                    )
                )
        if self.exceptional is not None and self.exceptional.successes > self.max_successes:
            found.append(
                (
                    ("exceptional", "successes"),
                    f"no throw can count more than {self.max_successes} successes",
                )
            )
        rerolls = self.reroll or []
        found += _distinct([item.id for item in rerolls], ("reroll",), "reroll id", ("id",))
        for position, item in enumerate(rerolls):
            found += self._reroll_below_sides(item, ("reroll", position, "upTo"))
        found += self._stance_rules()
        found += _spend_rules(self.spend, "dice-pool", frozenset({"successes", "dice", "reroll"}))
        for position, entry in enumerate(self.spend):
            if entry.reroll is not None:
                found += self._reroll_below_sides(
                    entry.reroll, ("spend", position, "reroll", "upTo")
                )
        return found

    def _reroll_below_sides(self, reroll: RerollRule, loc: Loc) -> Found:
        sides = self.die.sides
        if reroll.up_to < sides:
            return []
        return [(loc, f"upTo must be below the die's {sides} sides, or every face re-throws")]

    def _stance_rules(self) -> Found:
        stances = self.stances or []
        found = _distinct([item.id for item in stances], ("stances",), "stance id", ("id",))
        placed: dict[str, str] = {}
        for index, stance in enumerate(stances):
            for position, skill in enumerate(stance.skills):
                other = placed.setdefault(skill, stance.id)
                if other != stance.id or stance.skills.index(skill) != position:
                    found.append(
                        (
                            ("stances", index, "skills", position),
                            f"skill '{skill}' is already in stance '{other}': "
                            "a skill is in at most one stance",
                        )
                    )
        return found

    def ladder_rules(self, rungs: Sequence[Rung]) -> Found:
        """000: a rung `target` only when the target can move, and within min..max."""
        target = self.target
        found: Found = []
        for position, rung in enumerate(rungs):
            if not isinstance(rung, PoolRung) or rung.target is None:
                continue
            if not target.movable:
                found.append(
                    (
                        (position, "target"),
                        "a rung target needs a target the GM can move (target.min < target.max)",
                    )
                )
            elif not target.min <= rung.target <= target.max:
                found.append(
                    (
                        (position, "target"),
                        f"a rung target must lie within target.min..max "
                        f"({target.min}..{target.max})",
                    )
                )
        return found

    def check_effect_rules(self, check: MechanicsCheck) -> Found:
        """SCHEMA-NOTES §9 and 000, "Un amuleto…": a check effect's faces fit this pool.

        `reroll.upTo` is below the die's sides; `threshold` lies within
        target.min..max; `explode`/`double` need the rule to have a `min` and
        lie within min..sides. Locations are below the `check`.
        """
        found: Found = []
        if check.reroll is not None:
            found += self._reroll_below_sides(check.reroll, ("reroll", "upTo"))
        target = self.target
        if check.threshold is not None and not target.min <= check.threshold <= target.max:
            found.append(
                (
                    ("threshold",),
                    f"threshold must lie within target.min..max ({target.min}..{target.max})",
                )
            )
        for name, rule in (("explode", self.explode), ("double", self.double)):
            face = getattr(check, name)
            if face is None:
                continue
            if rule is None or rule.min is None:
                found.append(
                    ((name,), f"{name} moves the resolution's {name}.min, which is not declared")
                )
            elif not rule.min <= face <= self.die.sides:
                found.append(((name,), f"{name} must lie within {rule.min}..{self.die.sides}"))
        return found


# ---------------------------------------------------------------------------
# dice-highest


class HighestPool(RulesetModel):
    """000, "dice-highest": bounds on the dice thrown, at most 20."""

    min: Annotated[int, Field(ge=0, le=20)]
    max: Annotated[int, Field(ge=1, le=20)]

    @model_validator(mode="after")
    def _in_order(self) -> Self:
        if self.min > self.max:
            raise_found([(("max",), "pool.max must be at least pool.min")], "HighestPool")
        return self


class Critical(RulesetModel):
    """000, "dice-highest": `count` dice showing the top face (or `face` and up) is a critical."""

    count: Annotated[int, Field(ge=1, le=20)]
    face: Annotated[int, Field(ge=2, le=100)] | None = None


class DarkDice(RulesetModel):
    """000, "dice-highest": Trophy Dark's dark dice, 1–10, added with `dark="N"`.

    `outcome: "light"` (1.149) lets only the light dice decide the result.
    """

    label: PromptSafe80
    max: Annotated[int, Field(ge=1, le=10)]
    text: PromptSafe200 | None = None
    outcome: Literal["all", "light"] = "all"


class DiceHighest(ResolutionRules):
    """000, "dice-highest: tirar los dados y leer el más alto" (1.138).

    Sum the `keep` (1–3) highest of at most 20 dice; a ladder `dc` is 1 to
    keep × sides; critical faces are on the die; spend buys only dice. A
    ruleset of this kind has no combat of its own (checked by `validate`).
    """

    rung: ClassVar[type[Rung]] = HighestRung

    kind: Literal["dice-highest"]
    die: PoolDie = PoolDie(sides=6)
    pool: HighestPool = HighestPool(min=0, max=20)
    keep: Annotated[int, Field(ge=1, le=3)] = 1
    zero_dice: Literal["lowest-of-two", "fail"] = Field(default="lowest-of-two", alias="zeroDice")
    critical: Critical | None = None
    dark: DarkDice | None = None
    situational_dice: SituationalDice | None = Field(default=None, alias="situationalDice")
    difficulty_ladder: Annotated[list[HighestRung], Field(min_length=1, max_length=12)] | None = (
        Field(default=None, alias="difficultyLadder")
    )
    spend: Spend = []

    def kind_rules(self) -> Found:
        found: Found = []
        critical, sides = self.critical, self.die.sides
        if critical is not None:
            if critical.face is not None and critical.face > sides:
                found.append((("critical", "face"), f"face {critical.face} is not on a d{sides}"))
            dice = self.pool.max
            if self.dark is not None and self.dark.outcome == "all":
                dice += self.dark.max
            if critical.count > dice:
                found.append(
                    (("critical", "count"), f"a check throws at most {dice} dice that count")
                )
        return found + _spend_rules(self.spend, "dice-highest", frozenset({"dice"}))

    def ladder_rules(self, rungs: Sequence[Rung]) -> Found:
        """000: "dc= … de 1 a keep veces las caras del dado"."""
        top = self.keep * self.die.sides
        return [
            ((position, "dc"), f"dc is at most keep × sides ({top})")
            for position, rung in enumerate(rungs)
            if isinstance(rung, HighestRung) and rung.dc > top
        ]


# ---------------------------------------------------------------------------
# roll-against


class AgainstDice(RulesetModel):
    """000, "roll-against": what is thrown and added up (1d100 by default)."""

    count: Annotated[int, Field(ge=1, le=10)]
    sides: Annotated[int, Field(ge=2, le=1000)]


class WhenTarget(RulesetModel):
    """000, "roll-against": limit a critical rule to targets ≥ `atLeast` and/or < `below`."""

    at_least: int | None = Field(default=None, alias="atLeast")
    below: int | None = None

    @model_validator(mode="after")
    def _a_bound(self) -> Self:
        if self.at_least is None and self.below is None:
            raise PydanticCustomError("when_target", "whenTarget takes atLeast, below or both")
        if self.at_least is not None and self.below is not None and self.at_least >= self.below:
            raise_found([(("below",), "below must be above atLeast")], "WhenTarget")
        return self


class CriticalRule(RulesetModel):
    """000, "roll-against": a critical by faces (`from`, `to`, either open) or by `pastTarget`.

    `pastTarget` (a failure only) is a roll that far or farther on the
    failing side of the target.
    """

    from_: int | None = Field(default=None, alias="from")
    to: int | None = None
    past_target: Annotated[int, Field(ge=1, le=10000)] | None = Field(
        default=None, alias="pastTarget"
    )
    when_target: WhenTarget | None = Field(default=None, alias="whenTarget")

    @model_validator(mode="after")
    def _one_form(self) -> Self:
        faces = self.from_ is not None or self.to is not None
        if faces == (self.past_target is not None):
            raise PydanticCustomError(
                "critical_rule", "a critical rule names faces (from, to) or pastTarget, not both"
            )
        if self.from_ is not None and self.to is not None and self.from_ > self.to:
            raise_found([(("to",), "to cannot be below from")], "CriticalRule")
        return self


class Tens(RulesetModel):
    """000, "roll-against": extra tens dice on a single d100, kept best or worst, up to `max`."""

    max: Annotated[int, Field(ge=1, le=10)]


CriticalRules = Annotated[list[CriticalRule], Field(min_length=1, max_length=6)]


class RollAgainst(ResolutionRules):
    """000, "roll-against: sacar como máximo (o como mínimo) el número de la ficha" (1.139).

    The sheet's number is the target; the roll succeeds at or below it
    (`at-most`) or at or above it (`at-least`). Critical rules (up to six
    each) name faces the dice can show; `pastTarget` is only for failures;
    `tens` only on a single d100; `outcomes.by: "fraction"` only at-most. A
    roll-against ruleset cannot spend.
    """

    rung: ClassVar[type[Rung]] = AgainstRung

    kind: Literal["roll-against"]
    dice: AgainstDice = AgainstDice(count=1, sides=100)
    against: Literal["at-most", "at-least"] = "at-most"
    critical_success: CriticalRules | None = Field(default=None, alias="criticalSuccess")
    critical_failure: CriticalRules | None = Field(default=None, alias="criticalFailure")
    tens: Tens | None = None
    difficulty_ladder: Annotated[list[AgainstRung], Field(min_length=1, max_length=12)] | None = (
        Field(default=None, alias="difficultyLadder")
    )
    spend: NoSpend = None

    def kind_rules(self) -> Found:
        found: Found = []
        low, high = self.dice.count, self.dice.count * self.dice.sides
        for key, rules in (
            ("criticalSuccess", self.critical_success),
            ("criticalFailure", self.critical_failure),
        ):
            for position, rule in enumerate(rules or []):
                at: Loc = (key, position)
                if key == "criticalSuccess" and rule.past_target is not None:
                    found.append(((*at, "pastTarget"), "pastTarget is only for a failure"))
                for name, face in (("from", rule.from_), ("to", rule.to)):
                    if face is not None and not low <= face <= high:
                        found.append(((*at, name), f"the dice roll {low}..{high}, never {face}"))
        if self.tens is not None and (self.dice.count, self.dice.sides) != (1, 100):
            found.append((("tens",), "tens dice go only on a single d100"))
        return found

    def fraction_problem(self) -> str | None:
        return None if self.against == "at-most" else "by: fraction is only for an at-most roll"

    def shift_problem(self) -> str | None:
        return None if self.dice.count == 1 else 'naturals: "shift" needs a single die'


# ---------------------------------------------------------------------------
# symbol-pool


class Symbol(RulesetModel):
    """000, "symbol-pool": a named symbol; `counts` adds one of another, `cancels` pairs two."""

    id: SheetId
    label: PromptSafe80
    counts: SheetId | None = None
    cancels: SheetId | None = None
    text: PromptSafe200 | None = None


SymbolFace = Annotated[list[SheetId], Field(max_length=3)]
"""A face: up to three symbol ids; `[]` is blank and a repeated id counts twice."""


class SymbolDie(RulesetModel):
    """000, "symbol-pool": a named die of 2–20 faces."""

    id: SheetId
    label: PromptSafe80
    faces: Annotated[list[SymbolFace], Field(min_length=2, max_length=20)]


class SymbolSuccess(RulesetModel):
    """000, "symbol-pool": `needed` of `symbol` after cancelling (1 by default) succeeds."""

    symbol: SheetId
    needed: Annotated[int, Field(ge=1, le=20)] = 1


class SymbolPoolDice(RulesetModel):
    """000, "symbol-pool": the roller's dice, from ability and rank.

    `larger-upgraded` throws the larger of the two and upgrades as many dice
    as the smaller when `upgrade` is declared; `sum` adds both and upgrades
    none. `max` is 6 by default, at most 12.
    """

    die: SheetId
    upgrade: SheetId | None = None
    build: Literal["larger-upgraded", "sum"] = "larger-upgraded"
    max: Annotated[int, Field(ge=1, le=12)] = 6


class OpposingDice(RulesetModel):
    """000, "symbol-pool": `dc=` counts opposing dice from 0 to `max` (5 by default, ≤ 12)."""

    die: SheetId
    upgrade: SheetId | None = None
    max: Annotated[int, Field(ge=1, le=12)] = 5


class ExtraDice(RulesetModel):
    """000, "symbol-pool": boost or setback dice, up to `max` (3 by default, ≤ 6)."""

    die: SheetId
    max: Annotated[int, Field(ge=1, le=6)] = 3


class SymbolPool(ResolutionRules):
    """000, "symbol-pool: tirar dados narrativos y leer los símbolos" (1.141).

    2–10 symbols (no `counts` chains or self references; a symbol in at most
    one `cancels` pair), 2–8 dice whose faces name symbols, and every
    reference to a symbol or die exists. `allowOwnUpgrade` needs
    `pool.upgrade`. Overrides cannot replace `symbols` or `dice`; spend buys
    only dice.
    """

    rung: ClassVar[type[Rung]] = SymbolRung
    locked_keys: ClassVar[frozenset[str]] = LOCKED_KEYS | {"symbols", "dice"}

    kind: Literal["symbol-pool"]
    symbols: Annotated[list[Symbol], Field(min_length=2, max_length=10)]
    dice: Annotated[list[SymbolDie], Field(min_length=2, max_length=8)]
    success: SymbolSuccess
    pool: SymbolPoolDice
    difficulty: OpposingDice | None = None
    boost: ExtraDice | None = None
    setback: ExtraDice | None = None
    critical_success: SheetId | None = Field(default=None, alias="criticalSuccess")
    critical_failure: SheetId | None = Field(default=None, alias="criticalFailure")
    allow_own_upgrade: bool = Field(default=False, alias="allowOwnUpgrade")
    difficulty_ladder: Annotated[list[SymbolRung], Field(min_length=1, max_length=12)] | None = (
        Field(default=None, alias="difficultyLadder")
    )
    spend: Spend = []

    def kind_rules(self) -> Found:
        symbols = {symbol.id: symbol for symbol in self.symbols}
        dice = {die.id for die in self.dice}
        found = _distinct([s.id for s in self.symbols], ("symbols",), "symbol id", ("id",))
        found += _distinct([d.id for d in self.dice], ("dice",), "die id", ("id",))
        found += self._symbol_links(symbols)
        shown: set[str] = set()
        for index, die in enumerate(self.dice):
            for face, marks in enumerate(die.faces):
                for position, mark in enumerate(marks):
                    if mark not in symbols:
                        found.append(
                            (("dice", index, "faces", face, position), f"names no symbol '{mark}'")
                        )
                    shown.add(mark)
        counted = shown | {symbols[mark].counts or mark for mark in shown if mark in symbols}
        found += self._dice_roles(dice)
        for loc, name, reachable in (
            (("success", "symbol"), self.success.symbol, counted),
            (("criticalSuccess",), self.critical_success, shown),
            (("criticalFailure",), self.critical_failure, shown),
        ):
            if name is None:
                continue
            if name not in symbols:
                found.append((loc, f"names no symbol '{name}'"))
            elif name not in reachable:
                found.append((loc, f"no face of any die shows '{name}', so it could never count"))
        if self.allow_own_upgrade and self.pool.upgrade is None:
            found.append((("allowOwnUpgrade",), "allowOwnUpgrade needs pool.upgrade"))
        return found + _spend_rules(self.spend, "symbol-pool", frozenset({"dice"}))

    def _symbol_links(self, symbols: Mapping[str, Symbol]) -> Found:
        """`counts` names a symbol without its own `counts`; `cancels` pairs two, once each."""
        found: Found = []
        partner: dict[str, str] = {}
        for index, symbol in enumerate(self.symbols):
            if symbol.counts is not None:
                other = symbols.get(symbol.counts)
                at: Loc = ("symbols", index, "counts")
                if symbol.counts == symbol.id:
                    found.append((at, "a symbol cannot count itself"))
                elif other is None:
                    found.append((at, f"names no symbol '{symbol.counts}'"))
                elif other.counts is not None:
                    found.append((at, f"'{other.id}' has its own counts: no chains"))
            if symbol.cancels is None:
                continue
            at = ("symbols", index, "cancels")
            if symbol.cancels == symbol.id:
                found.append((at, "a symbol cannot cancel itself"))
                continue
            if symbol.cancels not in symbols:
                found.append((at, f"names no symbol '{symbol.cancels}'"))
                continue
            pair = ((symbol.id, symbol.cancels), (symbol.cancels, symbol.id))
            clash = next((one for one, two in pair if partner.get(one, two) != two), None)
            if clash is not None:
                found.append(
                    (at, f"'{clash}' already cancels with '{partner[clash]}': one pair each")
                )
                continue
            partner.update(pair)
        return found

    def _dice_roles(self, dice: set[str]) -> Found:
        found: Found = []
        roles: list[tuple[Loc, str | None]] = [
            (("pool", "die"), self.pool.die),
            (("pool", "upgrade"), self.pool.upgrade),
        ]
        if self.difficulty is not None:
            roles += [
                (("difficulty", "die"), self.difficulty.die),
                (("difficulty", "upgrade"), self.difficulty.upgrade),
            ]
        for key, extra in (("boost", self.boost), ("setback", self.setback)):
            if extra is not None:
                roles.append(((key, "die"), extra.die))
        for loc, name in roles:
            if name is not None and name not in dice:
                found.append((loc, f"names no die '{name}'"))
        for key, part in (("pool", self.pool), ("difficulty", self.difficulty)):
            if part is not None and part.upgrade == part.die:
                found.append(((key, "upgrade"), "the upgraded die must differ from the die"))
        return found

    def ladder_rules(self, rungs: Sequence[Rung]) -> Found:
        """000: a rung's `dc` counts opposing dice, 0..difficulty.max."""
        if self.difficulty is None:
            return [((), "rungs count opposing dice: declare difficulty")] if rungs else []
        top = self.difficulty.max
        return [
            ((position, "dc"), f"dc counts opposing dice, at most difficulty.max ({top})")
            for position, rung in enumerate(rungs)
            if isinstance(rung, SymbolRung) and rung.dc > top
        ]


# ---------------------------------------------------------------------------
# The registry

Resolution = DiceSum | DicePool | DiceHighest | RollAgainst | SymbolPool
"""A ruleset's resolution, one model per kind."""

KINDS: dict[str, type[ResolutionRules]] = {
    "dice-sum": DiceSum,
    "dice-pool": DicePool,
    "dice-highest": DiceHighest,
    "roll-against": RollAgainst,
    "symbol-pool": SymbolPool,
}
"""000, "Tipos de resolución": `resolution.kind` → its model; a new kind is one line here."""

_OVERRIDES: TypeAdapter[list[Override]] = TypeAdapter(
    Annotated[list[Override], Field(max_length=16)]
)


def _overrides(raw: Any) -> tuple[list[tuple[int, Override]], list[LineError]]:
    """`overrides`, each validated on its own: the valid ones with their positions, and problems.

    000, "Pruebas que tiran a su manera"; at most 16 (the seeds give no number).
    """
    try:
        _OVERRIDES.validate_python(raw)
    except ValidationError as error:
        problems = [
            (("overrides", *loc), kind, text, value) for loc, kind, text, value in _problems(error)
        ]
    else:
        problems = []
    valid: list[tuple[int, Override]] = []
    for index, item in enumerate(raw if isinstance(raw, list) else []):
        try:
            valid.append((index, Override.model_validate(item)))
        except ValidationError:
            continue
    return valid, problems


_RESOLUTION: TypeAdapter[Resolution] = TypeAdapter(Annotated[Resolution, tagged("kind", KINDS)])


def parse_resolution(raw: Mapping[str, Any]) -> Resolution:
    """Validate a whole `resolution` object by its `kind`.

    Raises `ValidationError` listing every problem at its path below
    `resolution` (`cancel.upTo`, never `dice-pool.cancel.upTo`).
    """
    return _RESOLUTION.validate_python(dict(raw))
