"""The number a check rolls: the one place a check reads a character's sheet.

000, "Tipos de resolución": every resolution kind reads the same sheet, and a
skill or save becomes one number (ability modifier + training), which a sum
adds to its dice, a pool or a highest-die roll throws as dice, roll-against
reads as its target and symbol-pool splits back into ability and training.
On top of the sheet's number come the entries of `resolution.adjust` (002,
"Modificadores fuera de la ficha") and the wound penalty of
`resolution.penaltyFrom` (002, "La penalización de las tiradas"): dice on a
pool, a fixed modifier on a sum.

`check_number` matches the name the Game Master wrote (a skill, save, ability
or list row check, ENGINE-NOTES §4 and 004 "Filas que son pruebas por sí
mismas"), finds the character `who` names, and returns a frozen `CheckNumber`
holding every part, so each resolver and each receipt can read what it needs.
It never rolls and never clamps to the pool's limits: the resolvers do that.

Decisions where the seeds are silent:
- names are compared after `normalize_name` (accents dropped, any run of other
  characters than letters and digits one space), a superset of the reference's
  ASCII rule, so a ruleset written in another script matches too;
- among skills, a full-name match beats a match with the suffix removed;
- a row check with a `label` answers to "<row> (<label>)"; the bare row name
  answers only when its list declares a single check; a name that several row
  checks answer to matches nothing, like a name two rows share (1.161);
- `with=` naming the entry's own ability is honoured (and reported) as written,
  and on a pool that pairs abilities, naming the checked ability again counts it
  twice, as the reference engine does;
- the `adjust` total is a whole number rounded toward zero (reference engine);
- ability and row checks have no training, so their untrained rule is "normal";
  the rule is None only where nothing is read from a sheet or the name is unknown;
- a `who` that is blank counts as omitted; with no card at all the check has no
  character and reads nothing from a sheet (SPEC §4), like a stranger;
- `save=` names a saving throw: its name is read as "<name> save" is, so it
  matches the ruleset's saves only (never a skill or an ability: on 5e
  `save="Dexterity"` is the Dexterity save, not the Dexterity check); a name
  no save answers to is an unknown check (issue 28).
"""

from __future__ import annotations

import math
import re
import weakref
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

from gmtags.ruleset.model import Ruleset
from gmtags.ruleset.sheet import Ability, CheckEntry, ListCheck, UntrainedBy
from gmtags.sheet.values import CheckParts, SheetValues, shared_values
from gmtags.state.characters import resolve_who
from gmtags.state.names import normalize_name
from gmtags.state.snapshot import CharacterCard, Snapshot

CheckKind = Literal["skill", "save", "ability", "row", "unknown"]
"""What a check's name matched: a skill, a save, an ability, a list row check, or nothing."""

UntrainedRule = Literal["normal", "by", "harder", "refuse"]
"""002, "Qué hace una prueba sin entrenamiento.": the rule in force for this check."""

WhoStatus = Literal["character", "stranger", "ambiguous", "none"]
"""Who the check is for: a character with a card, a name matching none (a stranger:
SPEC §4, a character without a sheet), a name that could be two cards (refused: SPEC
§2.1, gmtags never guesses), or no character at all (no `who` and no card)."""

NameKey = Literal["skill", "save", "ability"]
"""The attribute that named the check (`gmtags.checks.request`): `save=` reads saves only."""

_SUFFIX = re.compile(r" (?:ability check|check|saving throw|save)$")
_SAVE_WORD = re.compile(r" (?:saving throw|save)$")


def check_name(text: str) -> str:
    """A check name as it is compared (ENGINE-NOTES §4): lower-cased, other runs one space."""
    return normalize_name(text)


# ---------------------------------------------------------------------------
# What a name matches


@dataclass(frozen=True, slots=True)
class CheckTarget:
    """What a check's name matched on the sheet.

    `id` and `label` are the skill's, save's or ability's; for a row check `id`
    is the list check's id, `label` the row's name (plus " (<label>)" when the
    check has one), `list` the list and `row` the row's position in it.
    `ability` is the entry's own ability (none for an ability check); `stance`
    the pool stance the check counts in: the one listing a skill, or a row
    check's own (004, 1.212).
    """

    kind: CheckKind
    id: str | None = None
    label: str | None = None
    ability: str | None = None
    list: str | None = None
    row: int | None = None
    stance: str | None = None


