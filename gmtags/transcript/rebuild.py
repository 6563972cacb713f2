"""`rebuild`: recompute every snapshot from the receipts already in a chat (SPEC §6).

Nothing is rolled. Messages and swipes are walked as `reprocess` walks them
(every swipe from the state after the previous assistant message's current
swipe); in each swipe the receipts are taken in order:

- `[clock:]` and `[sheet:]` receipts: their command (the receipt with the
  engine's attributes discarded, SPEC §2) is applied again — these commands
  roll nothing — and the receipt must say what the rules say: the same
  `result`, `reason` and `now`. The state goes on with what the rules give.
- `[skill_check:]` receipts are taken as they are and audited for what the
  receipt alone can prove (`gmtags.transcript.audit`). A check that paid for
  something (`spend="resolve:1"`, several pools joined by ", " for a charm)
  changed the state: each payment is applied again as the `[sheet:]` spend it
  was, for the character the receipt names, and a payment the rules cannot
  make is reported. Then the contextual rows and entries the receipt lists in
  `from=` are applied again for that check (they roll nothing), paying their
  costs from the state the spend left; a name that no longer applies is
  reported.
- A refusal for `malformed`, `too-many` or `internal-error` is trusted as
  changing nothing (it depends on how the tag was written, or on a bug, not on
  the state); a `too-many` refusal must come after the command limit, and any
  receipt past the limit must be refused `too-many`.
- A tag with no `result=` is not a receipt (the message was never processed)
  and is reported; it changes nothing.

Every disagreement is reported with its message, swipe and tag (the tag's
1-based place in the swipe) and the receipt text.
"""

from __future__ import annotations

from dataclasses import dataclass

from gmtags.checks.contextual import apply_contextual
from gmtags.engine.context import Context
from gmtags.engine.skill_check import with_live
from gmtags.history.records import History, HistoryError, MessageRecord, SwipeRecord
from gmtags.history.snapshots import SnapshotTable
from gmtags.limits import DEFAULT_LIMITS, Limits
from gmtags.process import apply_tag
from gmtags.ruleset.model import Ruleset
from gmtags.sheet.live import character_pools
from gmtags.sheet.numbers import NameKey, check_sheet, sheet_check_number
from gmtags.state.snapshot import Snapshot
from gmtags.tags.parse import parse_span
from gmtags.tags.receipt import ENGINE_ATTRS
from gmtags.tags.scan import find_spans
from gmtags.transcript.audit import audit_check
from gmtags.transcript.chat import Chat
from gmtags.transcript.layout import assistant_swipes, read_history, stored_start, write_history

_TRUSTED_REFUSALS = frozenset({"malformed", "too-many", "internal-error"})
_COMPARED = ("result", "reason", "now")


class RollAttempted(RuntimeError):
    """A command asked for dice during a rebuild, which never rolls."""


class _NoDice:
    """The dice source of a rebuild: any roll is an error (and the command is reported)."""

    def randint(self, a: int, b: int) -> int:
        raise RollAttempted("rebuild rolls no dice")


@dataclass(frozen=True, slots=True)
class Contradiction:
    """A receipt the rules contradict: where it is, what it says, and why it is wrong."""

    message: int
    swipe: int
    tag: int
    """The receipt's 1-based place among the tags of its swipe."""
    receipt: str
    problem: str

    def __str__(self) -> str:
        return (
            f"message {self.message}, swipe {self.swipe}, tag {self.tag}: "
            f"{self.problem}: {self.receipt}"
        )


@dataclass(frozen=True, slots=True)
class Rebuilt:
    """A chat with recomputed snapshots, its history, and every contradicted receipt."""

    chat: Chat
    history: History
    contradictions: tuple[Contradiction, ...]
    messages: int
    swipes: int


def _repay(
    receipt: dict[str, str | None], state: Snapshot, context: Context
) -> tuple[Snapshot, list[str]]:
    """Pay again what a check receipt says it paid (`spend="pool:amount, pool:amount"`)."""
    paid, who = receipt.get("spend"), receipt.get("who")
    if not paid or who is None:
        return state, []
    problems: list[str] = []
    for part in paid.split(","):
        pool, _, amount = part.strip().rpartition(":")
        text = f'[sheet: who="{who}" op="spend" pool="{pool}" amount="{amount}"]'
        (span,) = find_spans(text, context.limits)
        command = parse_span(text, span, ENGINE_ATTRS["sheet"])
        after, receipt_of_spend = apply_tag(command, state, context)
        if receipt_of_spend.result != "ok":
            problems.append(f"spend {part.strip()} cannot be paid: {receipt_of_spend.reason}")
        else:
            state = after
    return state, problems


