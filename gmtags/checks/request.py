"""What the Game Master asked for in a `[skill_check:]` tag, read without trusting it.

000, "Qué puede escribir el Game Master en una prueba de reserva": numbers the
GM writes are whole numbers of bounded length; anything else is ignored, never
refused ("Todo respeta el archivo: los valores fuera de rango se ajustan al
extremo más cercano y un atributo no ofrecido se ignora"). Clamping to the
ruleset's ranges happens in each resolver, which knows them; a number longer
than `Limits.integer_digits` is read as the largest number of that length
with its sign (never converted, SPEC §8), so it clamps to the same end as any
other number too big for its range, never silently dropped. Nothing the model
writes about dice (rolls, totals, results) is read at all: the tag reader has
already discarded those attributes.

`dc` is the one number read otherwise (SPEC §2.1: gmtags never guesses a value
that decides a result): a `dc` that is no whole number is kept as written in
`dc_text`, for the engine to read as a rung of the check's ladder or refuse
(`gmtags.checks.context.read_dc`), never ignored.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from gmtags.memo import IdentityMemo
from gmtags.sheet.numbers import NameKey
from gmtags.tags.parse import ParsedTag
from gmtags.text import parse_int

_NAME_KEYS: tuple[NameKey, ...] = ("skill", "save", "ability")


@dataclass(frozen=True, slots=True)
class CheckRequest:
    """The check a tag asks for: a name, a character, and the options written."""

    name: str
    name_key: NameKey
    who: str | None = None
    dc: int | None = None
    dc_text: str | None = None
    """The `dc` as written when it is not a whole number (a rung's name, or nothing
    readable): None when `dc` was a number or not written."""
    difficulty: str | None = None
    with_: str | None = None
    bonus: int | None = None
    mode: str | None = None
    threshold: int | None = None
    explode: int | None = None
    double: int | None = None
    reroll: str | None = None
    spend: str | None = None
    use: str | None = None
    apply: str | None = None
    dark: int | None = None
    upgrade: int | None = None
    setback: int | None = None
    upgrade_own: int | None = None


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


def clamp(value: int, low: int, high: int) -> int:
    """`value` moved to the nearest end of [low, high] (000: out-of-range values clamp)."""
    return min(max(value, low), high)
