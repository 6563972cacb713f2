"""`[skill_check:]`: roll a check by the ruleset's resolution kind.

The engine rolls every die; nothing the model writes about dice is read (the
tag reader discards `rolls`, `total`, `result`, …). Steps: read the ask
(`gmtags.checks.request`), work out the sheet's number (`gmtags.sheet.numbers`),
refuse only an untrained `refuse` check (002: `reason="untrained"`), apply the
first override that names the check (000, "Pruebas que tiran a su manera"),
then hand the check to the resolver of the ruleset's kind (one module per
kind, `KINDS` below). A check changes no state.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from types import MappingProxyType
from typing import Any

from gmtags.checks.context import CheckInput
from gmtags.checks.dice import Tray
from gmtags.checks.dice_highest import resolve_dice_highest
from gmtags.checks.dice_sum import resolve_dice_sum
from gmtags.checks.record import CheckRecord
from gmtags.checks.request import CheckRequest, read_request
from gmtags.checks.roll_against import resolve_roll_against
from gmtags.engine.context import Applied, Context
from gmtags.ruleset.model import Ruleset
from gmtags.ruleset.resolution import Override
from gmtags.sheet.numbers import CheckNumber, check_number
from gmtags.sheet.values import SheetValues
from gmtags.state.snapshot import Snapshot
from gmtags.tags.parse import ParsedTag
from gmtags.tags.receipt import Pairs, refused

Resolver = Callable[[Any, CheckInput], CheckRecord]
"""Rolls one check under a kind's resolution rules and returns its record."""

KINDS: Mapping[str, Resolver] = MappingProxyType(
    {
        "dice-sum": resolve_dice_sum,
        "roll-against": resolve_roll_against,
        "dice-highest": resolve_dice_highest,
    }
)
"""Resolvers by `resolution.kind`; dice-pool and symbol-pool have not landed yet."""

_OVERRIDE_LISTS = {"skill": "skills", "save": "saves", "ability": "abilities"}


def _inputs(tag: ParsedTag) -> Pairs:
    return tuple((attr.key, attr.value) for attr in tag.attrs)


def _echo(tag: ParsedTag, who: str | None) -> Pairs:
    """The ask as written, `who` rewritten to the stored name once resolved."""
    return tuple(
        (attr.key, who if attr.key.lower() == "who" and who is not None else attr.value)
        for attr in tag.attrs
    )


def _sheet(ruleset: Ruleset, snapshot: Snapshot, number: CheckNumber) -> SheetValues | None:
    character = number.character
    if character.name is None or character.status != "character":
        return None
    card = snapshot.game_character_cards.get(character.name)
    live = snapshot.ruleset_live.get(character.key or "")
    return SheetValues(ruleset, card, live)


def _override(ruleset: Ruleset, values: SheetValues | None, number: CheckNumber) -> Override | None:
    """The first override naming the check whose `when` holds for the roller (000)."""
    target = number.target
    listed = _OVERRIDE_LISTS.get(target.kind)
    if listed is None or target.id is None:
        return None
    for override in ruleset.resolution_rules.overrides:
        if target.id not in (getattr(override, listed) or []):
            continue
        if override.when is None:
            return override
        if values is not None and values.value(override.when) != 0:
            return override
    return None


def _tray_limit(kind: str, context: Context) -> int:
    # dice-sum: 20 dice a roll (SPEC §8). The other kinds are bounded by their own
    # validated maxima (a pool of 20 plus 10 dark dice plus two fallback dice; 11
    # d10 for tens); the tray is a guard on top of those.
    return context.limits.dice_per_roll if kind == "dice-sum" else 2 * context.limits.dice_per_roll


def apply_skill_check(tag: ParsedTag, snapshot: Snapshot, context: Context) -> Applied:
    """Roll one `[skill_check:]`; a refusal echoes the ask and changes nothing."""
    ruleset = context.ruleset
    request: CheckRequest | None = read_request(tag, context.limits.integer_digits)
    if request is None:
        return Applied(snapshot, refused("skill_check", _inputs(tag), _inputs(tag), "malformed"))
    kind = ruleset.resolution_kind or ""
    resolver = KINDS.get(kind)
    number = check_number(ruleset, snapshot, request.who, request.name, request.with_)
    who = number.character.name if number.character.name is not None else request.who
    if resolver is None:
        receipt = refused("skill_check", _inputs(tag), _echo(tag, who), "unsupported")
        return Applied(snapshot, receipt)
    if number.untrained == "refuse":
        # 002: the check is not rolled; the ask comes back with reason="untrained".
        receipt = refused("skill_check", _inputs(tag), _echo(tag, who), "untrained")
        return Applied(snapshot, receipt)
    rules = ruleset.resolution_rules
    override = _override(ruleset, _sheet(ruleset, snapshot, number), number)
    if override is not None:
        rules = rules.overridden(override)
    tray = Tray(context.dice, _tray_limit(kind, context))
    record = resolver(rules, CheckInput(request, number, tray, context.limits))
    return Applied(snapshot, record.receipt(_inputs(tag)))