UNKNOWN = CheckTarget("unknown")
"""ENGINE-NOTES §4: a name that matches nothing on the sheet."""


@dataclass(frozen=True, slots=True)
class _Names:
    """Every name the sheet's saves, skills and abilities answer to, normalised once."""

    saves: tuple[tuple[frozenset[str], CheckEntry], ...]
    skills: tuple[tuple[frozenset[str], CheckEntry], ...]
    abilities: tuple[tuple[frozenset[str], Ability], ...]
    stances: dict[str, str]
    """Skill id → the `resolution.stances` entry listing it (000, "target.from: opcional")."""


def _answers_to(entry: CheckEntry | Ability) -> frozenset[str]:
    """ENGINE-NOTES §4: an entry answers to its id, its label and its short form."""
    short = entry.short if isinstance(entry, Ability) else None
    names = {check_name(entry.id), check_name(entry.label), check_name(short or "")}
    return frozenset(name for name in names if name)


_INDEXES: dict[int, tuple[weakref.ref[Ruleset], _Names]] = {}


def _names(ruleset: Ruleset) -> _Names:
    """The ruleset's names, built once per ruleset object and dropped with it."""
    key = id(ruleset)
    found = _INDEXES.get(key)
    if found is not None and found[0]() is ruleset:
        return found[1]
    sheet = ruleset.sheet
    names = _Names(
        tuple((_answers_to(save), save) for save in sheet.saves),
        tuple((_answers_to(skill), skill) for skill in sheet.skills),
        tuple((_answers_to(ability), ability) for ability in sheet.abilities),
        _skill_stances(ruleset),
    )

    def forget(ref: weakref.ref[Ruleset]) -> None:
        entry = _INDEXES.get(key)
        if entry is not None and entry[0] is ref:
            del _INDEXES[key]

    _INDEXES[key] = (weakref.ref(ruleset, forget), names)
    return names


def _skill_stances(ruleset: Ruleset) -> dict[str, str]:
    """000, "target.from: opcional": the stance each skill is in (a skill is in one at most)."""
    stances = ruleset.resolution.get("stances")
    found: dict[str, str] = {}
    for stance in stances if isinstance(stances, list) else []:
        if not isinstance(stance, dict) or not isinstance(stance.get("id"), str):
            continue
        skills = stance.get("skills")
        for skill in skills if isinstance(skills, list) else []:
            if isinstance(skill, str):
                found.setdefault(skill, stance["id"])
    return found


def match_ability(ruleset: Ruleset, written: str) -> Ability | None:
    """The ability a `with=` names, by id, label or short form, a suffix tried removed.

    000, "Qué puede escribir el Game Master…": an ability the sheet does not
    offer is ignored, so this answers None and the check keeps its own.
    """
    full = check_name(written)
    if not full:
        return None
    base = _SUFFIX.sub("", full)
    for answers, ability in _names(ruleset).abilities:
        if full in answers or base in answers:
            return ability
    return None


def match_check(
    ruleset: Ruleset,
    written: str,
    values: SheetValues | None = None,
    name_key: NameKey = "skill",
) -> CheckTarget:
    """What a check's name means on this sheet (ENGINE-NOTES §4; 004, 1.161).

    The name and its form without a trailing " check", " ability check",
    " save" or " saving throw" are tried in order: a save by its full name;
    for a save-worded name, the only save on the ability it names, else a save
    by the shortened name; a skill; an ability; then, with a character's
    `values`, a list row check by its row's name. A save-worded name never
    falls back to a skill or an ability ("Strength save" is no Strength check).
    A name written as `save=` is save-worded whatever its words (module doc).
    """
    full = check_name(written)
    if not full:
        return UNKNOWN
    base = _SUFFIX.sub("", full)
    save_worded = name_key == "save" or _SAVE_WORD.search(full) is not None
    names = _names(ruleset)
    for answers, save in names.saves:
        if full in answers:
            return _entry_target("save", save)
    if save_worded:
        found = _save_for(names, base)
        if found is not None:
            return found
    else:
        for wanted in (full, base):
            for answers, skill in names.skills:
                if wanted in answers:
                    return _entry_target("skill", skill, names.stances.get(skill.id))
        for answers, ability in names.abilities:
            if full in answers or base in answers:
                return CheckTarget("ability", ability.id, ability.label)
    if values is None:
        return UNKNOWN
    wanted_rows = (full,) if save_worded or base == full else (full, base)
    return _row_target(values, wanted_rows)


