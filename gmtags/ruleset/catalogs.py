"""The `catalogs` section: ready-made entries a ruleset ships, as typed models.

SCHEMA-NOTES §9 is the authority on a catalog, its entries and `mechanics`;
004 adds what the builder reads (`grants`, `offeredWhen`, `exclusive`,
`exclusiveDefault`), `mechanics.contextual` and borrowed catalogs (`from`,
"Catálogos prestados"); 000 gives `mechanics.check` ("Un amuleto…").

Every model is strict; the rules between keys of a catalog and of every part of
it are reported together, each at its path (`entries.3.mechanics.plus`), once
the catalog's shapes are valid (shape errors are listed first).
What needs the rest of the file (the lists fed, a row's values against the
columns, a cost's pool, `combat`/`items`, a check's faces) is checked by
`gmtags.ruleset.validate.catalogs`. `Ruleset.catalogs` stays the file's JSON;
`Ruleset.catalog_models` is what `parse_catalogs` gives, parsed once.

An entry's `item` is `gmtags.ruleset.items.CatalogItem` (§10 lists its keys;
what they name in `items` is checked by `gmtags.ruleset.validate.items`).
Kept as JSON objects, because SCHEMA-NOTES gives only how many there may be,
not their shape: an entry's `creature` (§11), and a mechanics' `plus` clauses,
`applies` and `rider`.

Decisions where the notes and the seeds are silent:
- An entry holds at most one of `rows`, `creature` or `item` (§9); one with
  none gives `grants` (004, "grants y ninguna rows") or `mechanics` (000's
  charm, picked through a card's `picks`, SPEC §4).
- A rows catalog may leave `feeds` out only when its inline entries write no
  rows (004, "un catálogo cuyas entradas solo conceden no necesita feeds");
  an asset or a borrowed catalog, whose entries are elsewhere, names them.
- `holds` says what every entry is: a rows catalog holds no creature or item,
  a creatures catalog a creature in each entry, an items catalog an item.
- A catalog holds `entries`, an `asset` or borrows (`from`; entries may go
  beside it, 004), never an asset and `from`. `from.sheet` takes `refs` and
  `slots` beside `fields`, `values` and `tiers` (004: "admite dos más");
  `from.ruleset` is the lender's bare id (found as is or namespaced).
- `damageType` is prompt-safe text of at most 40 and `temporary` has the
  shape of `amount`, as in the schema the notes were written from; `reaction`
  needs its `at` (the notes give no default).
- Filter ids are unique within their catalog; a standard action is named once.
- `exclusiveDefault` needs an `exclusive` group, and a group has one at most.
- Limits the seeds do not give: 12 choices in `abilities`/`trained.choose`,
  40 `sets`, 24 `ratings`, a `count` of 1–20; ability amounts and score
  limits within manual entry's ±1,000; rating `add`/`set` ≤ 10,000.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Annotated, Any, Literal, Self

from pydantic import (
    AfterValidator,
    Field,
    StringConstraints,
    TypeAdapter,
    ValidationError,
    ValidatorFunctionWrapHandler,
    WrapValidator,
    model_validator,
)
from pydantic_core import PydanticCustomError

from gmtags.ruleset.base import PromptSafe80, RulesetId, RulesetModel, SheetId, check_prompt_safe
from gmtags.ruleset.items import CatalogItem
from gmtags.ruleset.refs import Number, RulesetValueRef, StepTable
from gmtags.ruleset.resolution import MechanicsCheck
from gmtags.ruleset.resolution.common import Found, LineError, Loc, detail, problems_of
from gmtags.ruleset.sheet.lists import EntryContextual

JsonObject = dict[str, Any]

MAX_CATALOGS = 12
"""SCHEMA-NOTES §2: `catalogs` holds at most 12 (and §9: a catalog at most 2,000 entries)."""
MAX_ENTRIES = 2000

# ---------------------------------------------------------------------------
# Text, ids and dice (SCHEMA-NOTES §1)


PromptSafe12 = Annotated[str, StringConstraints(max_length=12), AfterValidator(check_prompt_safe)]
PromptSafe40 = Annotated[str, StringConstraints(max_length=40), AfterValidator(check_prompt_safe)]
PromptSafe120 = Annotated[str, StringConstraints(max_length=120), AfterValidator(check_prompt_safe)]

CATALOG_TEXT_PATTERN = r"^[^\x00-\x1f\x7f-\x9f\u2028\u2029]*$"
"""SCHEMA-NOTES §1, catalog text: only line breaks and control characters are refused."""

CatalogText300 = Annotated[str, StringConstraints(max_length=300, pattern=CATALOG_TEXT_PATTERN)]
"""An entry's `summary`: catalog text of at most 300 (brackets allowed, it never reaches the GM)."""

