"""`[sheet:]`: the commands that change a character's sheet, or the party's, in play.

SPEC §5 and ENGINE-NOTES §6: `spend`, `restore` (alias `heal`), `damage` (a
pool, or a wound track with `kind`, `amount` ± and `box`), `temp`, `track`,
`condition`, `state`, `note`, `rest`, `use` (alias `cast`), and what the seeds
add: `advance` (002, "Ficha de grupo…"; 004, "Listas de avance más largas"),
`sheet="party"` (the shared sheet: `spend`, `restore`, `advance`) and
`who="party"` (every character).

`who` finds its character as SPEC §4 says (`resolve_who`): by normalised
name, else the one card whose name starts with the name's words; no card
either way is `unknown-character` (a command has no sheet to change), two
cards sharing the name (neither the player's) `ambiguous-character`, two
cards whose names start with it `ambiguous-who`.

The ops are a table keyed by op name (STYLE 1); each op reads what it needs
from the tag and hands the work to a pure transition in `gmtags.sheet`. A
refused command returns the snapshot it was given; an applied one returns a
new snapshot built only from validated parts.

Receipt (SPEC §3, ENGINE-NOTES §6): `who` (the card's stored name, also when
the tag left it implied, or `party`) or `sheet`, then `op`, then the op's own
attributes in the documented order, then `result="ok" now="…"` or
`result="refused" reason="…"`. Attributes the op does not read are dropped
from the receipt (they stay in the receipt's inputs); values are echoed as
written. `now` is cut to 240 characters at the last `; `.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import cached_property
from types import MappingProxyType

from gmtags.engine.context import Applied, Context
from gmtags.limits import DEFAULT_LIMITS
from gmtags.ruleset.model import Ruleset
from gmtags.ruleset.party import Party
from gmtags.sheet import live
from gmtags.sheet.advance import Advanced, advance_field
from gmtags.sheet.live import Outcome, PoolSpec, Refused
from gmtags.sheet.party import PartyValues
from gmtags.sheet.use import use
from gmtags.sheet.values import Scalar, SheetValues, shared_values
from gmtags.state.characters import PARTY_WHO, Character, party_members, resolve_who
from gmtags.state.names import PARTY_KEY, normalize_name
from gmtags.state.saves import raise_revision
from gmtags.state.snapshot import EMPTY_LIVE, CharacterCard, LiveEntry, PartySheet, Snapshot
from gmtags.tags.card import Pairs, sheet_card
from gmtags.tags.parse import ParsedTag
from gmtags.tags.receipt import Receipt, refused
from gmtags.text import parse_int

ALIASES: Mapping[str, str] = MappingProxyType({"heal": "restore", "cast": "use"})
"""ENGINE-NOTES §6: the words a GM reaches for, folded into the op they mean."""

PARTY_SHEET_OPS = frozenset({"spend", "restore", "advance"})
"""002, "Ficha de grupo…": the ops the shared party sheet takes."""

_POOL = ("pool", "amount")
_WOUND = ("track", "kind", "amount", "box")
_ECHO: Mapping[str, tuple[str, ...]] = MappingProxyType(
    {
        "spend": _POOL,
        "restore": _POOL,
        "temp": _POOL,
        "track": ("track", "to", "by"),
        "condition": ("condition", "state"),
        "state": ("state", "value"),
        "note": ("field", "value"),
        "rest": ("rest",),
        "use": ("name", "spell", "pool"),
        "advance": ("field", "by", "to"),
    }
)


@dataclass(frozen=True, slots=True)
class Done:
    """One op applied to one sheet: the snapshot after it and the receipt's `now`."""

    snapshot: Snapshot
    now: str


Result = Done | Refused


# ---------------------------------------------------------------------------
# Reading the tag


def canonical_op(written: str | None) -> str | None:
    """The op a tag asks for, aliases folded (`heal`→`restore`, `cast`→`use`); None if unknown."""
    if written is None:
        return None
    name = written.strip().lower()
    name = ALIASES.get(name, name)
    return name if name in CHARACTER_OPS else None


