"""`[skill_check:]`: roll a check by the ruleset's resolution kind.

The engine rolls every die; nothing the model writes about dice is read (the
tag reader discards `rolls`, `total`, `result`, …). Steps: read the ask
(`gmtags.checks.request`), read a `dc` written as a rung's name (SPEC §2.1:
`gmtags.checks.context.read_dc`), find who the check is for (SPEC §4: by
name, else the one card whose name starts with it), work out the sheet's
number (`gmtags.sheet.numbers`; `save=` reads the saves), refuse an untrained
`refuse` check (002: `reason="untrained"`), apply the first override that
names the check (000, "Pruebas que tiran a su manera"), pay for what the
check buys (`spend=`, `use=`: `gmtags.checks.spend`), apply the rows and
entries `apply=` names, paying their costs (`gmtags.checks.contextual`, 004),
then hand the check to the resolver of the ruleset's kind
(`gmtags.checks.kinds.KINDS`: one module per kind).

A check is refused, echoing the ask, only when gmtags would have to guess
(SPEC §2.1) or the sheet forbids it: `unknown-dc` (a `dc` neither a whole
number nor a rung of the ladder), `ambiguous-who` (two cards' names start
with `who`), `ambiguous-character` (two cards share `who`'s name, neither the
player's: the reference rolled them unmodified, ENGINE-NOTES §4, but that is
a guess SPEC §2.1 forbids), `untrained` (002, an untrained `refuse` check).

A check changes state only by paying: a spend, a charm or a contextual cost
that was paid returns the snapshot with the roller's live pools (and tracks) paid (000, "Gastar para
cambiar una tirada": "Una sola resolución tira los dados y paga lo que los
modificó"); a check that buys nothing, or is refused, returns the snapshot it
was given. Two checks in one reply therefore spend in order from a running
live state (ENGINE-NOTES §5).
"""

from __future__ import annotations

from gmtags.checks.context import NOTHING_BOUGHT, CheckInput, read_dc
from gmtags.checks.contextual import Contextual, apply_contextual, effect_dice
from gmtags.checks.dice import Tray
from gmtags.checks.kinds import KINDS
from gmtags.checks.request import CheckRequest
from gmtags.checks.spend import NOTHING, Payer, Purchase, purchase
from gmtags.engine.check_tag import check_receipt, read_request
from gmtags.engine.context import Applied, Context
from gmtags.engine.sheet import character_pools
from gmtags.ruleset.model import Ruleset
from gmtags.ruleset.resolution import Override, ResolutionRules
from gmtags.sheet import live
from gmtags.sheet.numbers import CheckNumber, check_sheet, sheet_check_number
from gmtags.sheet.values import SheetValues
from gmtags.state.snapshot import LiveEntry, Snapshot
from gmtags.tags.card import Pairs
from gmtags.tags.parse import ParsedTag
from gmtags.tags.receipt import refused

_OVERRIDE_LISTS = {"skill": "skills", "save": "saves", "ability": "abilities"}


def _inputs(tag: ParsedTag) -> Pairs:
    return tuple((attr.key, attr.value) for attr in tag.attrs)


def _echo(tag: ParsedTag, who: str | None) -> Pairs:
    """The ask as written, `who` rewritten to the stored name once resolved."""
    return tuple(
        (attr.key, who if attr.key.lower() == "who" and who is not None else attr.value)
        for attr in tag.attrs
    )


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


def with_live(snapshot: Snapshot, key: str, entry: LiveEntry) -> Snapshot:
    """The snapshot with the roller's live entry replaced; an entry storing nothing is dropped."""
    entries = dict(snapshot.ruleset_live)
    if live.is_empty(entry):
        entries.pop(key, None)
    else:
        entries[key] = entry
    return snapshot.model_copy(update={"ruleset_live": entries})


def _purchase(
    rules: ResolutionRules,
    request: CheckRequest,
    number: CheckNumber,
    values: SheetValues | None,
    context: Context,
) -> Purchase:
    """What the check pays for; a stranger or a check with no sheet buys nothing."""
    if values is None or values.card is None or (request.spend is None and request.use is None):
        return NOTHING
    payer = Payer(values, character_pools(values), values.live, context.limits)
    return purchase(rules, request, number, payer)


def _contextual(
    request: CheckRequest,
    number: CheckNumber,
    values: SheetValues | None,
    paid: Purchase,
    context: Context,
) -> Contextual:
    """What `apply=` adds, paid from the live entry the purchase left; nothing for a stranger."""
    if values is None or values.card is None or request.apply is None:
        return Contextual()
    entry = paid.entry if paid.entry is not None else values.live
    pools = character_pools(values)
    return apply_contextual(request.apply, number, values, pools, entry, context.limits)


def apply_skill_check(tag: ParsedTag, snapshot: Snapshot, context: Context) -> Applied:
    """Roll one `[skill_check:]`; a refusal echoes the ask and changes nothing."""
    ruleset = context.ruleset
    asked: CheckRequest | None = read_request(tag, context.limits.integer_digits)
    if asked is None:
        return Applied(snapshot, refused("skill_check", _inputs(tag), _inputs(tag), "malformed"))
    # An override never changes the ladder (000, "Pruebas que tiran a su manera"), so the
    # ladder a check reads is the (layered) ruleset's own.
    request = read_dc(asked, ruleset.resolution_rules.ladder())
    if request is None:
        return Applied(snapshot, refused("skill_check", _inputs(tag), _inputs(tag), "unknown-dc"))
    kind = KINDS[ruleset.resolution_kind or ""]
    character, values = check_sheet(ruleset, snapshot, request.who)
    if character.refusal is not None:
        receipt = refused("skill_check", _inputs(tag), _inputs(tag), character.refusal)
        return Applied(snapshot, receipt)
    number = sheet_check_number(
        ruleset, values, character, request.name, request.with_, request.name_key
    )
    who = number.character.name if number.character.name is not None else request.who
    if number.untrained == "refuse":
        # 002: the check is not rolled; the ask comes back with reason="untrained".
        receipt = refused("skill_check", _inputs(tag), _echo(tag, who), "untrained")
        return Applied(snapshot, receipt)
    rules = ruleset.resolution_rules
    override = _override(ruleset, values, number)
    if override is not None:
        rules = rules.overridden(override)
    bought = _purchase(rules, request, number, values, context)
    unpaid = number
    applied = _contextual(request, number, values, bought, context)
    if applied.number is not None:
        number = applied.number
    effects = applied.effects
    tray = Tray(context.dice, kind.tray_limit(rules, context.limits) + effect_dice(effects))
    check = CheckInput(request, number, tray, context.limits, bought.bought, values, effects)
    record = kind.resolve(rules, check)
    if record.unrolled and (bought.entry is not None or applied.entry is not None):
        # 000: an empty pool fails without rolling; like a refused check it buys and pays
        # nothing, so its receipt names no purchase and no row it did not pay for.
        check = CheckInput(request, unpaid, tray, context.limits, NOTHING_BOUGHT, values)
        record = kind.resolve(rules, check)
        return Applied(snapshot, check_receipt(record, _inputs(tag)))
    after = snapshot
    entry = applied.entry if applied.entry is not None else bought.entry
    if entry is not None and number.character.key is not None:
        after = with_live(snapshot, number.character.key, entry)
    return Applied(after, check_receipt(record, _inputs(tag)))
