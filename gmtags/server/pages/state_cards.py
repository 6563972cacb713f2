"""A stored receipt as a card a person reads on the state page's timeline (SPEC §11).

A node keeps its receipts as text (`[skill_check: … result="success"]`,
its fingerprint), so the card is read back from the receipt's attributes:
who or what it is about, what was asked, what the engine made of it. Nothing
is trusted beyond being text: every value is escaped where it is shown.
"""

from __future__ import annotations

from dataclasses import dataclass

from gmtags.limits import DEFAULT_LIMITS
from gmtags.tags.parse import parse_span
from gmtags.tags.scan import find_spans

_TARGETS = ("pool", "track", "state", "condition", "field", "rest", "use", "cast")
"""The attribute naming what a sheet command changes, in the order one is looked for."""
_AMOUNTS = ("amount", "by", "to", "kind", "box", "value")
"""The attributes saying how much or which way a sheet command changes it."""


@dataclass(frozen=True, slots=True)
class ReceiptCard:
    """One receipt read for a person: its tag, subject, what was asked and what came of it."""

    tag: str
    subject: str
    asked: str
    outcome: str
    refused: bool
    text: str
    """The receipt as stored."""


def _attrs(text: str) -> tuple[str, dict[str, str | None]]:
    """The tag name and attributes of one receipt (every attribute kept, the engine's too)."""
    for span in find_spans(text, DEFAULT_LIMITS):
        tag = parse_span(text, span, frozenset())
        return tag.name, {attr.key.lower(): attr.value for attr in tag.attrs}
    return "", {}


def _first(attrs: dict[str, str | None], keys: tuple[str, ...]) -> tuple[str, str] | None:
    for key in keys:
        value = attrs.get(key)
        if value:
            return key, value
    return None


def _check(attrs: dict[str, str | None]) -> tuple[str, str, str]:
    subject = attrs.get("who") or ""
    asked = (
        f"{attrs['save']} save" if attrs.get("save") else f"{attrs.get('skill') or 'Check'} check"
    )
    if attrs.get("dc"):
        asked += f" (DC {attrs['dc']})"
    dice = attrs.get("dice") or ""
    rolls = (attrs.get("rolls") or "").replace("|", ", ")
    total = attrs.get("total")
    parts = [p for p in (dice, f"[{rolls}]" if rolls else "") if p]
    modifier = attrs.get("modifier") or ""
    if modifier.lstrip("+-").strip("0"):
        parts.append(modifier if modifier.startswith(("+", "-")) else f"+{modifier}")
    if total is not None:
        parts.append(f"= {total}")
    result = attrs.get("outcome") or attrs.get("result") or ""
    outcome = " ".join(parts)
    if result:
        outcome = f"{outcome}: {result.replace('-', ' ')}" if outcome else result
    return subject, asked, outcome


def _sheet(attrs: dict[str, str | None]) -> tuple[str, str, str]:
    party = (attrs.get("sheet") or "").lower() == "party"
    subject = "Party sheet" if party else attrs.get("who") or ""
    target = _first(attrs, _TARGETS)
    asked = attrs.get("op") or "sheet"
    if target is not None:
        asked += f" {target[1]}"
    how = [f"{key} {value}" for key in _AMOUNTS if (value := attrs.get(key))]
    if how:
        asked += f" ({', '.join(how)})"
    return subject, asked, attrs.get("now") or attrs.get("result") or ""


def _clock(attrs: dict[str, str | None]) -> tuple[str, str, str]:
    subject = attrs.get("name") or ""
    if "clear" in attrs:
        asked = "clear"
    elif attrs.get("tick"):
        tick = attrs["tick"] or ""
        asked = f"tick {tick if tick.startswith('-') else '+' + tick}"
    elif attrs.get("size"):
        asked = f"new clock of {attrs['size']}"
    else:
        asked = "clock"
    return subject, asked, attrs.get("now") or attrs.get("result") or ""


_READERS = {"skill_check": _check, "sheet": _sheet, "clock": _clock}
"""How each tag's receipt reads, by tag name (any other tag shows its attributes)."""


def _other(attrs: dict[str, str | None]) -> tuple[str, str, str]:
    asked = ", ".join(k if v is None else f"{k} {v}" for k, v in attrs.items() if k != "result")
    return "", asked, attrs.get("result") or ""


def receipt_card(text: str) -> ReceiptCard:
    """The card of one stored receipt; a refused one says why."""
    tag, attrs = _attrs(text)
    subject, asked, outcome = _READERS.get(tag, _other)(attrs)
    refused = (attrs.get("result") or "") == "refused"
    if refused:
        outcome = f"refused: {(attrs.get('reason') or 'no reason given').replace('-', ' ')}"
    return ReceiptCard(tag or "tag", subject, asked, outcome, refused, text)
