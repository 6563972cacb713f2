"""Keeping prompt text safe: one line, no control characters, brackets or macro braces.

Ruleset text is already prompt-safe (checked at import). Text from the
snapshot (character names, field values, notes) is not, so every piece of it
passes through `one_line` before it reaches the prompt: a bracket there could
start a tag, and `{{ }}` a front end's macro.
"""

from __future__ import annotations

import regex

_UNSAFE = regex.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029\[\]]+")
_SPACES = regex.compile(r"\s+")


def one_line(text: object) -> str:
    """`text` as one prompt-safe line: control characters and brackets become spaces."""
    value = _UNSAFE.sub(" ", str(text)).replace("{{", "{").replace("}}", "}")
    return _SPACES.sub(" ", value).strip()


def signed(value: float) -> str:
    """A modifier as a player reads it: `+2`, `-1`, `+0`; whole numbers without `.0`."""
    number = int(value) if float(value).is_integer() else round(value, 2)
    return f"{number:+}" if isinstance(number, int) else f"{number:+g}"


def number(value: float) -> str:
    """A number without a trailing `.0`."""
    return str(int(value)) if float(value).is_integer() else f"{value:g}"
