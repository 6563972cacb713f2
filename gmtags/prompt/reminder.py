"""The per-turn reminder of the GM instructions (002, "Texto del Game Master", the clock
reminder and the party block; 000 on what the GM is taught about checks).

Each turn the GM is reminded of:
- the commands this ruleset allows, each taught with the names the file
  declares (in the value they go in, `pool="Grit|Luck"`, as `state="on|off"`
  is written; `who` said once before the sheet commands): checks opening with
  the worked exchange for the ruleset's check kind (`gmtags.prompt.example`,
  SPEC §2.1: a tag and the receipt the engine writes for it), then the kind's
  own options (ladder rungs, outcome tiers and their text, pool options only
  when the ruleset declares them, untrained rules by section or skill), every
  sheet op with its pools, tracks, wound
  levels and kinds, states and their values, conditions, notes, rests and
  advanceable fields, the party sheet and the clocks;
- the sheet block of every character: ability modifiers, trained skills and
  saves with their numbers, the `gm.sheetSummary` fields, derived values and
  lists, and the live values (pools always, states always, plain tracks only
  away from their default unless `alwaysShow`, wound tracks with their marks);
- the party block and the clocks with their fill.
A character's items are not listed in the sheet block: what they give reaches
it through the numbers that read them (`itemStat`, in the derived values
`gm.sheetSummary` names, such as Ember Roads' Guard), and an inventory list
with its item stats' `promptVisible` belongs with playing inventories.
Ruleset text is prompt-safe already; snapshot text goes through `one_line`.
"""

from __future__ import annotations

from typing import Any

from gmtags.checks.kinds import kind_of
from gmtags.prompt.example import worked_exchange
from gmtags.prompt.text import number, one_line, signed
from gmtags.ruleset.model import Ruleset
from gmtags.ruleset.resolution import Outcomes
from gmtags.ruleset.sheet import EnumColumn, UntrainedBy
from gmtags.sheet import wounds
from gmtags.sheet.live import character_pools, pool_reading
from gmtags.sheet.numbers import CheckCharacter, penalty_track, row_checks, sheet_check_number
from gmtags.sheet.party import PartyValues
from gmtags.sheet.values import SheetValues
from gmtags.state.characters import party_members
from gmtags.state.names import normalize_name
from gmtags.state.snapshot import EMPTY_LIVE, LiveEntry, Snapshot

# ----------------------------------------------------------------- checks


def _outcomes(outcomes: Outcomes | None) -> list[str]:
    if outcomes is None:
        return []
    lines = ["Outcome tiers (the engine names one; narrate it):"]
    for tier in outcomes.tiers:
        text = f": {tier.text}" if tier.text else ""
        lines.append(f"  - {tier.label}{text}")
    return lines


def _kind_lines(ruleset: Ruleset) -> list[str]:
    """The kind's own lines (000: its options, its ladder), then the outcome tiers."""
    rules = ruleset.resolution_rules
    return kind_of(rules).reminder(rules) + _outcomes(rules.outcomes)


def _untrained(ruleset: Ruleset) -> str | None:
    words = {"refuse": "cannot be attempted", "harder": "is harder"}

    def say(rule: Any) -> str | None:
        if isinstance(rule, UntrainedBy):
            return f"rolls {signed(rule.by)}"
        return words.get(rule) if isinstance(rule, str) else None

    parts = []
    sheet = ruleset.sheet
    for section in sheet.sections:
        said = say(section.untrained)
        if said:
            parts.append(f"{section.label} (every skill in it) {said}")
    for entry in (*sheet.skills, *sheet.saves):
        said = say(entry.untrained)
        if said:
            parts.append(f"{entry.label} {said}")
    return "Untrained: " + "; ".join(parts) + "." if parts else None


