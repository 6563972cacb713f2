"""002: sheet entries, fields, derived values, lists and their columns, formulas, advancement."""

from __future__ import annotations

from collections.abc import Sequence

from gmtags.errors import Problem
from gmtags.ruleset.model import Ruleset
from gmtags.ruleset.refs import RulesetValueRef
from gmtags.ruleset.sheet import (
    ContextualCheck,
    ContextualCost,
    DiceColumn,
    EnumColumn,
    EnumField,
    EnumTableDerived,
    FieldLike,
    NumberColumn,
    RollColumn,
    SheetList,
    TextColumn,
    TextField,
)
from gmtags.ruleset.validate.index import (
    ADVANCEABLE,
    ENUM,
    FIELDS,
    NUMBER,
    TEXT,
    Node,
    SheetIndex,
    describe,
)
from gmtags.ruleset.validate.refs import check_ref, hide_when, ids, no_live, no_skill_mods


def _movable_target(ruleset: Ruleset) -> bool:
    """A dice-pool resolution whose per-die target can move (target.min < target.max)."""
    if ruleset.resolution_kind != "dice-pool":
        return False
    target = ruleset.resolution.get("target")
    if not isinstance(target, dict):
        return False
    low, high = target.get("min"), target.get("max")
    return isinstance(low, int) and isinstance(high, int) and low < high


def check_entries(ruleset: Ruleset, index: SheetIndex) -> list[Problem]:
    """Sections, abilities, skills and saves name things that exist (002, "La ficha").

    Also "Qué hace una prueba sin entrenamiento.": `harder` raises a pool's
    per-die target by one, so it is refused unless the ruleset is a dice pool
    whose target can move; and skillTiers/saveTiers name proficiency tiers. Each
    is checked once the part it reads (sections, abilities, the resolution) parsed.
    """
    sheet = ruleset.sheet
    sections = {section.id for section in sheet.sections}
    abilities = {ability.id for ability in sheet.abilities}
    tiers = {tier.id for tier in ruleset.resolution_common.proficiency_tiers}
    resolution = index.parsed("resolution")
    harder_ok = _movable_target(ruleset) or not resolution
    problems: list[Problem] = []

    def untrained(rule: object, path: str) -> None:
        if rule == "harder" and not harder_ok:
            problems.append(
                Problem(
                    f"{path}.untrained",
                    "untrained: harder needs a dice-pool ruleset whose target can move "
                    "(target.min < target.max); here it could never change a roll",
                )
            )

    def section(name: str | None, path: str) -> None:
        if name is not None and name not in sections and index.parsed("sheet.sections"):
            problems.append(Problem(f"{path}.section", f"names no section '{name}'"))

    for position, heading in enumerate(sheet.sections):
        untrained(heading.untrained, f"sheet.sections.{position}")
    for position, ability in enumerate(sheet.abilities):
        section(ability.section, f"sheet.abilities.{position}")
    known = index.parsed("sheet.abilities")
    for key, entries in (("skills", sheet.skills), ("saves", sheet.saves)):
        for position, entry in enumerate(entries):
            path = f"sheet.{key}.{position}"
            section(entry.section, path)
            untrained(entry.untrained, path)
            if entry.ability is not None and entry.ability not in abilities and known:
                problems.append(Problem(f"{path}.ability", f"names no ability '{entry.ability}'"))
    for key, offered in (("skillTiers", sheet.skill_tiers), ("saveTiers", sheet.save_tiers)):
        for position, tier in enumerate(offered or []):
            if tier not in tiers and resolution:
                problems.append(
                    Problem(f"sheet.{key}.{position}", f"names no proficiency tier '{tier}'")
                )
    for key, placed in (
        ("fields", sheet.fields),
        ("derived", sheet.derived),
        ("lists", sheet.lists),
    ):
        for position, item in enumerate(placed):
            section(item.section, f"sheet.{key}.{position}")
    return problems


def field_problems(fields: Sequence[FieldLike], base: str, index: SheetIndex) -> list[Problem]:
    problems: list[Problem] = []
    for position, item in enumerate(fields):
        path = f"{base}.{position}"
        if isinstance(item, TextField | TextColumn) and item.pick is not None:
            problems += check_ref(item.pick, f"{path}.pick", index)
        if isinstance(item, FIELDS):
            problems += hide_when(item.hide_when, path, index, owner=item.id)
            if index.party and item.section is not None:
                problems.append(Problem(f"{path}.section", "a party sheet has no sections"))
    return problems


