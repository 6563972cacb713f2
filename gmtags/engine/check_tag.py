"""A `[skill_check:]` tag read into the check it asks for, and a rolled check written as
its receipt: the engine's side of a check (the resolvers in `gmtags.checks` take a
`CheckRequest` and return a `CheckRecord`, values only)."""

from __future__ import annotations

from typing import Any

from gmtags.checks.record import CheckRecord
from gmtags.checks.request import CheckRequest
from gmtags.memo import IdentityMemo
from gmtags.sheet.numbers import NameKey
from gmtags.tags.card import Pairs, check_card
from gmtags.tags.parse import ParsedTag
from gmtags.tags.receipt import Receipt
from gmtags.text import parse_int

_NAME_KEYS: tuple[NameKey, ...] = ("skill", "save", "ability")

_REQUESTS: IdentityMemo[CheckRequest | None] = IdentityMemo(1024)
"""Requests by tag: a tag text seen before is the same `ParsedTag` (the parse cache)."""


def read_request(tag: ParsedTag, digits: int) -> CheckRequest | None:
    """The request a tag makes, or None when it names no check at all.

    The check's name is `skill=`, else `save=`, else `ability=` (000: any of
    the three names a check; a list row check is named like a skill).
    """
    return _REQUESTS.get((tag,), digits, lambda: _read(tag, digits))


_NUMBER_KEYS = {
    "dc": "dc",
    "bonus": "bonus",
    "threshold": "threshold",
    "explode": "explode",
    "double": "double",
    "dark": "dark",
    "upgrade": "upgrade",
    "setback": "setback",
    "upgradeown": "upgrade_own",
}
"""Whole-number options: the key as written (any case) to the request's field."""
_TEXT_KEYS = {
    "who": "who",
    "difficulty": "difficulty",
    "with": "with_",
    "reroll": "reroll",
    "spend": "spend",
    "use": "use",
    "apply": "apply",
}
"""Text options (trimmed; blank reads as not written): the key to the request's field."""


def _read(tag: ParsedTag, digits: int) -> CheckRequest | None:
    written: dict[str, str | None] = {attr.key.lower(): attr.value for attr in tag.attrs}
    name_key = next((key for key in _NAME_KEYS if (written.get(key) or "").strip()), None)
    if name_key is None:
        return None
    # Only what the tag wrote is read (a tag writes a few of the options).
    options: dict[str, Any] = {}
    for key, value in written.items():
        if key in _NUMBER_KEYS:
            options[_NUMBER_KEYS[key]] = parse_int(value, digits, saturate=True)
            if key == "dc" and options["dc"] is None:
                options["dc_text"] = (value or "").strip()
        elif value is None:
            continue
        elif key in _TEXT_KEYS:
            options[_TEXT_KEYS[key]] = value.strip() or None
        elif key == "mode":
            options["mode"] = value.strip().lower() or None
    return CheckRequest(name=(written[name_key] or "").strip(), name_key=name_key, **options)


def check_receipt(record: CheckRecord, inputs: Pairs) -> Receipt:
    """The receipt of a rolled check, for a tag whose model-written attributes were `inputs`:
    its attributes in the reference order (`CheckRecord.attrs`) and its card (SPEC §7.3),
    laid out by `gmtags.tags.card.check_card`:
    `🎲 **Ward** · Bram · 2d6+4 vs 10 → 2, 5 · 11 · **success**`."""
    card = check_card(
        record.skill, record.who, record.roll_words(), record.rolled_words(),
        record.score_words(), record.outcome or record.result.replace("_", " "),
        record.extras(),
    )  # fmt: skip
    return Receipt("skill_check", inputs, record.attrs(), card)