def cut_summary(text: str, limit: int = DEFAULT_LIMITS.now_length) -> str:
    """Cut a `; `-joined summary to `limit` without splitting an entry in half (ENGINE-NOTES §6)."""
    if len(text) <= limit:
        return text
    cut = text[:limit]
    last = cut.rfind("; ")
    return cut[:last] if last > 0 else cut


def _int(tag: ParsedTag, key: str, context: Context) -> int | None:
    """A whole number the tag wrote (bounded length, SPEC §8); None when absent or unreadable."""
    return parse_int(tag.get(key), context.limits.integer_digits)


def _shown_attrs(tag: ParsedTag, op: str | None) -> tuple[str, ...]:
    if op == "damage":
        return _WOUND if tag.get("track") is not None else _POOL
    return _ECHO.get(op or "", ())


def _echo(tag: ParsedTag, op: str | None, head: tuple[str, str | None] | None) -> Pairs:
    """The receipt's attributes before `result`: who or sheet, op, then the op's own."""
    pairs: list[tuple[str, str | None]] = []
    if head is not None:
        pairs.append(head)
    else:
        pairs.extend((key, tag.get(key)) for key in ("who", "sheet") if tag.has(key))
    if tag.has("op"):
        pairs.append(("op", tag.get("op")))
    pairs.extend((key, tag.get(key)) for key in _shown_attrs(tag, op) if tag.has(key))
    return tuple(pairs)


def _inputs(tag: ParsedTag) -> Pairs:
    return tuple((attr.key, attr.value) for attr in tag.attrs)


# ---------------------------------------------------------------------------
# Writing the snapshot (model_copy only with validated parts)


def _with_live(snapshot: Snapshot, key: str, entry: LiveEntry) -> Snapshot:
    """The snapshot with one `rulesetLive` entry replaced; an entry storing nothing is dropped."""
    entries = dict(snapshot.ruleset_live)
    if live.is_empty(entry):
        entries.pop(key, None)
    else:
        entries[key] = entry
    return snapshot.model_copy(update={"ruleset_live": entries})


def _with_card_field(snapshot: Snapshot, who: Character, field_id: str, value: Scalar) -> Snapshot:
    """The snapshot with one permanent field of a card written (the card validated again)."""
    data = who.card.model_dump()
    data["fields"] = {**who.card.fields, field_id: value}
    card = CharacterCard.model_validate(data)
    return snapshot.model_copy(
        update={"game_character_cards": {**snapshot.game_character_cards, who.name: card}}
    )


def _with_party_field(snapshot: Snapshot, field_id: str, value: Scalar) -> Snapshot:
    """The snapshot with one party field written in `gamePartySheet.fields`."""
    old = snapshot.game_party_sheet
    data = old.model_dump() if old is not None else {}
    data["fields"] = {**(old.fields if old is not None else {}), field_id: value}
    return snapshot.model_copy(update={"game_party_sheet": PartySheet.model_validate(data)})


# ---------------------------------------------------------------------------
# Character ops


_POOL_MEMO_SIZE = 64
_pool_memo: dict[tuple[int, int], tuple[Ruleset, CharacterCard, tuple[PoolSpec, ...]]] = {}


def character_pools(values: SheetValues) -> tuple[PoolSpec, ...]:
    """`live.character_pools`, remembered per ruleset and card object.

    A character's pools (which exist, their maxima, their starts) read the card
    and never live state (import refuses live reads in `max` and `startFrom`),
    and both objects are immutable, so a reply of many commands on one
    character works them out once. The memo keeps the objects it is keyed by,
    so an id is never reused while its entry stands; it is bounded and cleared
    when full.
    """
    assert values.card is not None
    key = (id(values.ruleset), id(values.card))
    hit = _pool_memo.get(key)
    if hit is not None and hit[0] is values.ruleset and hit[1] is values.card:
        return hit[2]
    pools = live.character_pools(values)
    if len(_pool_memo) >= _POOL_MEMO_SIZE:
        _pool_memo.clear()
    _pool_memo[key] = (values.ruleset, values.card, pools)
    return pools