def check_fields(ruleset: Ruleset, index: SheetIndex) -> list[Problem]:
    """Fields: hideWhen names another field and values it can hold; `pick` reads the sheet."""
    return field_problems(ruleset.sheet.fields, "sheet.fields", index)


def check_derived(ruleset: Ruleset, index: SheetIndex) -> list[Problem]:
    """Derived values read what exists, and only values declared above them.

    SCHEMA-NOTES §4: while `sheet.derived` is checked, a derived value must be
    declared above its reader (also through a computed ability, 004 1.156).
    002, "Números que lo siguen.": an enumTable reads an enum field or a live
    state, and every row of its table is a value that one can hold.
    """
    problems: list[Problem] = []
    for position, value in enumerate(ruleset.sheet.derived):
        path = f"sheet.derived.{position}"
        problems += hide_when(value.hide_when, path, index)

        def not_above(node: Node, here: int = position) -> bool:
            return node[0] == "derived" and index.derived.get(node[1], (-1,))[0] >= here

        for below, ref in value.refs():
            problems += check_ref(ref, f"{path}.{below}", index)
            chain = index.trace([ref], not_above, index.is_computed)
            if chain is not None:
                problems.append(
                    Problem(
                        f"{path}.{below}",
                        f"reads {describe(chain)}, declared at or below it; a derived value "
                        "reads only derived values declared above it",
                    )
                )
        if isinstance(value, EnumTableDerived):
            problems += _enum_table(value, path, index)
    return problems


def _enum_table(value: EnumTableDerived, path: str, index: SheetIndex) -> list[Problem]:
    source = value.from_
    values: list[str]
    if not index.parsed("sheet.fields" if source.field is not None else "sheet.live"):
        return []
    if source.field is not None:
        found = index.fields.get(source.field)
        if not isinstance(found, EnumField):
            return [Problem(f"{path}.from.field", f"'{source.field}' is not an enum field")]
        values, what = found.values, f"field '{source.field}'"
    else:
        state = index.states.get(source.live_state or "")
        if state is None:
            return [Problem(f"{path}.from.liveState", f"names no live state '{source.live_state}'")]
        values, what = state.values, f"state '{source.live_state}'"
    return [
        Problem(f"{path}.table.{key}", f"'{key}' is not a value of {what}")
        for key in value.table
        if key not in values
    ]


def list_problems(lists: Sequence[SheetList], base: str, index: SheetIndex) -> list[Problem]:
    problems: list[Problem] = []
    for position, sheet_list in enumerate(lists):
        path = f"{base}.{position}"
        problems += hide_when(sheet_list.hide_when, path, index)
        if index.party and sheet_list.section is not None:
            problems.append(Problem(f"{path}.section", "a party sheet has no sections"))
        problems += field_problems(sheet_list.columns, f"{path}.columns", index)
        problems += _columns(sheet_list, path, index)
        problems += _list_pools(sheet_list, path)
        if index.party:
            for key in ("contextual", "checks"):
                if getattr(sheet_list, key) is not None:
                    problems.append(
                        Problem(
                            f"{path}.{key}",
                            "a party list holds rows only: nobody rolls for the party, and party "
                            "values never read a character's",
                        )
                    )
        else:
            problems += _contextual(sheet_list, path, index)
            problems += _row_checks(sheet_list, path, index)
    return problems


def expect_column(
    sheet_list: SheetList, column_id: str | None, kinds: tuple[type, ...], what: str, at: str
) -> list[Problem]:
    if column_id is None:
        return []
    column = sheet_list.column(column_id)
    if column is None:
        return [Problem(at, f"names no column '{column_id}' of list '{sheet_list.id}'")]
    if not isinstance(column, kinds):
        return [Problem(at, f"column '{column_id}' is not {what}")]
    return []