def _entry_target(
    kind: Literal["skill", "save"], entry: CheckEntry, stance: str | None = None
) -> CheckTarget:
    return CheckTarget(kind, entry.id, entry.label, entry.ability, stance=stance)


def _save_for(names: _Names, base: str) -> CheckTarget | None:
    """ "<ability> save": the save rolled with that ability when exactly one is, else by name."""
    ability = next((a for answers, a in names.abilities if base in answers), None)
    if ability is not None:
        on_ability = [save for _, save in names.saves if save.ability == ability.id]
        if len(on_ability) == 1:
            return _entry_target("save", on_ability[0])
    for answers, save in names.saves:
        if base in answers:
            return _entry_target("save", save)
    return None


def _row_candidates(values: SheetValues) -> list[tuple[str, CheckTarget]]:
    """Every name a row check answers to, with the check (004, 1.161)."""
    candidates: list[tuple[str, CheckTarget]] = []
    for sheet_list in values.sheet.lists:
        checks = sheet_list.checks or []
        for position, row in enumerate(values.rows(sheet_list.id) if checks else []):
            for check in checks:
                written = row.get(check.name)
                if not isinstance(written, str) or not check_name(written):
                    continue
                for name in _row_check_names(written, check, len(checks)):
                    candidates.append((name, _row_check(sheet_list.id, position, written, check)))
    return candidates


def _row_target(values: SheetValues, wanted: tuple[str, ...]) -> CheckTarget:
    """004, 1.161: the one row check answering to the name; several or none match nothing."""
    candidates = _row_candidates(values)
    for name in wanted:
        found = [target for candidate, target in candidates if candidate == name]
        if len(found) == 1:
            return found[0]
        if found:
            return UNKNOWN
    return UNKNOWN


def row_checks(values: SheetValues) -> list[tuple[str, CheckTarget]]:
    """004, "Filas que son pruebas por sí mismas": every row check the GM can call, once each,
    by the first name it answers to ("Fire stew bold"); a name two rows share calls none
    ("Un nombre que comparten dos filas no es ninguna prueba hasta que se renombra una")."""
    candidates = _row_candidates(values)
    counts: dict[str, int] = {}
    for name, _ in candidates:
        counts[name] = counts.get(name, 0) + 1
    seen: set[tuple[str | None, int | None, str | None]] = set()
    found: list[tuple[str, CheckTarget]] = []
    for name, target in candidates:
        key = (target.list, target.row, target.id)
        if counts[name] == 1 and key not in seen:
            seen.add(key)
            found.append((name, target))
    return found


def _row_check_names(written: str, check: ListCheck, checks: int) -> list[str]:
    """The names one row check answers to: "<row> <label>", and the bare row if alone."""
    row = check_name(written)
    names = [f"{row} {check_name(check.label)}".strip()] if check.label else []
    if checks == 1:
        names.append(row)
    return names


def _row_check(list_id: str, position: int, written: str, check: ListCheck) -> CheckTarget:
    label = written.strip() + (f" ({check.label})" if check.label else "")
    return CheckTarget("row", check.id, label, check.ability, list_id, position, check.stance)


# ---------------------------------------------------------------------------
# Who the check is for


@dataclass(frozen=True, slots=True)
class CheckCharacter:
    """The character a check is for: stored name and `rulesetLive` key, or why there is none.

    A stranger's `name` is the `who` as written (SPEC §3: written back as given).
    """

    status: WhoStatus
    name: str | None = None
    key: str | None = None
    refusal: str | None = None
    """Why a check for this `who` is refused: `ambiguous-who` (two cards' names start
    with it) or `ambiguous-character` (two cards share it); None when it rolls."""

    @property
    def has_sheet(self) -> bool:
        """True only for a character with a card: everyone else reads nothing from a sheet."""
        return self.status == "character"