def _contextual(ruleset: Ruleset) -> str | None:
    """004: rows and picked entries that apply to a check only when the GM names them."""
    lists = [lst.label for lst in ruleset.sheet.lists if lst.contextual is not None]
    entries = any(
        entry.mechanics is not None and entry.mechanics.contextual is not None
        for catalog in ruleset.catalog_models
        for entry in catalog.entries or ()
    )
    if not lists and not entries:
        return None
    where = ", ".join(lists) if lists else "picked catalog entries"
    return (
        f'apply="<name>; <name>" applies up to four rows or entries that fit the check ({where}).'
    )


CHECK_FORM = (
    'Check: [skill_check: skill="<skill, save or ability>" dc="<number>" who="<character>"]'
)
"""The check line for a ruleset with nothing a worked exchange could name."""


def check_commands(ruleset: Ruleset) -> list[str]:
    """How to ask for a check in this ruleset (000: what the GM is taught), opening with the
    worked exchange for its check kind (SPEC §2.1: the tag and the engine's receipt)."""
    exchange = worked_exchange(ruleset)
    if exchange is None:
        lines = [CHECK_FORM]
    else:
        lines = [
            f"Check, for example: {exchange.tag} (skill= a skill, save or ability) reaches "
            f"the player as {exchange.receipt}"
        ]
    lines += [f"  {line}" for line in _kind_lines(ruleset)]
    contextual = _contextual(ruleset)
    if contextual:
        lines.append(f"  {contextual}")
    untrained = _untrained(ruleset)
    if untrained:
        lines.append(f"  {untrained}")
    return lines


# ------------------------------------------------------------------- sheet ops


SHEET_WHO = 'Sheet commands take who="<character>" (who="party": everyone):'
"""The line before a character's sheet commands, saying `who` once for all (SPEC §4)."""


def _choice(names: list[str]) -> str:
    """A value the GM picks from the file's names, written as `state="on|off"` is."""
    return "|".join(names)


def sheet_commands(ruleset: Ruleset) -> list[str]:
    """Every sheet op this ruleset can use, with the names the file declares (002), each
    name in the value it goes in (`pool="Grit|Luck"`)."""
    sheet, live = ruleset.sheet, ruleset.sheet.live
    lines: list[str] = []
    if live.pools:
        pools = _choice([p.label for p in live.pools])
        lines.append(f'[sheet: op="spend|restore|damage" pool="{pools}" amount="N"]')
        temps = [p.label for p in live.pools if p.allow_temp]
        if temps:
            lines.append(
                f'[sheet: op="temp" pool="{_choice(temps)}" amount="N"] sets temporary points.'
            )
    plain = [t.label for t in live.tracks if not t.is_wound]
    if plain:
        lines.append(f'[sheet: op="track" track="{_choice(plain)}" by="N"] (or to="N").')
    for track in live.tracks:
        if not track.is_wound or not track.kinds:
            continue
        kinds = ", ".join(f"{k.id} ({k.label})" for k in track.kinds)
        if track.levels:
            levels = ", ".join(f"{lv.label} {number(lv.penalty)}" for lv in track.levels)
            shape = f"levels {levels}"
        else:
            shape = 'box="N" picks the numbered box a blow lands in'
        lines.append(
            f'[sheet: op="damage" track="{track.label}" kind="<kind>" amount="N"] '
            f"(negative heals). Kinds: {kinds}; {shape}."
        )
    for state in live.states:
        labels = state.value_labels or {}
        values = _choice([labels.get(v, v) for v in state.values])
        lines.append(f'[sheet: op="state" state="{state.label}" value="{values}"]')
    if live.conditions:
        names = _choice([c.label for c in live.conditions])
        lines.append(f'[sheet: op="condition" condition="{names}" state="on|off"]')
    if live.text:
        names = _choice([t.label for t in live.text])
        lines.append(f'[sheet: op="note" field="{names}" value="<text>"]')
    if ruleset.rests:
        lines.append(f'[sheet: op="rest" rest="{_choice([r.label for r in ruleset.rests])}"]')
    if sheet.advancement is not None and sheet.advancement.fields:
        labels = {f.id: f.label for f in sheet.fields}
        names = _choice([labels.get(f, f) for f in sheet.advancement.fields])
        text = f" {sheet.advancement.text}" if sheet.advancement.text else ""
        lines.append(f'[sheet: op="advance" field="{names}" by="N"] (or to="<value>").{text}')
    if lines:
        lines.insert(0, SHEET_WHO)
    party = ruleset.party
    if party is not None:
        if party.pools:
            names = _choice([p.label for p in party.pools])
            lines.append(
                f'[sheet: sheet="party" op="spend|restore" pool="{names}" amount="N"] uses '
                f"{party.label}'s pools."
            )
        if party.advancement is not None and party.advancement.fields:
            labels = {f.id: f.label for f in party.fields}
            names = _choice([labels.get(f, f) for f in party.advancement.fields])
            text = f" {party.advancement.text}" if party.advancement.text else ""
            lines.append(
                f'[sheet: sheet="party" op="advance" field="{names}" by="N"] (or to="<value>").'
                f"{text}"
            )
    return lines


