"""The step kinds of `sheet.builder.steps` (004), one model per `kind` (abilities and
allocate in `scores`; spend, rows, roll and initialize in `priced`).

`Step` is the tagged union: a step is read by the model its `kind` names, so a
problem inside it is reported at its plain path (`steps.3.max`) and an unknown
kind at `steps.3.kind`. Keys a kind does not take are refused (`reads` on a
fields step: 004 allows it on catalog and initialize steps only).
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import (
    Field,
    SerializationInfo,
    SerializerFunctionWrapHandler,
    WrapSerializer,
)

from gmtags.ruleset.base import RulesetModel, SheetId
from gmtags.ruleset.builder.checking import RefCheck, filters_of
from gmtags.ruleset.builder.common import (
    MAX_PICKS,
    Before,
    Found,
    Label,
    Ruled,
    StepBase,
    StepId,
    given,
)
from gmtags.ruleset.builder.priced import InitializeStep, RollStep, RowsStep, SpendStep
from gmtags.ruleset.builder.scores import (
    AbilitiesStep,
    AllocateGroup,
    AllocateStep,
    Manual,
    ManualLimits,
    MethodName,
    Methods,
    PointBuy,
    RollGroup,
    target_key,
)
from gmtags.ruleset.catalogs import (
    DICE_PATTERN,
    Catalog,
    CatalogText300,
    EntryId,
    FilterValue,
    ItemRef,
    Quota,
    QuotaBelow,
    Text4000,
    TrainingChoice,
    by_json_type,
)
from gmtags.ruleset.refs import Number, RulesetValueRef
from gmtags.ruleset.resolution.common import distinct
from gmtags.ruleset.sheet import EnumField, NumberField, TextField
from gmtags.ruleset.sheet.common import tagged

__all__ = [
    "STEPS",
    "AbilitiesStep",
    "AllocateGroup",
    "AllocateStep",
    "AnyStep",
    "CatalogCost",
    "CatalogStep",
    "ChoicesStep",
    "FieldsStep",
    "Fits",
    "FromWithin",
    "InitializeStep",
    "Kit",
    "KitLine",
    "Manual",
    "ManualLimits",
    "MethodName",
    "Methods",
    "PickCost",
    "PointBuy",
    "RollGroup",
    "RollStep",
    "RowsStep",
    "SpendStep",
    "StampValue",
    "StartingGearStep",
    "Step",
    "StepBase",
    "Total",
    "TrainedStep",
    "UpTo",
    "Within",
    "target_key",
]

Ref = RulesetValueRef

# ---------------------------------------------------------------------------
# catalog (B1–B7, A7–A9, A25)


class Within(RulesetModel):
    """`within{step, filter}`: only entries whose `filter` names a pick of that earlier step."""

    step: StepId
    filter: SheetId


class UpTo(RulesetModel):
    """`upTo{filter, value}` (1.87): entries whose numeric `filter` is at most `value`."""

    filter: SheetId
    value: Ref


class FromWithin(RulesetModel):
    """A stamp value read from the parent pick (1.130): `"id"`, `"label"` or a filter id."""

    from_within: SheetId = Field(alias="fromWithin")


StampValue = Annotated[
    Number | Text4000 | bool | FromWithin,
    by_json_type(
        ("a number", (int, float), Number),
        ("text", str, Text4000),
        ("a boolean", bool, bool),
        ("an object", dict, FromWithin),
    ),
]
"""004, `stamp` values: "cadenas, números o booleanos", or `{fromWithin}`."""


class PickCost(RulesetModel):
    """A priced catalog pick's cost read from the entry (1.159): `{filter}`, a numeric filter."""

    filter: SheetId


CatalogCost = Annotated[
    Number | PickCost,
    by_json_type(("a number", (int, float), Number), ("an object", dict, PickCost)),
]