_SHEET_ID = r"[a-z][a-z0-9_]*"
_ENTRY_ID = r"[a-z0-9]+(-[a-z0-9]+)*"
EntryId = Annotated[str, StringConstraints(max_length=80, pattern=rf"^{_ENTRY_ID}$")]
"""SCHEMA-NOTES §1: an entry id is at most 80, in the ruleset-id style (`magic-missile`)."""

DICE_PATTERN = r"^[1-9][0-9]{0,2}d([2-9]|[1-9][0-9]{1,3})([+-][0-9]{1,4})?$"
CatalogDice = Annotated[str, StringConstraints(max_length=40, pattern=DICE_PATTERN)]
"""SCHEMA-NOTES §1: 1–999 dice of 2–9999 sides and an optional ±1–4 digits (`2d6`, `1d8+3`)."""

AssetPath = Annotated[
    str, StringConstraints(max_length=240, pattern=rf"^catalogs/{_SHEET_ID}\.json$")
]
"""SCHEMA-NOTES §1: `catalogs/<catalog id>.json`."""

ItemRef = Annotated[str, StringConstraints(max_length=81, pattern=rf"^{_SHEET_ID}/{_ENTRY_ID}$")]
"""SCHEMA-NOTES §1, loot item reference: `<catalog sheetId>/<entry id>`, at most 81."""
ItemRefs = Annotated[list[ItemRef], Field(max_length=48)]

ChoiceRef = Annotated[str, StringConstraints(max_length=81, pattern=rf"^{_SHEET_ID}/{_SHEET_ID}$")]
"""004, `excludeChoices`: an earlier choice, `source_step/choice_id`."""
ChoiceRefs = Annotated[list[ChoiceRef], Field(min_length=1, max_length=12)]

Word80 = Annotated[str, StringConstraints(max_length=80)]
Text4000 = Annotated[str, StringConstraints(max_length=4000)]
Words = Annotated[list[Word80], Field(max_length=24)]
Count20 = Annotated[int, Field(ge=1, le=20)]
Ids20 = Annotated[list[SheetId], Field(max_length=20)]
Ids120 = Annotated[list[SheetId], Field(max_length=120)]


def by_json_type(*branches: tuple[str, type | tuple[type, ...], Any]) -> WrapValidator:
    """Validate a union by the one branch the value's JSON type picks (a boolean is no number),
    so a problem is reported once at its path, as `sheet.tagged` does, not once per branch."""
    adapters = [(types, TypeAdapter(branch)) for _, types, branch in branches]
    *first, last = [name for name, _, _ in branches]
    names = f"{', '.join(first)} or {last}" if first else last

    def validate(value: Any, _handler: ValidatorFunctionWrapHandler) -> Any:
        for types, adapter in adapters:
            if isinstance(value, types) and isinstance(value, bool) == (types is bool):
                return adapter.validate_python(value, strict=True)
        raise PydanticCustomError("json_type", "must be {names}", {"names": names})

    return WrapValidator(validate)


_NUMBER = ("a number", (int, float), Number)
CellValue = Annotated[
    Number | Text4000 | bool,
    by_json_type(_NUMBER, ("text", str, Text4000), ("a boolean", bool, bool)),
]
"""What one cell of a list row holds: a finite number, text or a boolean (its column decides)."""

FilterScalar = Annotated[Number | Word80, by_json_type(_NUMBER, ("text", str, Word80))]
FilterValue = Annotated[
    Number | Word80 | Words, by_json_type(_NUMBER, ("text", str, Word80), ("a list", list, Words))
]
"""SCHEMA-NOTES §9: an entry's filter value, a number, a string ≤ 80 or up to 24 of them."""

# ---------------------------------------------------------------------------
# Rules between keys


def raise_catalog(found: Found, title: str) -> None:
    """Raise every problem in `found` at once, each at its own location below the model."""
    if found:
        raise ValidationError.from_exception_data(
            title, [detail(loc, "catalog_rule", message, None) for loc, message in found]
        )