def clock_commands(ruleset: Ruleset) -> list[str]:
    """The clock commands, when the ruleset enables clocks (002, clocks)."""
    clocks = ruleset.clocks
    if clocks is None:
        return []
    sizes = ", ".join(str(s) for s in clocks.sizes)
    lines = [
        f'[clock: name="<name>" size="N"] creates a clock (sizes {sizes}; '
        f"at most {clocks.max} at once); "
        '[clock: name="<name>" tick="N"] fills it (negative empties); '
        '[clock: name="<name>" clear] removes it.'
    ]
    if clocks.text:
        lines.append(clocks.text)
    return lines


# ----------------------------------------------------------------- sheet blocks


def _shown(value: object, shape: Any = None) -> str:
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, int | float):
        return number(value)
    labels = getattr(shape, "value_labels", None) or {}
    return one_line(labels.get(value, value))


def _summary_lines(ruleset: Ruleset, values: SheetValues) -> list[str]:
    summary = ruleset.gm_text.sheet_summary
    out: list[str] = []
    fields = {f.id: f for f in ruleset.sheet.fields}
    shown = [
        f"{fields[f].label} {_shown(values.field(f), fields[f])}"
        for f in summary.fields
        if f in fields
        and not values.hidden(fields[f].hide_when)
        and values.field(f) not in ("", None)
    ]
    derived = {d.id: d for d in ruleset.sheet.derived}
    shown += [
        f"{derived[d].label} {number(values.derived(d))}"
        for d in summary.derived
        if d in derived and not values.hidden(derived[d].hide_when)
    ]
    if shown:
        out.append("; ".join(shown))
    for entry in summary.lists:
        definition = values.sheet_list(entry.list)
        if definition is None:
            continue
        columns = {c.id: c for c in definition.columns}
        items = []
        for row in values.rows(entry.list):
            if entry.only_when is not None and row.get(entry.only_when) is not True:
                continue
            name = _shown(row.get(entry.name_column), columns.get(entry.name_column))
            extras = []
            for column_id in entry.columns or []:
                cell, column = row.get(column_id), columns.get(column_id)
                if isinstance(cell, bool):
                    if cell and column is not None:
                        extras.append(column.label)
                elif cell not in (None, ""):
                    extras.append(_shown(cell, column if isinstance(column, EnumColumn) else None))
            items.append(" ".join([name, *extras]).strip())
        if items:
            out.append(f"{definition.label}: {', '.join(i for i in items if i)}")
    return out