class CatalogStep(StepBase):
    """004, `catalog`: entries of a rows catalog. `min` (how many the step asks) and `max`
    (the most it takes) default to 1 and reach 60; `field` is the text or enum field the
    labels are written to; `filters` fix filter values; `within`, `upTo`, `countFrom`,
    `stamp` (1–4 columns), `quotas` (≤12), `distinctBy`, `quotaBelow`, a `pool` and `cost`
    (1.159) and `reads.before` (1.160).

    With `countFrom` and no `max`, the step takes up to 60 (BUILDER §3.4).
    """

    kind: Literal["catalog"]
    catalog: SheetId
    field: SheetId | None = None
    filters: dict[SheetId, FilterValue] | None = None
    within: Within | None = None
    up_to: UpTo | None = Field(default=None, alias="upTo")
    count_from: Ref | None = Field(default=None, alias="countFrom")
    min: Annotated[int, Field(ge=0, le=MAX_PICKS)] = 1
    max: Annotated[int, Field(ge=1, le=MAX_PICKS)] | None = None
    stamp: Annotated[dict[SheetId, StampValue], Field(min_length=1, max_length=4)] | None = None
    quotas: Annotated[list[Quota], Field(max_length=12)] | None = None
    distinct_by: SheetId | None = Field(default=None, alias="distinctBy")
    quota_below: QuotaBelow | None = Field(default=None, alias="quotaBelow")
    pool: SheetId | None = None
    cost: CatalogCost | None = None
    reads: Before | None = None

    @property
    def most(self) -> int:
        """The most picks the step takes: `max`, else 60 with `countFrom`, else 1."""
        if self.max is not None:
            return self.max
        return MAX_PICKS if self.count_from is not None else 1

    def rules(self) -> Found:
        """min ≤ max; quotas within the step's max; a price goes with a pool."""
        found: Found = []
        if self.min > self.most:
            found.append((("min",), f"min ({self.min}) is at most max ({self.most})"))
        for place, quota in enumerate(self.quotas or ()):
            if quota.max > self.most:
                found.append((("quotas", place, "max"), f"a quota's max is ≤ {self.most}"))
        if (self.pool is None) != (self.cost is None):
            found.append(((), "a priced step names both its pool and its cost"))
        return found

    def check_refs(self, check: RefCheck, at: str) -> None:
        """004, catalog steps (A7, A9, A25): the catalog, field, filters, within, upTo, stamp,
        quotas, distinctBy, quotaBelow and a pick's cost."""
        catalog = check.catalog(self.catalog, f"{at}.catalog")
        if self.field is not None:
            found = check.index.fields.get(self.field)
            if not isinstance(found, TextField | EnumField):
                check.add(f"{at}.field", f"'{self.field}' is not a text or enum field")
        check.ref(self.count_from, f"{at}.countFrom", "countFrom")
        if self.up_to is not None:
            check.ref(self.up_to.value, f"{at}.upTo.value", "upTo")
        if catalog is None:
            return
        filters = filters_of(catalog)

        def named(name: str | None, where: str, number: bool = False) -> None:
            if name is None:
                return
            found = filters.get(name)
            if found is None:
                check.add(where, f"catalog '{catalog.id}' declares no filter '{name}'")
            elif number and found.type != "number":
                check.add(where, f"filter '{name}' is not a number filter")

        for key, value in (self.filters or {}).items():
            named(key, f"{at}.filters.{key}")
            if key in filters and not filters[key].holds(value):
                check.add(f"{at}.filters.{key}", f"filter '{key}' takes {filters[key].takes}")
        if self.within is not None:
            named(self.within.filter, f"{at}.within.filter")
        named(self.up_to.filter if self.up_to else None, f"{at}.upTo.filter", number=True)
        named(self.distinct_by, f"{at}.distinctBy")
        named(
            self.quota_below.filter if self.quota_below else None, f"{at}.quotaBelow.filter", True
        )
        for place, quota in enumerate(self.quotas or ()):
            named(quota.filter, f"{at}.quotas.{place}.filter")
            chosen = filters.get(quota.filter)
            if chosen is not None and chosen.type != "tags" and not chosen.holds(quota.value):
                check.add(
                    f"{at}.quotas.{place}.value", f"filter '{quota.filter}' takes {chosen.takes}"
                )
        cost = self.cost
        if cost is not None and not isinstance(cost, int | float):
            named(cost.filter, f"{at}.cost.filter", number=True)
        self._stamp(check, at, catalog)

    def _stamp(self, check: RefCheck, at: str, catalog: Catalog) -> None:
        """004, `stamp` (1.108, 1.130): each key a column of every list the catalog feeds, each
        value one that column can hold; `fromWithin` reads the parent catalog's id, label or one
        of its filters."""
        lists = [check.index.lists.get(name) for name in catalog.feeds or ()]
        parent = self._parent_catalog(check)
        for key, value in (self.stamp or {}).items():
            where = f"{at}.stamp.{key}"
            for listed in lists:
                column = listed.column(key) if listed is not None else None
                if listed is not None and column is None:
                    check.add(where, f"list '{listed.id}' the catalog feeds has no column '{key}'")
                elif column is not None and not hasattr(value, "from_within"):
                    reason = column.holds(value)
                    if reason is not None:
                        check.add(where, f"column '{key}' can never hold {value!r} ({reason})")
            source = getattr(value, "from_within", None)
            if source is None:
                continue
            if self.within is None:
                check.add(
                    f"{where}.fromWithin", "fromWithin reads the parent pick, so needs within"
                )
            elif parent is not None and source not in ("id", "label", *filters_of(parent)):
                message = f"fromWithin is id, label or a filter of catalog '{parent.id}'"
                check.add(f"{where}.fromWithin", message)

    def _parent_catalog(self, check: RefCheck) -> Catalog | None:
        if self.within is None:
            return None
        place = check.builder.step_ids.get(self.within.step)
        parent = check.builder.steps[place] if place is not None else None
        return check.catalogs.get(parent.catalog) if isinstance(parent, CatalogStep) else None