class _Ruled(RulesetModel):
    """A part of a catalog with rules between its keys; `Catalog` reports them all at once."""

    def rules(self) -> Found:
        """Every problem between this model's keys, each at its location below the model."""
        return []


def every_rule(value: object, at: Loc = ()) -> Found:
    """The `rules` of `value` and of every part below it, each at its location below `at`."""
    found: Found = []
    if isinstance(value, _Ruled):
        found += [((*at, *loc), text) for loc, text in value.rules()]
    if isinstance(value, RulesetModel):
        for name, info in type(value).model_fields.items():
            found += every_rule(getattr(value, name), (*at, info.alias or name))
    elif isinstance(value, list):
        for position, item in enumerate(value):
            found += every_rule(item, (*at, position))
    return found


def _given(model: RulesetModel) -> list[str]:
    """The keys `model` was given, as the file spells them."""
    fields = type(model).model_fields
    return [f.alias or name for name, f in fields.items() if getattr(model, name) is not None]


# ---------------------------------------------------------------------------
# mechanics (SCHEMA-NOTES §9)


class Amount(RulesetModel):
    """`amount{dice?, flat?}`: dice thrown and a flat number; also `perCostStep` and `temporary`."""

    dice: CatalogDice | None = None
    flat: int | None = None


class Area(RulesetModel):
    """`area{shape, size > 0}` in the catalog's distance unit."""

    shape: Literal["burst", "cone", "line"]
    size: Annotated[float, Field(gt=0)]


class MechanicsSave(RulesetModel):
    """`save{save, onSuccess}`: the save a target rolls (a sheet save, checked by `validate`)."""

    save: SheetId
    on_success: Literal["none", "half", "negates"] = Field(alias="onSuccess")


class CostTerm(RulesetModel):
    """One `cost` term: `{pool, amount ≥ 1}`, the pool a pool id or a pool group."""

    pool: SheetId
    amount: Annotated[int, Field(ge=1)]


class ReactionAgainst(RulesetModel):
    """`reaction.against`: only what comes from an entry of these catalogs opens the moment."""

    catalogs: Annotated[list[SheetId], Field(min_length=1, max_length=MAX_CATALOGS)]


class ReactionMoment(RulesetModel):
    """`reaction{on, at, cancels?, against?}`: the moment a reaction is taken at."""

    on: Literal["aimed", "hit", "harmed", "used"]
    at: Literal["source", "chosen"]
    cancels: bool | None = None
    against: ReactionAgainst | None = None


Reaction = Annotated[
    bool | ReactionMoment,
    by_json_type(("a boolean", bool, bool), ("an object", dict, ReactionMoment)),
]
"""`reaction`: `false`, `true` or the moment it is taken at."""


class Scales(RulesetModel):
    """`scales{from, table}`: an amount that grows with a sheet value (no live reads)."""

    from_: RulesetValueRef = Field(alias="from")
    table: StepTable


class Gives(RulesetModel):
    """One `gives` entry: `{budget, count 1–10}`, a budget handed over when used."""

    budget: SheetId
    count: Annotated[int, Field(ge=1, le=10)]


StandardAction = Literal["dash", "disengage", "dodge", "help", "hide", "ready"]
"""SCHEMA-NOTES §11: the standard actions a combat block may offer."""


class Standard(RulesetModel):
    """`standard{actions, budget}`: standard actions taken for another budget."""

    actions: Annotated[list[StandardAction], Field(min_length=1, max_length=6)]
    budget: SheetId


RIDER_KEYS = frozenset({"kind", "rider", "check", "contextual", "scales"})
"""SCHEMA-NOTES §9: a rider entry "may not carry any of the 'taken' keys (range, cost, amount,
…)"; these are the keys it may carry (the schema the notes were written from lists the rest)."""


