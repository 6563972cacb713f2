"""Cards: the one-line Markdown a player reads where a receipt stood (SPEC §7.3).

`--display cards` and `process(...).cards` replace each receipt by its card,
a line any chat client shows as it is. Every card starts with the marker of
its kind followed by a space, so a card line the client sends back is known
for one (`is_card_line`, SPEC §7.3 "placement reads them back"):

| marker | kind | example |
|---|---|---|
| 🎲 | a rolled check | `🎲 **Ward** · Bram · 3d10 ≥7 vs 2 → 9, 3, 7 · 2 successes · **success**` |
| 🕒 | a clock | `🕒 **Alarm raised** 4/6`, `… new 0/6`, `… 6/6 full`, `… cleared` |
| ❤️ | `[sheet:]` damage | `❤️ Bram Harm 2/4 Winded`, `❤️ Ada hp −7 → 27/38` |
| 💚 | `[sheet:]` restore (heal) | `💚 Ada hp +3 → 30/38` |
| 💠 | `[sheet:]` spend | `💠 Bram grit −1 → 3/4` |
| 🛡️ | `[sheet:]` temp | `🛡️ Ada Hit points → 29/38 +5 temp` |
| 📊 | `[sheet:]` track | `📊 Bram Stress 4` |
| 🩹 | `[sheet:]` condition | `🩹 Bram Poisoned on` |
| 🎭 | `[sheet:]` state | `🎭 Bram Light Lit` |
| 📝 | `[sheet:]` note | `📝 Ada Concentrating on: Bless` |
| 💤 | `[sheet:]` rest | `💤 Bram Catch your breath: Harm 1/4` |
| ✨ | `[sheet:]` use (cast) | `✨ Bram Steady Hand: Resolve 0/4` |
| ⭐ | `[sheet:]` advance | `⭐ Ada Level 6` |
| ⚠️ | any refused command | `⚠️ sheet refused: not enough "hp" left for "Ada"` |

A card is derived from the receipt's own attributes (STYLE 12), never from a
second source, so the same receipt always shows the same card. A check's card
is built by its record (`gmtags.checks.record`), which knows the roll; it is
laid out here (`check_card`). Dice a roll threw but did not keep are struck
through (`~~3~~`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from types import MappingProxyType

Pairs = tuple[tuple[str, str | None], ...]
"""A receipt's attributes in order, as a card reads them (`gmtags.tags.receipt.Receipt`)."""

CHECK = "🎲"
CLOCK = "🕒"
REFUSED = "⚠️"
SHEET_OPS: Mapping[str, str] = MappingProxyType(
    {
        "damage": "❤️",
        "restore": "💚",
        "heal": "💚",
        "spend": "💠",
        "temp": "🛡️",
        "track": "📊",
        "condition": "🩹",
        "state": "🎭",
        "note": "📝",
        "rest": "💤",
        "use": "✨",
        "cast": "✨",
        "advance": "⭐",
    }
)
"""One marker per `[sheet:]` op family (SPEC §5); the aliases share their op's."""

SHEET = "📋"
"""An applied `[sheet:]` op with no marker of its own (none today)."""

MARKERS: tuple[str, ...] = tuple(dict.fromkeys((CHECK, CLOCK, REFUSED, SHEET, *SHEET_OPS.values())))
"""Every marker a card starts with."""

_LINE_STARTS = tuple(
    dict.fromkeys(start + " " for m in MARKERS for start in (m, m.replace("\ufe0f", "")))
)
"""A card line's start: a marker and a space (also without the emoji variation selector,
which some clients drop)."""

_SEP = " · "
_NOUN = {"skill_check": "check", "sheet": "sheet", "clock": "clock"}
_WORDS: Mapping[str, str] = MappingProxyType(
    {
        "malformed": "the command could not be read",
        "too-many": "too many commands in one reply",
        "placeholder": "a value was a placeholder, not a real value",
        "unknown-dc": "the difficulty is neither a number nor one the ladder names",
        "ambiguous-who": "more than one character's name starts with {who}",
        "internal-error": "the engine could not apply it",
        "untrained": "not trained in {thing}{of}",
        "unknown-character": "no character named {who}",
        "unknown-character/unnamed": "no character to apply it to",
        "ambiguous-character": "more than one character is named {who}",
        "unknown-sheet": "no shared sheet named {sheet}",
        "unsupported-op": "the shared sheet does not take {op}",
        "unknown-pool": "no pool {thing}{of}",
        "ambiguous-pool": "{thing} names more than one pool{of}",
        "bad-pool": "{thing} cannot pay for that{of}",
        "insufficient": "not enough {thing} left{of}",
        "bad-amount": "{amount} is not an amount that can be used",
        "no-temp": "{thing} takes no temporary points",
        "unknown-track": "no track {thing}{of}",
        "wrong-track": "{thing} cannot be set that way",
        "unknown-kind": "{thing} takes no harm of kind {kind}",
        "no-box": "{thing} has no box left for that{of}",
        "unknown-condition": "no condition {thing}{of}",
        "unknown-state": "no state {thing}{of}",
        "unknown-value": "{thing} cannot be {value}",
        "unknown-field": "no field {thing}{of}",
        "not-advanceable": "{thing} cannot be advanced",
        "invalid-value": "{thing} cannot take that value",
        "unknown-rest": "no rest {thing}{of}",
        "unknown-entry": "nothing called {thing}{of}",
        "ambiguous-entry": "{thing} names more than one thing{of}",
        "no-clocks": "this game has no clocks",
        "bad-name": "{thing} cannot name a clock",
        "bad-size": "a clock cannot have {size} segments",
        "duplicate-clock": "a clock named {thing} already runs",
        "clock-limit": "no room for another clock",
        "unknown-clock": "no clock named {thing}",
        "bad-tick": "{tick} is not a number of segments",
    }
)
"""Each refusal reason (SPEC §3) in words a player understands; `{…}` are the
receipt's attributes, quoted (`{of}`: ` for "Bram"` when the command names whom);
`reason/unnamed` is the words when it names no one. A reason not listed is shown as
its code."""