# ---------------------------------------------------------------------------
# fields (B8–B10, A10)


class Total(Ruled):
    """004, `total{fields, max}` (1.107): at least two numeric fields of the step held to a
    combined maximum, an integer from 1 to 1000."""

    fields: Annotated[list[SheetId], Field(min_length=2, max_length=240)]
    max: Annotated[int, Field(ge=1, le=1000)]

    def rules(self) -> Found:
        """A field is counted once."""
        return distinct(self.fields, ("fields",), "field")


class FieldsStep(StepBase):
    """004, `fields`: a short form of named fields; `optional` ones never count in the badge,
    `shownWhen` shows one while its reference reads above 0, `total` caps a sum."""

    kind: Literal["fields"]
    fields: Annotated[list[SheetId], Field(min_length=1, max_length=240)]
    optional: Annotated[list[SheetId], Field(max_length=240)] | None = None
    shown_when: Annotated[dict[SheetId, Ref], Field(max_length=240)] | None = Field(
        default=None, alias="shownWhen"
    )
    total: Total | None = None

    def rules(self) -> Found:
        """Fields are named once; optional, shownWhen and total name fields of the step."""
        found = distinct(self.fields, ("fields",), "field")
        mine = set(self.fields)
        for place, name in enumerate(self.optional or ()):
            if name not in mine:
                found.append((("optional", place), f"'{name}' is not a field of this step"))
        for name in self.shown_when or {}:
            if name not in mine:
                found.append((("shownWhen", name), f"'{name}' is not a field of this step"))
        for place, name in enumerate(self.total.fields if self.total else ()):
            if name not in mine:
                found.append((("total", "fields", place), f"'{name}' is not a field of this step"))
        return found

    def check_refs(self, check: RefCheck, at: str) -> None:
        """004, fields steps (A10): named fields exist; `total` sums number fields."""
        members = check.from_members
        for place, name in enumerate(self.fields):
            if name not in check.index.fields:
                check.add(f"{at}.fields.{place}", f"names no field '{name}'")
            elif name in members:
                check.add(f"{at}.fields.{place}", f"'{name}' is read from the members")
        for name, ref in (self.shown_when or {}).items():
            check.ref(ref, f"{at}.shownWhen.{name}", "shownWhen")
        for place, name in enumerate(self.total.fields if self.total else ()):
            if name in check.index.fields and not isinstance(check.index.fields[name], NumberField):
                check.add(f"{at}.total.fields.{place}", f"'{name}' is not a number field")


# ---------------------------------------------------------------------------
# trained, startingGear, choices (B17–B36)


class TrainedStep(StepBase):
    """004, `trained`: the skill and save choices picks offer, and the step's own `choose`."""

    kind: Literal["trained"]
    choose: Annotated[list[TrainingChoice], Field(max_length=12)] | None = None

    def check_refs(self, check: RefCheck, at: str) -> None:
        """004, trained steps: the step's own choices (names, tiers, counts)."""
        if check.index.party:
            return
        for place, choice in enumerate(self.choose or ()):
            check.training_choice(f"{at}.choose.{place}", choice, check.builder.tier)


class KitLine(Ruled):
    """A line of a starting kit: an item (`<catalog>/<entry>`, with its fixed `count`) or, 004
    "Monedas iniciales tiradas y leídas de la ficha" (1.157), coins: `{coins, count | roll |
    countFrom, times?}`, never two of count, roll and countFrom; `times` (1–10,000)
    multiplies any of them. "Las líneas de objetos conservan su count fijo"."""

    item: ItemRef | None = None
    coins: SheetId | None = None
    count: Annotated[int, Field(ge=0, le=1_000_000)] | None = None
    roll: Annotated[str, Field(max_length=40, pattern=DICE_PATTERN)] | None = None
    count_from: Ref | None = Field(default=None, alias="countFrom")
    times: Annotated[int, Field(ge=1, le=10_000)] | None = None

    def rules(self) -> Found:
        """An item or coins; coins take one amount, an item only a count of at least 1."""
        found: Found = []
        if (self.item is None) == (self.coins is None):
            return [((), "a kit line names an item or coins, never both")]
        amounts = [key for key in ("count", "roll", "countFrom") if key in given(self)]
        if self.coins is not None and len(amounts) != 1:
            found.append(((), "a coins line takes exactly one of count, roll or countFrom"))
        if self.item is not None:
            found += [
                ((key,), "an item line keeps its fixed count")
                for key in given(self)
                if key in ("roll", "countFrom", "times")
            ]
            if self.count == 0:
                found.append((("count",), "an item line gives at least one"))
        return found