class Mechanics(_Ruled):
    """SCHEMA-NOTES §9 `mechanics`: what an entry does, in a fight or on a check.

    `rider` and `kind: "rider"` go together, a rider carrying only `RIDER_KEYS`;
    `plus` needs `amount` and is never on a `heal`; `free` excludes `budget`.
    `check` is 000's charm (its faces are checked by `validate`), `contextual` 004's.
    """

    kind: Literal["attack", "heal", "buff", "debuff", "utility", "rider"]
    range: Annotated[float, Field(ge=0)] | None = None
    area: Area | None = None
    targets: Literal["self", "ally", "enemy", "any"] | None = None
    friendly_fire: bool | None = Field(default=None, alias="friendlyFire")
    amount: Amount | None = None
    damage_type: PromptSafe40 | None = Field(default=None, alias="damageType")
    plus: Annotated[list[JsonObject], Field(max_length=3)] | None = None
    attack_roll: bool | None = Field(default=None, alias="attackRoll")
    save: MechanicsSave | None = None
    cost: Annotated[list[CostTerm], Field(max_length=4)] | None = None
    per_cost_step: Amount | None = Field(default=None, alias="perCostStep")
    check: MechanicsCheck | None = None
    contextual: EntryContextual | None = None
    concentration: bool | None = None
    reaction: Reaction | None = None
    target_count: Count20 | None = Field(default=None, alias="targetCount")
    auto_hit: bool | None = Field(default=None, alias="autoHit")
    applies: Annotated[list[JsonObject], Field(max_length=4)] | None = None
    temporary: Amount | None = None
    scales: Scales | None = None
    budget: SheetId | None = None
    free: Literal[True] | None = None
    gives: Annotated[list[Gives], Field(min_length=1, max_length=4)] | None = None
    standard: Standard | None = None
    rider: JsonObject | None = None

    def rules(self) -> Found:
        """SCHEMA-NOTES §9: the rider rules, `plus` and `free`/`budget`."""
        found: Found = []
        if self.rider is not None and self.kind != "rider":
            found.append((("kind",), 'an entry with a rider is of kind "rider"'))
        if self.kind == "rider":
            if self.rider is None:
                found.append((("rider",), 'a "rider" entry says what its rider does'))
            found += [
                ((key,), "a rider is passive: nobody takes it, so it carries nothing taken")
                for key in _given(self)
                if key not in RIDER_KEYS
            ]
        if self.plus is not None and self.amount is None:
            found.append((("plus",), "plus needs an amount beside it"))
        if self.plus is not None and self.kind == "heal":
            found.append((("plus",), "a heal carries no plus clauses"))
        if self.free is not None and self.budget is not None:
            found.append((("free",), "something free spends no budget, so it names none"))
        actions = self.standard.actions if self.standard is not None else []
        if len(set(actions)) != len(actions):
            found.append((("standard", "actions"), "a standard action is named twice"))
        return found

    @property
    def cost_terms(self) -> tuple[tuple[str, int], ...]:
        """`cost` as `(pool, amount)` pairs; () when the entry costs nothing."""
        return tuple((term.pool, term.amount) for term in self.cost or ())


# ---------------------------------------------------------------------------
# grants (004, "Lo que da una selección son las grants de su entrada")


class Choice(_Ruled):
    """004, "Las posiciones de abilities.choose, trained.choose … y entries.choose aceptan":
    `id`, `count` or `countFrom` with an explicit `max` (1–20, at most 6 for abilities),
    `excludeChoices` (`source_step/choice_id`)."""

    id: SheetId | None = None
    count: Count20 | None = None
    count_from: RulesetValueRef | None = Field(default=None, alias="countFrom")
    max: Count20 | None = None
    exclude_choices: ChoiceRefs | None = Field(default=None, alias="excludeChoices")

    def rules(self) -> Found:
        """A fixed `count` or a `countFrom` with its `max`."""
        found: Found = []
        if self.count is None and self.count_from is None:
            found.append(((), "a choice has a count, or a countFrom with its max"))
        if self.count_from is not None and self.max is None:
            found.append((("max",), "countFrom needs an explicit max"))
        return found


ScoreBound = Annotated[int, Field(ge=-1000, le=1000)]


class AbilityChoice(Choice):
    """004, `abilities.choose[]`: `count` scores (never twice unless `repeat`, never one in
    `except`, only ones in `from`) each get `amount`; `upTo` (1.96) caps what the choice
    raises a score to; `partialFrom` (1.211) gives a partial boost at or above a mark."""

    max: Annotated[int, Field(ge=1, le=6)] | None = None
    amount: Annotated[int, Field(ge=1, le=1000)]
    except_: Ids20 | None = Field(default=None, alias="except")
    from_: Ids20 | None = Field(default=None, alias="from")
    repeat: bool | None = None
    up_to: ScoreBound | None = Field(default=None, alias="upTo")
    partial_from: ScoreBound | None = Field(default=None, alias="partialFrom")