class _Sheet:
    """One character's sheet for one command: the values, the stored live entry, its pools."""

    def __init__(self, context: Context, snapshot: Snapshot, who: Character) -> None:
        self.entry = snapshot.ruleset_live.get(who.key) or EMPTY_LIVE
        self.values = shared_values(context.ruleset, who.card, self.entry)

    @cached_property
    def pools(self) -> tuple[PoolSpec, ...]:
        """The pools this character has now (declared ones, then list rows)."""
        return character_pools(self.values)


LiveWork = Callable[[_Sheet, ParsedTag, Context], Outcome]
CharacterOp = Callable[[ParsedTag, Snapshot, Character, Context], Result]


def _live_op(work: LiveWork) -> CharacterOp:
    """An op that changes the character's live entry (`rulesetLive.<name>`)."""

    def run(tag: ParsedTag, snapshot: Snapshot, who: Character, context: Context) -> Result:
        sheet = _Sheet(context, snapshot, who)
        outcome = work(sheet, tag, context)
        if isinstance(outcome, Refused):
            return outcome
        return Done(_with_live(snapshot, who.key, outcome.entry), outcome.now)

    return run


def _pool_work(move: live.PoolOp) -> LiveWork:
    """spend, restore, temp and pool damage: `pool` and `amount` are both needed."""

    def work(sheet: _Sheet, tag: ParsedTag, context: Context) -> Outcome:
        pool = tag.get("pool")
        if pool is None or tag.get("amount") is None:
            return Refused("malformed")
        amount = _int(tag, "amount", context)
        return move(sheet.pools, sheet.entry, pool, amount, most=context.limits.max_amount)

    return work


def _damage(sheet: _Sheet, tag: ParsedTag, context: Context) -> Outcome:
    """002, "Marcar durante el juego.": `track=` marks a wound track; `pool=` is the pool form."""
    track = tag.get("track")
    if track is None:
        return _pool_work(live.damage_pool)(sheet, tag, context)
    if tag.get("amount") is None:
        return Refused("malformed")
    box: int | None = None
    if tag.get("box") is not None:
        # An unreadable box is no box any track has: 0 refuses as bad-amount.
        box = _int(tag, "box", context) or 0
    amount = _int(tag, "amount", context)
    most = context.limits.max_amount
    return live.mark_wounds(
        sheet.values, sheet.entry, track, tag.get("kind"), amount, box, most=most
    )


def _track(sheet: _Sheet, tag: ParsedTag, context: Context) -> Outcome:
    """`op="track"`: exactly one of `to` and `by`, else malformed."""
    track = tag.get("track")
    given = [key for key in ("to", "by") if tag.get(key) is not None]
    if track is None or len(given) != 1:
        return Refused("malformed")
    shift: live.Shift = "to" if given[0] == "to" else "by"
    return live.move_track(sheet.values, sheet.entry, track, shift, _int(tag, shift, context))


def _condition(sheet: _Sheet, tag: ParsedTag, _context: Context) -> Outcome:
    """`state` is on/add/true or off/remove/false; no value turns the condition on."""
    condition = tag.get("condition")
    state = (tag.get("state") or "").strip().lower()
    if condition is None or state not in ("", *live.TRUE_WORDS, *live.FALSE_WORDS):
        return Refused("malformed")
    return live.set_condition(sheet.values, sheet.entry, condition, state not in live.FALSE_WORDS)


def _state(sheet: _Sheet, tag: ParsedTag, _context: Context) -> Outcome:
    state, value = tag.get("state"), tag.get("value")
    if state is None or value is None:
        return Refused("malformed")
    return live.set_state(sheet.values, sheet.entry, state, value)


def _note(sheet: _Sheet, tag: ParsedTag, _context: Context) -> Outcome:
    """An absent value clears the note, as an empty one does."""
    field = tag.get("field")
    if field is None:
        return Refused("malformed")
    return live.write_note(sheet.values, sheet.entry, field, tag.get("value") or "")