def _live_lines(ruleset: Ruleset, values: SheetValues, entry: LiveEntry) -> list[str]:
    parts: list[str] = []
    for pool in character_pools(values):
        value, temp = pool_reading(pool, entry)
        extra = f" +{temp} temp" if temp else ""
        parts.append(f"{one_line(pool.label)} {value}/{pool.max}{extra}")
    for track in ruleset.sheet.live.tracks:
        if values.track(track.id) is None:
            continue
        if track.is_wound:
            shape, marks = values.wound_track(track.id), values.wound_state(track.id)
            if shape is None or (not marks.marks and not marks.overflow and not track.always_show):
                continue
            # only a penalty the checks roll with is told as one (a level's own is not)
            penalty = wounds.penalty(shape, marks) if track.id == penalty_track(ruleset) else 0
            cost = f" ({signed(penalty)} to checks)" if penalty else ""
            parts.append(wounds.now_text(shape, marks) + cost)
        else:
            value = values.track_value(track.id)
            if value != values.track_start(track.id) or track.always_show:
                parts.append(f"{track.label} {value}")
    for state in ruleset.sheet.live.states:
        if values.live_state(state.id) is not None:
            current = values.state_value(state.id)
            parts.append(f"{state.label} {(state.value_labels or {}).get(current, current)}")
    conditions = {c.id: c.label for c in ruleset.sheet.live.conditions}
    on = [conditions[c] for c in entry.conditions if c in conditions]
    if on:
        parts.append("Conditions: " + ", ".join(on))
    notes = {t.id: t.label for t in ruleset.sheet.live.text}
    parts += [f"{notes[k]}: {one_line(v)}" for k, v in entry.text.items() if k in notes and v]
    return parts


def _row_check_parts(ruleset: Ruleset, values: SheetValues, character: CheckCharacter) -> list[str]:
    """004, "Filas que son pruebas por sí mismas": "El bloque de ficha del Game Master
    enumera cada prueba de fila con su número", each by the name that calls it, with the
    stance it counts in (1.212)."""
    stances = {s.id: s.label for s in getattr(ruleset.resolution_rules, "stances", None) or []}
    parts = []
    for name, target in row_checks(values):
        result = sheet_check_number(ruleset, values, character, name)
        if result.target != target:
            continue  # a skill, save or ability of the same name answers first
        stance = f" ({stances[target.stance]} stance)" if target.stance in stances else ""
        parts.append(f"{one_line(target.label or name)} {signed(result.sheet_number)}{stance}")
    return parts


def _available(ruleset: Ruleset, card: object) -> list[str]:
    """004, "Objetos accesibles sin llevarlos" (1.215): the items a pick's `grants.itemAccess`
    makes available, which "la ficha y el bloque de ficha del Game Master los muestran como no
    llevados", by their labels, as the builder recorded them (`builder.available`); one the
    GM has since added to the inventory is carried, so no longer listed."""
    extra = getattr(card, "model_extra", None) or {}
    record = extra.get("builder")
    refs = record.get("available") if isinstance(record, dict) else None
    if not isinstance(refs, list):
        return []
    labels = {
        f"{catalog.id}/{entry.id}": entry.label
        for catalog in ruleset.catalog_models
        for entry in catalog.entries or ()
    }
    carried = {item.ref for item in getattr(card, "items", ()) if item.ref is not None}
    return [
        one_line(labels[ref])
        for ref in refs
        if isinstance(ref, str) and ref in labels and ref not in carried
    ]


def _purse(ruleset: Ruleset, card: object) -> list[str]:
    """The starting coins the builder's kits gave (004, 1.157; `builder.coins`), each as its
    amount and the unit's label from `items.currencies` (else its id)."""
    extra = getattr(card, "model_extra", None) or {}
    record = extra.get("builder")
    coins = record.get("coins") if isinstance(record, dict) else None
    if not isinstance(coins, dict):
        return []
    labels: dict[str, str] = {}
    families = (ruleset.items or {}).get("currencies")
    for family in families if isinstance(families, list) else ():
        for unit in family.get("units", ()) if isinstance(family, dict) else ():
            if isinstance(unit, dict) and isinstance(unit.get("id"), str):
                labels[unit["id"]] = str(unit.get("label") or unit["id"])
    return [
        f"{amount} {one_line(labels.get(unit, unit))}"
        for unit, amount in coins.items()
        if isinstance(amount, int) and not isinstance(amount, bool) and amount > 0
    ]