class AbilityGrants(RulesetModel):
    """004, `grants.abilities`: `add` adds to scores; `choose` lets the player pick."""

    add: Annotated[dict[SheetId, ScoreBound], Field(max_length=20)] | None = None
    choose: Annotated[list[AbilityChoice], Field(max_length=12)] | None = None


class TrainingChoice(Choice):
    """004, `trained.choose[]`: skills or saves to train, `from` a list, `held` (1.105) at a
    tier, at `tier`; `only`, `onDuplicate: "replace"` and its `replacementFrom`."""

    what: Literal["skills", "saves"]
    from_: Ids120 | None = Field(default=None, alias="from")
    held: SheetId | None = None
    tier: SheetId | None = None
    only: Literal["any", "trained", "untrained"] | None = None
    on_duplicate: Literal["replace"] | None = Field(default=None, alias="onDuplicate")
    replacement_from: Ids120 | None = Field(default=None, alias="replacementFrom")

    def rules(self) -> Found:
        """004: `replacementFrom` goes with `onDuplicate: "replace"`."""
        found = super().rules()
        if self.replacement_from is not None and self.on_duplicate is None:
            found.append((("replacementFrom",), 'replacementFrom needs onDuplicate: "replace"'))
        return found


class TrainedGrants(RulesetModel):
    """004, `grants.trained`: skills and saves trained at `tier` (else the builder's), and
    choices of more."""

    skills: Ids120 | None = None
    saves: Annotated[list[SheetId], Field(max_length=40)] | None = None
    choose: Annotated[list[TrainingChoice], Field(max_length=12)] | None = None
    tier: SheetId | None = None


class Quota(_Ruled):
    """004, "quotas": picks whose typed `filter` equals `value`, between `min` and `max`."""

    filter: SheetId
    value: FilterScalar
    min: Annotated[int, Field(ge=0, le=60)]
    max: Annotated[int, Field(ge=0, le=60)]

    def rules(self) -> Found:
        """004: "Una cuota cumple 0 <= min <= max"."""
        return [(("min",), "a quota needs min ≤ max")] if self.min > self.max else []


class QuotaBelow(RulesetModel):
    """004, `quotaBelow{filter}`: more active picks at tier n−1 than at tier n."""

    filter: SheetId


class EntryChoice(Choice):
    """004, `grants.entries.choose[]`: entries of another rows catalog chosen in its `choices`
    step; `filters` fix filter values, `ids` lists the only entries offered; quotas as on a
    catalog step, held to the choice's `max` (or `count`)."""

    catalog: SheetId
    filters: dict[str, FilterValue] | None = None
    ids: Annotated[list[EntryId], Field(min_length=1, max_length=MAX_ENTRIES)] | None = None
    quotas: Annotated[list[Quota], Field(max_length=12)] | None = None
    distinct_by: SheetId | None = Field(default=None, alias="distinctBy")
    quota_below: QuotaBelow | None = Field(default=None, alias="quotaBelow")

    def rules(self) -> Found:
        """004: "Una cuota cumple 0 <= min <= max <= el máximo del paso"."""
        most = self.max if self.max is not None else self.count
        over = [i for i, quota in enumerate(self.quotas or ()) if most and quota.max > most]
        return super().rules() + [
            (("quotas", i, "max"), f"a quota's max is ≤ {most}") for i in over
        ]


class EntryGrants(RulesetModel):
    """004, `grants.entries`: "como máximo seis elecciones"."""

    choose: Annotated[list[EntryChoice], Field(max_length=6)]


class RatingTarget(_Ruled):
    """004: a target names exactly one of `ability`, `field`, `skill`, `save` or `bonus`."""

    ability: SheetId | None = None
    field: SheetId | None = None
    skill: SheetId | None = None
    save: SheetId | None = None
    bonus: SheetId | None = None

    def rules(self) -> Found:
        """Exactly one key."""
        if len(_given(self)) != 1:
            return [((), "a target names exactly one of ability, field, skill, save or bonus")]
        return []