def _rest(sheet: _Sheet, tag: ParsedTag, _context: Context) -> Outcome:
    rest = tag.get("rest")
    if rest is None:
        return Refused("malformed")
    return live.take_rest(sheet.values, sheet.pools, sheet.entry, rest)


def _use(sheet: _Sheet, tag: ParsedTag, _context: Context) -> Outcome:
    """`name=` (or `spell=`) names the picked entry; `pool=` pays from another pool of its group."""
    name = tag.get("name")
    name = name if name is not None else tag.get("spell")
    if name is None:
        return Refused("malformed")
    return use(sheet.values, sheet.pools, sheet.entry, name, tag.get("pool"))


def _advance_character(
    tag: ParsedTag, snapshot: Snapshot, who: Character, context: Context
) -> Result:
    """004, "Listas de avance más largas": a field listed in `sheet.advancement.fields`."""
    field = tag.get("field")
    if field is None:
        return Refused("malformed")
    sheet = context.ruleset.sheet
    values = SheetValues(context.ruleset, who.card, snapshot.ruleset_live.get(who.key))
    listed = sheet.advancement.fields if sheet.advancement is not None else ()
    outcome = advance_field(
        sheet.fields, listed, values.field, values.hidden, field, tag.get("by"), tag.get("to")
    )
    if isinstance(outcome, Refused):
        return outcome
    return Done(_with_card_field(snapshot, who, outcome.field_id, outcome.value), outcome.now)


CHARACTER_OPS: Mapping[str, CharacterOp] = MappingProxyType(
    {
        "spend": _live_op(_pool_work(live.spend)),
        "restore": _live_op(_pool_work(live.restore)),
        "damage": _live_op(_damage),
        "temp": _live_op(_pool_work(live.set_temp)),
        "track": _live_op(_track),
        "condition": _live_op(_condition),
        "state": _live_op(_state),
        "note": _live_op(_note),
        "rest": _live_op(_rest),
        "use": _live_op(_use),
        "advance": _advance_character,
    }
)
"""Every op a character's sheet takes, by canonical name (ENGINE-NOTES §6 plus `advance`)."""


# ---------------------------------------------------------------------------
# Party sheet ops

PartyOp = Callable[[ParsedTag, Snapshot, PartyValues, Context], Result]


def _party_pool(move: live.PoolOp) -> PartyOp:
    """002: party pools follow a character's pool arithmetic; they live in `$party`."""

    def run(tag: ParsedTag, snapshot: Snapshot, party: PartyValues, context: Context) -> Result:
        pool = tag.get("pool")
        if pool is None or tag.get("amount") is None:
            return Refused("malformed")
        amount = _int(tag, "amount", context)
        outcome = move(party.pools(), party.live, pool, amount, most=context.limits.max_amount)
        if isinstance(outcome, Refused):
            return outcome
        return Done(_with_live(snapshot, PARTY_KEY, outcome.entry), outcome.now)

    return run


def _advance_party(
    tag: ParsedTag, snapshot: Snapshot, party: PartyValues, _context: Context
) -> Result:
    """002: `party.advancement.fields`; a field read from the members is never advanced."""
    field = tag.get("field")
    if field is None:
        return Refused("malformed")
    definition = party.party
    listed = definition.advancement.fields if definition.advancement is not None else ()
    outcome: Advanced | Refused = advance_field(
        definition.fields,
        listed,
        party.field,
        party.hidden,
        field,
        tag.get("by"),
        tag.get("to"),
        locked=party.members,
    )
    if isinstance(outcome, Refused):
        return outcome
    return Done(_with_party_field(snapshot, outcome.field_id, outcome.value), outcome.now)


PARTY_OPS: Mapping[str, PartyOp] = MappingProxyType(
    {
        "spend": _party_pool(live.spend),
        "restore": _party_pool(live.restore),
        "advance": _advance_party,
    }
)
"""The ops the shared party sheet takes (002: spend, restore, advance)."""


# ---------------------------------------------------------------------------
# The handler