class Fits(RulesetModel):
    """004, a kit's `fits{value, atLeast}`: `{value: {field: wizard_level}, atLeast: 1}`."""

    value: Ref
    at_least: Number = Field(alias="atLeast")


class Kit(Ruled):
    """A starting kit the startingGear step lists: `{id, label, summary?, fits?, lines}`;
    `fits{value, atLeast}` (1.109) offers it only while `value` reads at least `atLeast`."""

    id: EntryId
    label: Label
    summary: CatalogText300 | None = None
    fits: Fits | None = None
    lines: Annotated[list[KitLine], Field(min_length=1, max_length=40)]


class StartingGearStep(StepBase):
    """004, `startingGear`: the ruleset's starting kits (`kits`, ≤24, ids unique); `strict`
    (1.109) offers only the kits that fit the sheet as it is.

    `kits` may be left out, as 004's own example builder does (`{"id": "gear", "label":
    "Equipment", "kind": "startingGear"}`): "Sin equipo que encaje, el paso muestra su
    estado vacío y Next sigue disponible", so a step with no kits offers none and asks for
    none."""

    kind: Literal["startingGear"]
    strict: bool | None = None
    kits: Annotated[list[Kit], Field(max_length=24)] = []

    def rules(self) -> Found:
        """Kit ids are unique in the step."""
        return distinct([kit.id for kit in self.kits], ("kits",), "kit id", ("id",))

    def check_refs(self, check: RefCheck, at: str) -> None:
        """004, startingGear kits: `fits` reads no live state; item lines name items of this
        file; coins name a currency unit; `countFrom` reads the carrier's sheet (1.157)."""
        items = check.ruleset.items
        units = {
            unit.get("id")
            for family in (items or {}).get("currencies", [])
            if isinstance(family, dict)
            for unit in family.get("units", [])
            if isinstance(unit, dict)
        }
        for kit, item in enumerate(self.kits):
            where = f"{at}.kits.{kit}"
            if item.fits is not None:
                check.ref(item.fits.value, f"{where}.fits.value", "fits")
            for place, line in enumerate(item.lines):
                path = f"{where}.lines.{place}"
                if line.coins is not None and line.coins not in units:
                    check.add(f"{path}.coins", f"names no currency unit '{line.coins}' of items")
                check.ref(line.count_from, f"{path}.countFrom", "a coins countFrom")
                if line.item is not None:
                    check.item_ref(line.item, f"{path}.item")


class ChoicesStep(StepBase):
    """004, `choices` (1.91): where the entries of `catalog` that picks grant
    (`grants.entries`) are chosen."""

    kind: Literal["choices"]
    catalog: SheetId

    def check_refs(self, check: RefCheck, at: str) -> None:
        """004, choices steps: a rows catalog."""
        check.catalog(self.catalog, f"{at}.catalog")


# ---------------------------------------------------------------------------
# The union

STEPS: dict[str, type[StepBase]] = {
    "catalog": CatalogStep,
    "fields": FieldsStep,
    "abilities": AbilitiesStep,
    "allocate": AllocateStep,
    "trained": TrainedStep,
    "startingGear": StartingGearStep,
    "choices": ChoicesStep,
    "spend": SpendStep,
    "rows": RowsStep,
    "initialize": InitializeStep,
    "roll": RollStep,
}
"""004: the step kinds, by `kind`."""

AnyStep = (
    CatalogStep
    | FieldsStep
    | AbilitiesStep
    | AllocateStep
    | TrainedStep
    | StartingGearStep
    | ChoicesStep
    | SpendStep
    | RowsStep
    | InitializeStep
    | RollStep
)
_OWN = frozenset(STEPS.values())


def _dumped(step: StepBase, handler: SerializerFunctionWrapHandler, info: SerializationInfo) -> Any:
    """A step as JSON: a kind added to `STEPS` later (`gmtags.builder.steps.register`) is
    dumped by its own model, with the options of the dump it is part of."""
    if type(step) in _OWN:
        return handler(step)
    return step.model_dump(mode=info.mode, by_alias=info.by_alias, exclude_none=info.exclude_none)


Step = Annotated[AnyStep, tagged("kind", STEPS), WrapSerializer(_dumped)]
"""A step, read by the model its `kind` names (`STEPS`: the kinds below, and any kind the
builder registers)."""