class RatingGrant(_Ruled):
    """004, `grants.ratings[]`: free dots, "un add positivo o un set no negativo, nunca ambos"."""

    target: RatingTarget
    add: Annotated[int, Field(ge=1, le=10000)] | None = None
    set: Annotated[int, Field(ge=0, le=10000)] | None = None

    def rules(self) -> Found:
        """Exactly one of `add` and `set`."""
        if (self.add is None) == (self.set is None):
            return [((), "a rating grant has an add or a set, never both")]
        return []


class Grants(RulesetModel):
    """004: what picking the entry gives, read only by the builder (kept typed for it):
    `abilities`, `trained`, `sets`, `entries`, `ratings` (1.152), `itemAccess` (1.215)."""

    abilities: AbilityGrants | None = None
    trained: TrainedGrants | None = None
    sets: Annotated[dict[SheetId, CellValue], Field(max_length=40)] | None = None
    entries: EntryGrants | None = None
    ratings: Annotated[list[RatingGrant], Field(max_length=24)] | None = None
    item_access: ItemRefs | None = Field(default=None, alias="itemAccess")


# ---------------------------------------------------------------------------
# Entries (SCHEMA-NOTES §9)


class ScaledColumn(RulesetModel):
    """`scaled` column: `{from: ValueRef (no live reads, no listSum), table?}`."""

    from_: RulesetValueRef = Field(alias="from")
    table: StepTable | None = None


class CatalogRow(RulesetModel):
    """A row an entry writes: `{list (one the catalog feeds), values (checked like a list row
    by `validate`), scaled? (1–4 number columns whose value follows the sheet)}`."""

    list: SheetId
    values: dict[str, CellValue]
    scaled: Annotated[dict[SheetId, ScaledColumn], Field(min_length=1, max_length=4)] | None = None


EntryKind = Literal["rows", "creature", "item"]
_KINDS: tuple[EntryKind, ...] = ("rows", "creature", "item")


class CatalogEntry(_Ruled):
    """SCHEMA-NOTES §9, an entry: `{id, label, summary?, filters?, rows? | creature? | item?,
    mechanics?}`, plus 004's `grants`, `offeredWhen` (1.99), `exclusive` (1.94) and
    `exclusiveDefault` (1.772).

    At most one of rows, creature or item (else grants or mechanics); neither
    mechanics nor grants beside a creature or an item; a scaled column is also in
    `values`, and its row is the entry's only row for that list.
    """

    id: EntryId
    label: PromptSafe120
    summary: CatalogText300 | None = None
    filters: dict[str, FilterValue] | None = None
    rows: Annotated[list[CatalogRow], Field(min_length=1, max_length=6)] | None = None
    creature: JsonObject | None = None
    item: CatalogItem | None = None
    mechanics: Mechanics | None = None
    grants: Grants | None = None
    offered_when: RulesetValueRef | None = Field(default=None, alias="offeredWhen")
    exclusive: EntryId | None = None
    exclusive_default: Literal[True] | None = Field(default=None, alias="exclusiveDefault")

    @property
    def kinds(self) -> list[EntryKind]:
        """Which of rows, creature and item the entry holds."""
        return [kind for kind in _KINDS if getattr(self, kind) is not None]

    def rules(self) -> Found:
        """SCHEMA-NOTES §9: one kind, no mechanics beside a creature or an item; scaled rows."""
        found: Found = []
        kinds = self.kinds
        if len(kinds) > 1:
            found.append(((), "an entry holds one of rows, creature or item, never two"))
        if not kinds and self.grants is None and self.mechanics is None:
            found.append(((), "an entry holds rows, a creature or an item, or grants or mechanics"))
        for kind in (kind for kind in kinds if kind != "rows"):
            given = [key for key in ("mechanics", "grants") if getattr(self, key) is not None]
            found += [((key,), f"a {kind} carries no {key}") for key in given]
        if self.exclusive_default is not None and self.exclusive is None:
            found.append((("exclusiveDefault",), "exclusiveDefault needs an exclusive group"))
        rows = self.rows or []
        for position, row in enumerate(rows):
            if row.scaled is None:
                continue
            at: Loc = ("rows", position, "scaled")
            missing = [column for column in row.scaled if column not in row.values]
            found += [((*at, column), "a scaled column is also in values") for column in missing]
            if sum(other.list == row.list for other in rows) > 1:
                found.append((at, f"a scaled row is the entry's only row for '{row.list}'"))
        return found