def _columns(sheet_list: SheetList, path: str, index: SheetIndex) -> list[Problem]:
    """004, "Columnas de lista calculadas": `sum` adds up to six other number columns.

    A computed column never sums another computed one; a roll's `sides` column
    is a number column or an enum of dice.
    """
    problems: list[Problem] = []
    for position, column in enumerate(sheet_list.columns):
        at = f"{path}.columns.{position}"
        if not isinstance(column, NumberColumn):
            continue
        for item, name in enumerate(column.sum or []):
            other = sheet_list.column(name)
            where = f"{at}.sum.{item}"
            if name == column.id:
                problems.append(Problem(where, "a computed column cannot sum itself"))
            elif other is None:
                problems.append(Problem(where, f"names no column '{name}'"))
            elif not isinstance(other, NumberColumn):
                problems.append(Problem(where, f"column '{name}' is not a number column"))
            elif other.sum is not None:
                problems.append(Problem(where, f"column '{name}' is itself computed"))
        sides = column.roll.sides if column.roll is not None else None
        if isinstance(sides, RollColumn):
            problems += expect_column(
                sheet_list,
                sides.column,
                (NumberColumn, EnumColumn),
                "a number or enum column",
                f"{at}.roll.sides.column",
            )
        elif isinstance(sides, RulesetValueRef):
            problems += check_ref(sides, f"{at}.roll.sides", index)
    return problems


def _list_pools(sheet_list: SheetList, path: str) -> list[Problem]:
    pools = sheet_list.pools
    if pools is None:
        return []
    at = f"{path}.pools"
    return [
        *expect_column(sheet_list, pools.name_column, TEXT, "a text column", f"{at}.nameColumn"),
        *expect_column(sheet_list, pools.max_column, NUMBER, "a number column", f"{at}.maxColumn"),
        *expect_column(
            sheet_list, pools.recharge_column, ENUM, "an enum column", f"{at}.rechargeColumn"
        ),
    ]


def _contextual(sheet_list: SheetList, path: str, index: SheetIndex) -> list[Problem]:
    """004, "Una lista puede declarar contextual" and the sections after it.

    Every check effect but `best` needs a dice pool; `cancel: false` needs a
    `resolution.cancel` to switch off (1.214); a cost marks a simple track,
    never a wound track (1.218), or pays a pool or pool group.
    """
    contextual = sheet_list.contextual
    if contextual is None:
        return []
    at = f"{path}.contextual"
    problems = [
        *expect_column(sheet_list, contextual.name, TEXT, "a text column", f"{at}.name"),
        *expect_column(
            sheet_list, contextual.skill, (*TEXT, *ENUM), "a text or enum column", f"{at}.skill"
        ),
        *expect_column(sheet_list, contextual.bonus, NUMBER, "a number column", f"{at}.bonus"),
        *expect_column(sheet_list, contextual.dice, (DiceColumn,), "a dice column", f"{at}.dice"),
    ]
    return problems + contextual_effect(contextual.check, contextual.cost, at, index)


def contextual_effect(
    check: ContextualCheck | None,
    costs: Sequence[ContextualCost] | None,
    at: str,
    index: SheetIndex,
) -> list[Problem]:
    """A contextual `check` and `cost`, on a list or a catalog entry (004, 1.214 and 1.218)."""
    problems: list[Problem] = []
    if check is not None and index.parsed("resolution"):
        resolution = index.ruleset.resolution
        if check.pool_effects and index.ruleset.resolution_kind != "dice-pool":
            problems.append(
                Problem(
                    f"{at}.check",
                    "a contextual check effect other than best needs a dice-pool ruleset",
                )
            )
        elif check.cancel is False and not isinstance(resolution.get("cancel"), dict):
            problems.append(
                Problem(
                    f"{at}.check.cancel", "cancel: false needs a resolution.cancel to switch off"
                )
            )
    for position, cost in enumerate((costs or []) if index.parsed("sheet.live") else []):
        where = f"{at}.cost.{position}"
        if cost.pool is not None and cost.pool not in index.pools and cost.pool not in index.groups:
            problems.append(Problem(f"{where}.pool", f"names no pool or pool group '{cost.pool}'"))
        if cost.track is not None:
            track = index.tracks.get(cost.track)
            if track is None:
                problems.append(Problem(f"{where}.track", f"names no live track '{cost.track}'"))
            elif track.is_wound:
                problems.append(
                    Problem(f"{where}.track", "a cost marks a simple track, never a wound track")
                )
    return problems