def find_check_character(
    snapshot: Snapshot, who: str | None
) -> tuple[CheckCharacter, CharacterCard | None]:
    """Who a check is for (SPEC §4, `resolve_who`), with their card.

    No `who` (or a blank one) is the player's character, the first card; a
    name is a card's by its normalised name, else the one card whose name
    starts with its words; a name matching no card either way is a stranger,
    a character without a sheet. A name that could be two cards is ambiguous,
    and the check is refused (`refusal`): SPEC §2.1, gmtags never guesses a
    value that decides a result, so two cards sharing a name (neither the
    player's) are refused too, where the reference rolled them unmodified
    (ENGINE-NOTES §4; SPEC wins).
    """
    asked = who if who is not None and who.strip() else None
    found = resolve_who(snapshot, asked)
    if found == "unknown-character":
        if asked is None:
            return CheckCharacter("none"), None
        return CheckCharacter("stranger", asked), None
    if isinstance(found, str):
        return CheckCharacter("ambiguous", asked, refusal=found), None
    return CheckCharacter("character", found.name, found.key), found.card


# ---------------------------------------------------------------------------
# The number


@dataclass(frozen=True, slots=True)
class AdjustPart:
    """One `resolution.adjust` entry that applied: its position, value and ability filter."""

    index: int
    value: float
    abilities: tuple[str, ...] | None


@dataclass(frozen=True, slots=True)
class CheckNumber:
    """The number a check rolls and every part it is made of.

    `sheet_number` is the number the sheet shows and rolls: ability modifier
    (plus a second ability's on a pool pair) + row rating + tier bonus + free
    bonus + untrained `by`, capped. `number` = `sheet_number` + `adjust_total`
    + `penalty`: the modifier of a sum, or the dice of a pool before its
    `pool.min`/`pool.max` and any dice the tag or a purchase adds. `abilities`
    are the abilities the check rolls with, as `adjust` and an attribute
    specialty (004, 1.213) read them. `with_ability` is the `with=` ability
    the number used, None when it was absent, unknown or meant nothing here.
    """

    name: str
    target: CheckTarget
    character: CheckCharacter
    abilities: tuple[str, ...] = ()
    with_ability: str | None = None
    with_label: str | None = None
    ability: str | None = None
    ability_modifier: float = 0
    second_ability: str | None = None
    second_modifier: float = 0
    rating: float = 0
    tier: str | None = None
    tier_bonus: float = 0
    free_bonus: float = 0
    untrained: UntrainedRule | None = None
    untrained_by: int = 0
    uncapped: float = 0
    cap: int | None = None
    capped: bool = False
    sheet_number: float = 0
    adjust: tuple[AdjustPart, ...] = ()
    adjust_total: int = 0
    penalty: int = 0
    number: float = 0

    @property
    def kind(self) -> CheckKind:
        """What the name matched: skill, save, ability, row or unknown."""
        return self.target.kind

    @property
    def id(self) -> str | None:
        """The matched entry's id (None when unknown)."""
        return self.target.id

    @property
    def label(self) -> str | None:
        """The matched entry's label (None when unknown)."""
        return self.target.label

    @property
    def has_sheet(self) -> bool:
        """True when the number was read from a character's sheet."""
        return self.character.has_sheet


@dataclass(frozen=True, slots=True)
class _Base:
    """The sheet's part of a number, before `adjust` and the wound penalty."""

    abilities: tuple[str, ...] = ()
    with_ability: Ability | None = None
    ability: str | None = None
    ability_modifier: float = 0
    second_ability: str | None = None
    second_modifier: float = 0
    rating: float = 0
    tier: str | None = None
    tier_bonus: float = 0
    free_bonus: float = 0
    untrained: UntrainedRule | None = None
    untrained_by: int = 0
    uncapped: float = 0
    cap: int | None = None
    capped: bool = False
    number: float = 0


def _tidy(value: float) -> float:
    """A whole float as an int, so a receipt writes `2`, never `2.0`."""
    return int(value) if isinstance(value, float) and value.is_integer() else value


def _entry_base(values: SheetValues, target: CheckTarget, chosen: Ability | None) -> _Base:
    """A skill or save: 002's parts, with `with=` replacing the ability before the cap."""
    kind = "save" if target.kind == "save" else "skill"
    parts: CheckParts | None = values.check_parts(
        kind, target.id or "", chosen.id if chosen is not None else None
    )
    if parts is None:
        return _Base()
    rule = parts.untrained
    return _Base(
        abilities=(parts.ability,) if parts.ability else (),
        with_ability=chosen,
        ability=parts.ability,
        ability_modifier=parts.ability_modifier,
        tier=parts.tier.id,
        tier_bonus=parts.tier_bonus,
        free_bonus=parts.free_bonus,
        untrained="by" if isinstance(rule, UntrainedBy) else rule,
        untrained_by=parts.untrained_by,
        uncapped=parts.uncapped,
        cap=parts.cap,
        capped=parts.capped,
        number=parts.number,
    )