# ---------------------------------------------------------------------------
# Catalogs (SCHEMA-NOTES §9, 004 "Catálogos prestados")


class FilterStart(RulesetModel):
    """`startFrom{field}`: the sheet field the picker opens the filter on."""

    field: SheetId


class CatalogFilter(RulesetModel):
    """A filter the picker offers: `{id, label, type: number|text|tags, startFrom?}`."""

    id: SheetId
    label: PromptSafe80
    type: Literal["number", "text", "tags"]
    start_from: FilterStart | None = Field(default=None, alias="startFrom")

    def holds(self, value: object) -> bool:
        """SCHEMA-NOTES §9: "Filter values must match the filter's type"."""
        if self.type == "number":
            return isinstance(value, int | float) and not isinstance(value, bool)
        if self.type == "text":
            return isinstance(value, str)
        return isinstance(value, list)

    @property
    def takes(self) -> str:
        """What a value of this filter is, in words."""
        return {"number": "a number", "text": "one word", "tags": "a list of words"}[self.type]


class Distance(RulesetModel):
    """`units.distance{label (prompt-safe, at most 12), perCell > 0}`."""

    label: PromptSafe12
    per_cell: Annotated[float, Field(gt=0)] = Field(alias="perCell")


class Units(RulesetModel):
    """`units`: what a `mechanics.range` or `area.size` number means in this catalog."""

    distance: Distance | None = None


EnumWord = Annotated[str, StringConstraints(min_length=1, max_length=80)]


class BorrowSheet(RulesetModel):
    """004, `from.sheet`: how the lender's ids read here: `fields` (null drops one), `values`,
    `tiers`, `refs` (a lender's derived value → a value here) and item `slots`."""

    fields: dict[SheetId, SheetId | None] | None = None
    values: dict[SheetId, dict[EnumWord, EnumWord]] | None = None
    tiers: dict[SheetId, SheetId] | None = None
    refs: dict[SheetId, RulesetValueRef] | None = None
    slots: dict[SheetId, SheetId] | None = None


class Borrow(RulesetModel):
    """004, "Catálogos prestados" (1.220): another ruleset's catalog; never its own (checked by
    `validate`) nor one that borrows in turn (the lender is another file, read by
    `gmtags.ruleset.borrow` when `load_ruleset` is given a library)."""

    ruleset: RulesetId
    catalog: SheetId
    sheet: BorrowSheet | None = None


Holds = Literal["rows", "creatures", "items"]

_ENTRY_KIND: dict[str, EntryKind] = {"rows": "rows", "creatures": "creature", "items": "item"}


