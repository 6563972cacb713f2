"""What the Game Master asked for in a `[skill_check:]` tag, read without trusting it
(the tag is read by `gmtags.engine.check_tag`).

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

from gmtags.sheet.numbers import NameKey


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


def clamp(value: int, low: int, high: int) -> int:
    """`value` moved to the nearest end of [low, high] (000: out-of-range values clamp)."""
    return min(max(value, low), high)