def _pairs_abilities(values: SheetValues) -> bool:
    """000: `pool.abilityPlusAbility` on a dice-pool ruleset lets an ability check add another."""
    resolution = values.ruleset.resolution
    pool = resolution.get("pool")
    return (
        resolution.get("kind") == "dice-pool"
        and isinstance(pool, dict)
        and pool.get("abilityPlusAbility") is True
    )


def _ability_base(values: SheetValues, target: CheckTarget, chosen: Ability | None) -> _Base:
    """An ability check: its modifier, plus a second ability's on a pool that pairs them."""
    ability = target.id or ""
    modifier = values.ability_mod(ability)
    second = chosen if chosen is not None and _pairs_abilities(values) else None
    second_modifier = values.ability_mod(second.id) if second is not None else 0
    number = modifier + second_modifier
    return _Base(
        abilities=(ability, second.id) if second is not None else (ability,),
        with_ability=second,
        ability=ability,
        ability_modifier=modifier,
        second_ability=second.id if second is not None else None,
        second_modifier=second_modifier,
        untrained="normal",
        uncapped=number,
        number=number,
    )


def _row_base(values: SheetValues, target: CheckTarget, chosen: Ability | None) -> _Base:
    """004, 1.161: a row's rating plus its ability like a skill's; `with=` works as on a skill."""
    rows = values.rows(target.list or "")
    definition = values.sheet_list(target.list or "")
    checks = (definition.checks or []) if definition is not None else []
    check = next((c for c in checks if c.id == target.id), None)
    if check is None or target.row is None or target.row >= len(rows):
        return _Base()
    cell = rows[target.row].get(check.rating)
    rating = cell if isinstance(cell, int | float) and not isinstance(cell, bool) else 0
    ability = chosen.id if chosen is not None else check.ability
    modifier = values.ability_mod(ability) if ability else 0
    number = rating + modifier
    return _Base(
        abilities=(ability,) if ability else (),
        with_ability=chosen,
        ability=ability,
        ability_modifier=modifier,
        rating=rating,
        untrained="normal",
        uncapped=number,
        number=number,
    )


def _unknown_base(values: SheetValues, target: CheckTarget, chosen: Ability | None) -> _Base:
    """ENGINE-NOTES §4: an unknown skill has no number of its own and no untrained rule."""
    return _Base()


_BASES: dict[CheckKind, Callable[[SheetValues, CheckTarget, Ability | None], _Base]] = {
    "skill": _entry_base,
    "save": _entry_base,
    "ability": _ability_base,
    "row": _row_base,
    "unknown": _unknown_base,
}
"""How each kind of check reads its number from the sheet."""


def _adjust(values: SheetValues, abilities: tuple[str, ...]) -> tuple[AdjustPart, ...]:
    """002, "Modificadores fuera de la ficha": every entry for all checks or for these abilities.

    An entry with `abilities` applies to a check rolled with one of them: the
    ability itself, a skill or save using it, one `with=` switched to it, or an
    ability pair including it.
    """
    applied: list[AdjustPart] = []
    for index, entry in enumerate(values.ruleset.resolution_common.adjust):
        limited = tuple(entry.abilities) if entry.abilities is not None else None
        if limited is not None and not set(limited) & set(abilities):
            continue
        applied.append(AdjustPart(index, _tidy(values.value(entry.value)), limited))
    return tuple(applied)


def penalty_track(ruleset: Ruleset) -> str | None:
    """002, "La penalización de las tiradas": the wound track whose penalty every check from a
    sheet rolls with (`resolution.penaltyFrom`, which no override changes), None when checks
    take none. The one place this is decided: a check's number reads it (`_penalty`), and so
    do the GM block and the pages when they say a track's penalty applies to checks."""
    return ruleset.resolution_common.penalty_from


def _penalty(values: SheetValues) -> int:
    """002, "La penalización de las tiradas": the penalty of `penaltyFrom`, 0 without it."""
    track = penalty_track(values.ruleset)
    return 0 if track is None else math.trunc(values.track_read(track, "penalty"))