def _row_checks(sheet_list: SheetList, path: str, index: SheetIndex) -> list[Problem]:
    """004, "Filas que son pruebas por sí mismas": up to four checks read from each row.

    `name` is a text column, `rating` a number column, `ability` an ability;
    two checks of one list are two stances told apart by their `label`, and a
    `stance` (1.212) is one of the dice pool's `resolution.stances`.
    """
    problems: list[Problem] = []
    checks = sheet_list.checks or []
    stances = ids(index.ruleset.resolution, "stances") or set()
    abilities, resolution = index.parsed("sheet.abilities"), index.parsed("resolution")
    for position, check in enumerate(checks):
        at = f"{path}.checks.{position}"
        problems += expect_column(sheet_list, check.name, TEXT, "a text column", f"{at}.name")
        problems += expect_column(
            sheet_list, check.rating, NUMBER, "a number column", f"{at}.rating"
        )
        if check.ability is not None and check.ability not in index.abilities and abilities:
            problems.append(Problem(f"{at}.ability", f"names no ability '{check.ability}'"))
        if check.stance is not None and check.stance not in stances and resolution:
            problems.append(Problem(f"{at}.stance", f"names no resolution stance '{check.stance}'"))
        if len(checks) > 1 and check.label is None:
            problems.append(
                Problem(
                    f"{at}.label",
                    "two checks in one list are two stances of one value: each needs a label",
                )
            )
    return problems


def check_lists(ruleset: Ruleset, index: SheetIndex) -> list[Problem]:
    """Lists: hideWhen, computed columns, row pools, contextual rows and row checks."""
    return list_problems(ruleset.sheet.lists, "sheet.lists", index)


def check_formulas(ruleset: Ruleset, index: SheetIndex) -> list[Problem]:
    """Caps, the proficiency bonus, computed abilities and adjust read what they may.

    002, "Una habilidad o salvación puede llevar un cap": a cap (and, SCHEMA-NOTES
    §5, the proficiency bonus) reads no skill or save modifier; the bonus is
    worked out before play and reads no live state either. 004, "Puntuaciones
    calculadas…": no computed score reads another (or itself), not even through
    a derived value. 002, "Modificadores fuera de la ficha": adjust reads any
    sheet value, live state included, for abilities that exist.
    """
    common = ruleset.resolution_common
    problems: list[Problem] = []
    for key, entries in (("skills", ruleset.sheet.skills), ("saves", ruleset.sheet.saves)):
        for position, entry in enumerate(entries):
            if entry.cap is not None:
                path = f"sheet.{key}.{position}.cap"
                found = check_ref(entry.cap, path, index)
                problems += found or no_skill_mods(entry.cap, path, index, "a cap")
    if common.proficiency is not None:
        path = "resolution.proficiency.bonus"
        bonus = common.proficiency.bonus
        found = check_ref(bonus, path, index)
        problems += found or [
            *no_live(bonus, path, index, "the proficiency bonus"),
            *no_skill_mods(bonus, path, index, "the proficiency bonus"),
        ]
    for position, ability in enumerate(ruleset.sheet.abilities):
        for item, ref in enumerate(ability.value or []):
            path = f"sheet.abilities.{position}.value.{item}"
            found = check_ref(ref, path, index)
            chain = None if found else index.trace([ref], index.is_computed)
            problems += found
            if chain is not None:
                other = chain[-1][1]
                which = "itself" if other == ability.id else f"computed score '{other}'"
                problems.append(
                    Problem(path, f"a computed score cannot read {which} ({describe(chain)})")
                )
    for position, adjust in enumerate(common.adjust):
        path = f"resolution.adjust.{position}"
        problems += check_ref(adjust.value, f"{path}.value", index)
        for item, name in enumerate(adjust.abilities or []):
            if name not in index.abilities and index.parsed("sheet.abilities"):
                problems.append(Problem(f"{path}.abilities.{item}", f"names no ability '{name}'"))
    return problems


def advancement_problems(fields: Sequence[str], base: str, index: SheetIndex) -> list[Problem]:
    """002/004: advanceable fields are number, text or longtext fields, each named once."""
    problems: list[Problem] = []
    seen: set[str] = set()
    for position, name in enumerate(fields):
        at = f"{base}.fields.{position}"
        found = index.fields.get(name)
        if found is None:
            problems.append(Problem(at, f"names no field '{name}'"))
        elif not isinstance(found, ADVANCEABLE):
            problems.append(Problem(at, f"field '{name}' is not a number, text or longtext field"))
        elif name in seen:
            problems.append(Problem(at, f"field '{name}' is named twice"))
        seen.add(name)
    return problems


def check_advancement(ruleset: Ruleset, index: SheetIndex) -> list[Problem]:
    """004, "Listas de avance más largas": sheet.advancement names up to 64 fields."""
    advancement = ruleset.sheet.advancement
    if advancement is None:
        return []
    return advancement_problems(advancement.fields, "sheet.advancement", index)
