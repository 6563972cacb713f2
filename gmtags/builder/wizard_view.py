"""The terminal wizard's drawing of a step's view (`gmtags.builder.controls`): the same
controls the builder page renders, numbered, knowing no step kind.

Each option of a `Choose`, each `Number` and `Text`, and each `Press` takes the next number;
a `Fact` is a line to read. `N` picks or unpicks option N (or presses button N); `N <value>`
types a value (`-` clears it).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from gmtags.builder.controls import Choose, Control, Fact, Number, Press, at

Use = tuple[Control, Any]
"""A numbered thing: its control, and the option's value (a `Choose`) or None."""


def numbered(controls: Sequence[Control]) -> list[Use]:
    """What each number uses, in the order `lines` shows them."""
    found: list[Use] = []
    for control in controls:
        if isinstance(control, Choose):
            found += [(control, option.value) for option in control.options]
        elif not isinstance(control, Fact):
            found.append((control, None))
    return found


def lines(controls: Sequence[Control], answers: Mapping[str, Any]) -> list[str]:
    """The step's body: its facts, and its controls numbered (module doc)."""
    shown: list[str] = []
    number = 0
    for control in controls:
        if isinstance(control, Fact):
            shown.append(f"  {control.label}: {control.value}")
            continue
        if isinstance(control, Choose):
            shown.append(f"  {control.label}:")
            chosen = at(answers, control.path)
            for option in control.options:
                number += 1
                mark = "[x]" if isinstance(chosen, list) and option.value in chosen else "[ ]"
                if option.reason:
                    mark = "[!]"
                text = f"  {number:>2}. {mark} {option.label}"
                if option.reason:
                    text += f"  (kept, not counted: {option.reason})"
                shown.append(text)
            continue
        number += 1
        if isinstance(control, Press):
            shown.append(f"  {number:>2}. [{control.label}]")
        else:
            now = at(answers, control.path)
            now = control.value if now is None else now
            shown.append(f"  {number:>2}. {control.label}: {'-' if now in (None, '') else now}")
    return shown


def value_of(use: Use, rest: str) -> tuple[bool, Any, str]:
    """Whether `N <rest>` gives the numbered thing a value it takes, the value, and a note."""
    control, option = use
    if isinstance(control, Choose):
        return True, option, f"{control.label}: {option}"
    if isinstance(control, Press):
        return True, control.value, control.label
    if rest in ("", "-"):
        return True, None, f"{control.label} cleared"
    if isinstance(control, Number):
        try:
            whole = json.loads(rest)
        except ValueError:
            whole = None
        if isinstance(whole, bool) or not isinstance(whole, int):
            return False, None, f"{control.label}: {rest!r} is not a whole number; nothing changed"
        return True, whole, f"{control.label} = {whole}"
    return True, rest, f"{control.label} = {rest}"


__all__ = ["Use", "lines", "numbered", "value_of"]