def sheet_check_number(
    ruleset: Ruleset,
    values: SheetValues | None,
    character: CheckCharacter,
    name: str,
    with_ability: str | None = None,
    name_key: NameKey = "skill",
) -> CheckNumber:
    """The number of one check for a character whose sheet values are `values`.

    `values=None` is a stranger or a character without a sheet: the name is
    still matched (so the receipt can say what was asked) but nothing comes
    from a sheet: no modifier, adjust, penalty or untrained rule (002, "Qué
    hace una prueba sin entrenamiento." and "Modificadores fuera de la ficha";
    ENGINE-NOTES §4). An unknown name rolls 0 from the sheet with the
    unlimited `adjust` entries and the wound penalty still applied.
    `name_key` is the attribute that named the check (`save=` reads saves only).
    """
    if values is None or not character.has_sheet:
        return CheckNumber(name, match_check(ruleset, name, values, name_key), character)
    if ruleset is not values.ruleset:
        return _sheet_number(ruleset, values, character, name, with_ability, name_key)
    # Kept on the sheet's values: `shared_values` hands the next check on an unchanged card
    # the same instance, so its numbers are worked out once (issue 16).
    key = (character.status, character.name, character.key, name, with_ability, name_key)
    found: CheckNumber | None = values.check_numbers.get(key)
    if found is None:
        found = values.check_numbers[key] = _sheet_number(
            ruleset, values, character, name, with_ability, name_key
        )
    return found


def _sheet_number(
    ruleset: Ruleset,
    values: SheetValues,
    character: CheckCharacter,
    name: str,
    with_ability: str | None,
    name_key: NameKey,
) -> CheckNumber:
    target = match_check(ruleset, name, values, name_key)
    chosen = match_ability(ruleset, with_ability) if with_ability else None
    base = _BASES[target.kind](values, target, chosen)
    adjust = _adjust(values, base.abilities)
    adjust_total = math.trunc(sum(part.value for part in adjust))
    penalty = _penalty(values)
    sheet_number = _tidy(base.number)
    used = base.with_ability
    return CheckNumber(
        name=name,
        target=target,
        character=character,
        abilities=base.abilities,
        with_ability=used.id if used is not None else None,
        with_label=used.label if used is not None else None,
        ability=base.ability,
        ability_modifier=_tidy(base.ability_modifier),
        second_ability=base.second_ability,
        second_modifier=_tidy(base.second_modifier),
        rating=_tidy(base.rating),
        tier=base.tier,
        tier_bonus=_tidy(base.tier_bonus),
        free_bonus=_tidy(base.free_bonus),
        untrained=base.untrained,
        untrained_by=base.untrained_by,
        uncapped=_tidy(base.uncapped),
        cap=base.cap,
        capped=base.capped,
        sheet_number=sheet_number,
        adjust=adjust,
        adjust_total=adjust_total,
        penalty=penalty,
        number=_tidy(sheet_number + adjust_total + penalty),
    )


def check_sheet(
    ruleset: Ruleset, snapshot: Snapshot, who: str | None
) -> tuple[CheckCharacter, SheetValues | None]:
    """Who a check is for and their sheet's values (None for a stranger or no character),
    read once: the check's number and everything it pays read the same sheet."""
    character, card = find_check_character(snapshot, who)
    if card is None or character.key is None:
        return character, None
    return character, shared_values(ruleset, card, snapshot.ruleset_live.get(character.key))


def check_number(
    ruleset: Ruleset,
    snapshot: Snapshot,
    who: str | None,
    name: str,
    with_ability: str | None = None,
    name_key: NameKey = "skill",
) -> CheckNumber:
    """The number a check rolls for `who` in `snapshot`: the one source the check tags read.

    000, "Tipos de resolución" (how the sheet number is formed), 002 "Una
    habilidad o salvación puede llevar un cap", "La penalización de las
    tiradas", "Modificadores fuera de la ficha", 000 "Qué puede escribir el
    Game Master en una prueba de reserva" (`with=`) and 004 "Filas que son
    pruebas por sí mismas". Live reads take the character's live state as the
    snapshot holds it.
    """
    character, values = check_sheet(ruleset, snapshot, who)
    return sheet_check_number(ruleset, values, character, name, with_ability, name_key)