def _ok(
    tag: ParsedTag,
    op: str,
    head: tuple[str, str],
    snapshot: Snapshot,
    now: str,
    subject: str,
    context: Context,
) -> Applied:
    text = cut_summary(now, context.limits.now_length)
    outputs = (*_echo(tag, op, head), ("result", "ok"), ("now", text))
    card = sheet_card(op, outputs, subject)
    return Applied(snapshot, Receipt("sheet", _inputs(tag), outputs, card))


def _refuse(
    tag: ParsedTag,
    op: str | None,
    snapshot: Snapshot,
    reason: str,
    head: tuple[str, str] | None = None,
) -> Applied:
    receipt = refused("sheet", _inputs(tag), _echo(tag, op, head), reason)
    return Applied(snapshot, receipt)


def _apply_party_sheet(tag: ParsedTag, op: str, snapshot: Snapshot, context: Context) -> Applied:
    """`sheet="party"`: the shared sheet, without `who` (002, "Ficha de grupo…")."""
    written = tag.get("sheet") or ""
    party: Party | None = context.ruleset.party
    if tag.has("who"):
        return _refuse(tag, op, snapshot, "malformed")
    if party is None or written.strip().casefold() != PARTY_WHO:
        return _refuse(tag, op, snapshot, "unknown-sheet")
    head = ("sheet", written)
    if op not in PARTY_SHEET_OPS:
        return _refuse(tag, op, snapshot, "unsupported-op", head)
    result = PARTY_OPS[op](tag, snapshot, PartyValues(context.ruleset, party, snapshot), context)
    if isinstance(result, Refused):
        return _refuse(tag, op, snapshot, result.reason, head)
    changed = raise_revision(result.snapshot)  # SPEC §11: every applied party command
    return _ok(tag, op, head, changed, result.now, party.label, context)


def _apply_everyone(tag: ParsedTag, op: str, snapshot: Snapshot, context: Context) -> Applied:
    """`who="party"`: the op for each character, once per normalised name (ENGINE-NOTES §4, §6).

    `now` is `Name now; Name now; Name refused (reason)`: the members it
    applied to, then those it was refused for. With one member it is that
    member's `now` alone. When it applied to nobody, the receipt is refused
    with the first member's reason.
    """
    head = ("who", PARTY_WHO)
    members = party_members(snapshot)
    if not members:
        return _refuse(tag, op, snapshot, "unknown-character", head)
    state = snapshot
    applied: list[str] = []
    missed: list[str] = []
    first: str | None = None
    for member in members:
        result = CHARACTER_OPS[op](tag, state, member, context)
        if isinstance(result, Refused):
            missed.append(f"{member.name} refused ({result.reason})")
            first = first or result.reason
        else:
            state = result.snapshot
            applied.append(f"{member.name} {result.now}" if len(members) > 1 else result.now)
    if not applied:
        return _refuse(tag, op, snapshot, first or "malformed", head)
    return _ok(tag, op, head, state, "; ".join([*applied, *missed]), PARTY_WHO, context)


def apply_sheet(tag: ParsedTag, snapshot: Snapshot, context: Context) -> Applied:
    """Apply one `[sheet:]` tag (SPEC §5); a refusal leaves the snapshot as it was."""
    op = canonical_op(tag.get("op"))
    if op is None:
        return _refuse(tag, op, snapshot, "malformed")
    if tag.has("sheet"):
        return _apply_party_sheet(tag, op, snapshot, context)
    who = tag.get("who")
    if who is not None and normalize_name(who) == PARTY_WHO:
        return _apply_everyone(tag, op, snapshot, context)
    found = resolve_who(snapshot, who)
    if isinstance(found, str):
        return _refuse(tag, op, snapshot, found)
    head = ("who", found.name)
    result = CHARACTER_OPS[op](tag, snapshot, found, context)
    if isinstance(result, Refused):
        return _refuse(tag, op, snapshot, result.reason, head)
    return _ok(tag, op, head, result.snapshot, result.now, found.name, context)