def character_block(ruleset: Ruleset, snapshot: Snapshot, name: str) -> list[str]:
    """One character's sheet block: what the GM needs every turn (002, "Texto del GM")."""
    card = snapshot.game_character_cards.get(name)
    key = normalize_name(name)
    entry = snapshot.ruleset_live.get(key) or EMPTY_LIVE
    values = SheetValues(ruleset, card, entry)
    lines = [f"{one_line(name)}:"]
    abilities = [
        f"{a.label} {number(values.ability_score(a.id))} ({signed(values.ability_mod(a.id))})"
        if ruleset.resolution_common.ability_modifier.op != "identity"
        else f"{a.label} {number(values.ability_score(a.id))}"
        for a in ruleset.sheet.abilities
    ]
    if abilities:
        lines.append("  Abilities: " + ", ".join(abilities))
    character = CheckCharacter("character", name, key)
    trained = []
    for kind, entries in (("skill", ruleset.sheet.skills), ("save", ruleset.sheet.saves)):
        for item in entries:
            if values.trained(kind, item.id):
                result = sheet_check_number(ruleset, values, character, item.id)
                trained.append(f"{item.label} {signed(result.sheet_number)}")
    if trained:
        lines.append("  Trained: " + ", ".join(trained))
    rows = _row_check_parts(ruleset, values, character)
    if rows:
        lines.append("  Row checks: " + ", ".join(rows))
    lines += [f"  {line}" for line in _summary_lines(ruleset, values)]
    available = _available(ruleset, card)
    if available:
        lines.append("  Available, not carried: " + ", ".join(available))
    purse = _purse(ruleset, card)
    if purse:
        lines.append("  Coins: " + ", ".join(purse))
    live = _live_lines(ruleset, values, entry)
    if live:
        lines.append("  Now: " + "; ".join(live))
    return lines


def party_block(ruleset: Ruleset, snapshot: Snapshot) -> list[str]:
    """The shared party sheet: its label, fields and pools (002, "Ficha de grupo")."""
    party = ruleset.party
    if party is None:
        return []
    values = PartyValues(ruleset, party, snapshot)
    wanted = party.summary.fields if party.summary is not None and party.summary.fields else None
    parts = [
        f"{field.label} {_shown(values.field(field.id), field)}"
        for field in party.fields
        if (wanted is None or field.id in wanted)
        and not values.hidden(field.hide_when)
        and values.field(field.id) not in ("", None)
    ]
    entry = snapshot.ruleset_live.get("$party") or EMPTY_LIVE
    for pool in values.pools():
        value, _ = pool_reading(pool, entry)
        parts.append(f"{pool.label} {value}/{pool.max}")
    lines = [f"{party.label} (the party): " + "; ".join(parts)]
    if party.text:
        lines.append(f"  {party.text}")
    return lines


def clocks_block(ruleset: Ruleset, snapshot: Snapshot) -> list[str]:
    """The clocks with their fill (002: named and filled on every turn)."""
    if ruleset.clocks is None:
        return []
    clocks = snapshot.ruleset_clocks
    if not clocks:
        return ["Clocks: none yet."]
    shown = [
        f"{one_line(c.name)} {c.filled}/{c.size}" + (" (full)" if c.filled == c.size else "")
        for c in clocks
    ]
    return ["Clocks: " + "; ".join(shown)]


def turn_reminder(ruleset: Ruleset, snapshot: Snapshot) -> str:
    """The whole per-turn reminder for `ruleset` and `snapshot`."""
    lines = ["Commands you may write:"]
    lines += [
        f"- {line}" if not line.startswith("  ") else line for line in check_commands(ruleset)
    ]
    lines += [f"- {line}" for line in sheet_commands(ruleset)]
    lines += [f"- {line}" for line in clock_commands(ruleset)]
    members = party_members(snapshot)
    if members:
        lines += ["", "Character sheets:"]
        for member in members:
            lines += character_block(ruleset, snapshot, member.name)
    party = party_block(ruleset, snapshot)
    clocks = clocks_block(ruleset, snapshot)
    if party or clocks:
        lines.append("")
    return "\n".join([*lines, *party, *clocks])