def _reapply_contextual(
    receipt: dict[str, str | None], state: Snapshot, context: Context
) -> tuple[Snapshot, list[str]]:
    """Pay again what the contextual rows and entries in `from=` cost (004, 1.218)."""
    names, who = receipt.get("from"), receipt.get("who")
    name_key: NameKey = "save" if receipt.get("save") else "skill"
    skill = receipt.get(name_key)
    if not names or who is None or not skill:
        return state, []
    character, values = check_sheet(context.ruleset, state, who)
    number = sheet_check_number(
        context.ruleset, values, character, skill, receipt.get("with"), name_key
    )
    if values is None or number.character.key is None:
        return state, [f"from={names!r} names no character's rows"]
    pools = character_pools(values)
    applied = apply_contextual(names, number, values, pools, values.live, context.limits)
    wanted = {part.strip() for part in names.split(";") if part.strip()}
    if set(applied.effects.names) != wanted:
        return state, [f"from={names!r} but the rules apply {'; '.join(applied.effects.names)!r}"]
    if applied.entry is None:
        return state, []
    return with_live(state, number.character.key, applied.entry), []


def replay_receipts(
    text: str, ruleset: Ruleset, snapshot: Snapshot, *, limits: Limits = DEFAULT_LIMITS
) -> tuple[Snapshot, list[tuple[int, str, str]]]:
    """Apply one reply's receipts without rolling: the state after, and (tag, receipt, problem)."""
    context = Context(ruleset, _NoDice(), limits)
    state = snapshot
    problems: list[tuple[int, str, str]] = []
    for count, span in enumerate(find_spans(text, limits), start=1):
        raw = text[span.start : span.end]
        written = parse_span(text, span, frozenset())
        attrs = {attr.key.lower(): attr.value for attr in written.attrs}
        result = attrs.get("result")
        if written.malformed or result is None:
            problems.append((count, raw, "not a receipt (no result= or unreadable)"))
            continue
        reason = attrs.get("reason")
        past_limit = count > limits.commands_per_response
        if result == "refused" and reason in _TRUSTED_REFUSALS:
            if reason == "too-many" and not past_limit:
                problems.append((count, raw, "refused too-many within the command limit"))
            continue
        if past_limit:
            problems.append((count, raw, "past the command limit but not refused too-many"))
            continue
        if span.name == "skill_check":
            exact = {attr.key: attr.value for attr in written.attrs}
            problems.extend((count, raw, problem) for problem in audit_check(exact, ruleset))
            state, unpaid = _repay(exact, state, context)
            state, unapplied = _reapply_contextual(exact, state, context)
            problems.extend((count, raw, problem) for problem in (*unpaid, *unapplied))
            continue
        command = parse_span(text, span, ENGINE_ATTRS[span.name])
        state, receipt = apply_tag(command, state, context)
        for key in _COMPARED:
            recorded, computed = attrs.get(key), receipt.attr(key)
            if recorded != computed:
                problems.append(
                    (count, raw, f"{key}={recorded!r} but the rules give {key}={computed!r}")
                )
    return state, problems


def _stored_seeds(chat: Chat) -> dict[tuple[int, int], int]:
    """The seeds a previous `reprocess` recorded, so a rebuild keeps them in the records."""
    try:
        stored = read_history(chat)
    except HistoryError:
        return {}
    return {
        (index, swipe): record.seed
        for index, message in stored.messages.items()
        for swipe, record in enumerate(message.swipes)
        if record is not None and record.seed is not None
    }


def rebuild(
    chat: Chat,
    ruleset: Ruleset,
    start: Snapshot | None = None,
    *,
    limits: Limits = DEFAULT_LIMITS,
) -> Rebuilt:
    """Recompute every snapshot of `chat` from its receipts, rolling nothing (SPEC §6).

    The start is `start`, else the start stored in the chat, else empty. The
    receipts are left as they are; the records and snapshots are rewritten.
    """
    state = start if start is not None else stored_start(chat) or Snapshot()
    seeds = _stored_seeds(chat)
    table = SnapshotTable()
    start_name = table.add(state)
    records: dict[int, MessageRecord] = {}
    found: list[Contradiction] = []
    messages = swipes = 0
    for index in chat.assistant_indexes():
        texts, current = assistant_swipes(chat, index)
        before = table.add(state)
        swipe_records: list[SwipeRecord] = []
        afters: list[Snapshot] = []
        for swipe, text in enumerate(texts):
            after, problems = replay_receipts(text, ruleset, state, limits=limits)
            afters.append(after)
            swipe_records.append(SwipeRecord(before, table.add(after), seeds.get((index, swipe))))
            found.extend(Contradiction(index, swipe, *problem) for problem in problems)
        records[index] = MessageRecord(tuple(swipe_records), current)
        state = afters[current]
        messages += 1
        swipes += len(texts)
    history = History(chat.chat_id, start_name, len(chat.messages), records, table)
    return Rebuilt(write_history(chat, history), history, tuple(found), messages, swipes)