class Catalog(_Ruled):
    """SCHEMA-NOTES §9, a catalog: `{id, label, holds, feeds?, filters?, units?,
    entries? | asset?}`, plus 004's `from`.

    One of entries, asset or from (entries may go beside from); the asset is
    `catalogs/<id>.json`; rows feed 1–8 lists, creatures and items none; entries
    are of the kind `holds` says, with unique ids, declared filters of the right
    type and rows for lists the catalog feeds; filter ids are unique.
    """

    id: SheetId
    label: PromptSafe80
    holds: Holds = "rows"
    feeds: Annotated[list[SheetId], Field(min_length=1, max_length=8)] | None = None
    filters: Annotated[list[CatalogFilter], Field(max_length=8)] | None = None
    units: Units | None = None
    entries: Annotated[list[CatalogEntry], Field(max_length=MAX_ENTRIES)] | None = None
    asset: AssetPath | None = None
    from_: Borrow | None = Field(default=None, alias="from")

    @model_validator(mode="after")
    def _rules_hold(self) -> Self:
        raise_catalog(every_rule(self), "Catalog")
        return self

    def rules(self) -> Found:
        """Every rule between this catalog's own keys (class docstring)."""
        found = self._source_rules() + self._feed_rules()
        entries = self.entries or []
        found += _repeats([f.id for f in self.filters or ()], ("filters",), "filter id")
        found += _repeats([e.id for e in entries], ("entries",), "entry id")
        for position, entry in enumerate(entries):
            found += [(("entries", position, *loc), text) for loc, text in self._entry_rules(entry)]
        defaults = [e.exclusive if e.exclusive_default else None for e in entries]
        found += _repeats(defaults, ("entries",), "the default of group", "exclusiveDefault")
        return found

    def _source_rules(self) -> Found:
        """Exactly one of `entries` or `asset` (SCHEMA-NOTES §9), or `from` (004)."""
        if self.asset is not None and self.from_ is not None:
            return [(("from",), "a catalog names an asset or borrows (from), not both")]
        if self.asset is not None and self.entries is not None:
            return [((), "a catalog has exactly one of entries or asset")]
        if self.asset is None and self.from_ is None and self.entries is None:
            return [((), "a catalog has entries, an asset or a catalog it borrows (from)")]
        if self.asset is not None and self.asset != asset_path(self.id):
            return [(("asset",), f"the asset of catalog '{self.id}' is {asset_path(self.id)}")]
        return []

    def _feed_rules(self) -> Found:
        """SCHEMA-NOTES §9: rows need `feeds` (004: unless no entry writes rows); others none."""
        if self.holds != "rows":
            message = f"a catalog of {self.holds} writes no rows, so it feeds no list"
            return [(("feeds",), message)] if self.feeds is not None else []
        writes = self.asset is not None or self.from_ is not None
        if self.feeds is None and (writes or any(e.rows for e in self.entries or ())):
            return [(("feeds",), "a catalog of rows names the 1–8 lists its rows are written to")]
        return []

    def _entry_rules(self, entry: CatalogEntry) -> Found:
        """An entry against its catalog: its kind, its filters and the lists its rows write."""
        found: Found = []
        wanted = _ENTRY_KIND[self.holds]
        for kind in entry.kinds:
            if kind != wanted:
                found.append(((kind,), f"catalog '{self.id}' holds {self.holds}, not a {kind}"))
        if wanted != "rows" and wanted not in entry.kinds:
            found.append(((), f"an entry of a catalog of {self.holds} holds a {wanted}"))
        declared = {f.id: f for f in self.filters or ()}
        for key, value in (entry.filters or {}).items():
            chosen = declared.get(key)
            if chosen is None:
                found.append((("filters", key), f"catalog '{self.id}' declares no filter '{key}'"))
            elif not chosen.holds(value):
                found.append((("filters", key), f"filter '{key}' takes {chosen.takes}"))
        found += [
            (("rows", position, "list"), f"catalog '{self.id}' does not feed list '{row.list}'")
            for position, row in enumerate(entry.rows or ())
            if self.feeds is not None and row.list not in self.feeds
        ]
        return found


def asset_path(catalog_id: str) -> str:
    """SCHEMA-NOTES §1: the asset path a catalog's entries are kept under."""
    return f"catalogs/{catalog_id}.json"


def _repeats(ids: Sequence[str | None], base: Loc, what: str, key: str = "id") -> Found:
    """A problem at `key` of each item whose id an earlier one holds (None never repeats)."""
    seen: set[str] = set()
    found: Found = []
    for position, item_id in enumerate(ids):
        if item_id is not None and item_id in seen:
            found.append(((*base, position, key), f"{what} '{item_id}' repeats"))
        seen.update([item_id] if item_id is not None else [])
    return found


CATALOGS: TypeAdapter[list[Catalog] | None] = TypeAdapter(
    Annotated[list[Catalog], Field(max_length=MAX_CATALOGS)] | None
)
"""The whole `catalogs` section, as `parse_catalogs` validates it."""


def parse_catalogs(raw: Sequence[Mapping[str, Any]] | None) -> tuple[Catalog, ...]:
    """Validate the `catalogs` section strictly; `()` when the file has none.

    Raises `ValidationError` listing every problem at its path below
    `catalogs` (`0.entries.3.mechanics.cost.1.pool`): each catalog's shapes and
    rules, and catalog ids that repeat (SCHEMA-NOTES §1).
    """
    if raw is None:
        return ()
    data = [dict(catalog) for catalog in raw]
    ids = [c["id"] if isinstance(c.get("id"), str) else None for c in data]
    found = _repeats(ids, (), "catalog id")
    lines: list[LineError] = [(at, "catalog_rule", text, None) for at, text in found]
    try:
        parsed = CATALOGS.validate_python(data) or []
    except ValidationError as error:
        if not lines:
            raise
        lines = problems_of(error) + lines
    if lines:
        raise ValidationError.from_exception_data(
            "catalogs", [detail(loc, kind, text, value) for loc, kind, text, value in lines]
        )
    return tuple(parsed)