_THING = (
    "skill",
    "save",
    "pool",
    "track",
    "condition",
    "state",
    "field",
    "rest",
    "name",
    "spell",
    "sheet",
)
"""The attributes that name what a command was about, the first present wins."""


def is_card_line(line: str) -> bool:
    """True for a line that starts with a card marker followed by a space (SPEC §7.3)."""
    return line.startswith(_LINE_STARTS)


def check_card(
    skill: str,
    who: str | None,
    roll: str,
    rolled: str,
    score: str | None,
    tier: str,
    extras: Sequence[str] = (),
) -> str:
    """`🎲 **Ward** · Bram · 3d10 ≥7 vs 2 → 9, 3, 7 · 2 successes · **success**`.

    `roll` is what was thrown and against what, `rolled` the faces (or the
    symbols), `score` the total (`= 12`, joined to the faces) or successes,
    `tier` the outcome, `extras` what the check spent or drew.
    """
    parts = [f"{CHECK} **{skill}**", *([who] if who else []), f"{roll} → {rolled}"]
    if score and score.startswith("="):  # a total reads on from the faces: `→ 8 = 12`
        parts[-1] += f" {score}"
    elif score:
        parts.append(score)
    parts.append(f"**{tier}**")
    parts.extend(extras)
    return _plain(_SEP.join(parts))


def clock_card(outputs: Pairs) -> str:
    """`🕒 **Alarm raised** 4/6`, with a new, full or cleared clock said in words."""
    attrs = dict(outputs)
    name = _plain(attrs.get("name") or "")
    now = attrs.get("now") or ""
    if now == "cleared":
        return f"{CLOCK} **{name}** cleared"
    if "size" in attrs:
        return f"{CLOCK} **{name}** new {now}"
    filled, _, size = now.partition("/")
    full = " full" if filled and filled == size else ""
    return f"{CLOCK} **{name}** {now}{full}"


def sheet_card(op: str, outputs: Pairs, subject: str | None = None) -> str:
    """What an applied `[sheet:]` op changed: `❤️ Bram Harm 2/4 Winded`, `💠 Bram grit −1 → 3/4`.

    `subject` names the sheet (the party sheet's label), else the receipt's `who`.
    """
    attrs = dict(outputs)
    marker = SHEET_OPS.get(op, SHEET)
    who = subject or attrs.get("who") or attrs.get("sheet") or ""
    now = attrs.get("now") or ""
    amount = attrs.get("amount")
    pool = attrs.get("pool")
    if pool is not None and op == "temp":
        return _plain(f"{marker} {who} {pool} → {now}")
    if pool is not None and amount is not None and op in ("spend", "restore", "heal", "damage"):
        sign = "+" if op in ("restore", "heal") else "−"
        return _plain(f"{marker} {who} {pool} {sign}{amount.lstrip('+-')} → {now}")
    return _plain(f"{marker} {who} {now}")


def refused_card(tag: str, inputs: Pairs, outputs: Pairs) -> str:
    """`⚠️ check refused: not trained in "Old Lore" for "Kai"`: the reason in words.

    The words name what the receipt names, else what the model wrote.
    """
    attrs = {**dict(inputs), **dict(outputs)}
    reason = attrs.get("reason") or "refused"
    thing = next((attrs[key] for key in _THING if attrs.get(key) is not None), None)
    who = attrs.get("who") or attrs.get("sheet")
    values = {
        "who": _quoted(who, "no one"),
        "of": f' for "{who}"' if who else "",
        "thing": _quoted(thing, "it"),
        "op": _quoted(attrs.get("op"), "that"),
        "sheet": _quoted(attrs.get("sheet"), "that"),
        "amount": _quoted(attrs.get("amount"), "that"),
        "kind": _quoted(attrs.get("kind"), "that"),
        "value": _quoted(attrs.get("value"), "that"),
        "size": _quoted(attrs.get("size"), "that many"),
        "tick": _quoted(attrs.get("tick"), "that"),
    }
    template = (None if who else _WORDS.get(f"{reason}/unnamed")) or _WORDS.get(reason)
    words = template.format(**values) if template else reason
    return _plain(f"{REFUSED} {_NOUN.get(tag, tag)} refused: {words}")


def _quoted(value: str | None, missing: str) -> str:
    return f'"{value}"' if value not in (None, "") else missing


def _plain(text: str) -> str:
    """One line, whatever a name holds (U+2028, U+0085, …)."""
    return " ".join(text.splitlines())
