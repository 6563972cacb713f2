"""The terminal wizard's drawing of a step's view (`gmtags.builder.controls`): the same
controls the builder page renders, numbered, knowing no step kind.

Each option of a `Choose` and each other control a player uses takes the next number (a
`Group`'s in their place); `Fact`s and `Note`s are lines to read. `N` picks or unpicks
option N, presses button N, flips a yes/no, or asks for a value; `N <value>` types it (`-`
clears it); a count takes `N +`, `N -` or `N <count>`.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from gmtags.builder.controls import (
    Choose,
    Control,
    Count,
    Fact,
    Flag,
    Group,
    Note,
    Number,
    Pick,
    Press,
    Table,
    Text,
    at,
)

Use = tuple[Control, Any]
"""A numbered thing: its control, and the option's value (a `Choose`) or None."""

Typed = Number | Text | Pick | Flag
"""Controls the wizard asks a value for."""


def flat(controls: Sequence[Control]) -> Iterator[Control]:
    """The controls in order, a group's in its place."""
    for control in controls:
        if isinstance(control, Group):
            yield control
            yield from flat(control.controls)
        elif isinstance(control, Table):
            yield control
            for row in control.rows:
                yield from flat(row)
        else:
            yield control


def numbered(controls: Sequence[Control]) -> list[Use]:
    """What each number uses, in the order `lines` shows them."""
    found: list[Use] = []
    for control in flat(controls):
        if isinstance(control, Choose):
            found += [(control, option.value) for option in control.options]
        elif not isinstance(control, Fact | Note | Group | Table):
            found.append((control, None))
    return found


def shown(control: Typed, answers: Mapping[str, Any]) -> str:
    """A typed control's value as it stands."""
    now = at(answers, control.path)
    now = control.value if now is None else now
    if isinstance(control, Pick):
        now = next((label for value, label in control.choices if value == now), now)
    if isinstance(now, bool):
        return "yes" if now else "no"
    return "-" if now in (None, "") else str(now)


def hint(control: Typed) -> str:
    """What a typed control takes, for its prompt."""
    if isinstance(control, Pick):
        return " (" + ", ".join(str(value) for value, _ in control.choices) + ")"
    if isinstance(control, Flag):
        return " (yes/no)"
    return ""


def lines(controls: Sequence[Control], answers: Mapping[str, Any]) -> list[str]:
    """The step's body: its facts and notes, and its controls numbered (module doc)."""
    out: list[str] = []
    number = 0
    for control in flat(controls):
        if isinstance(control, Fact):
            out.append(f"  {control.label}: {control.value}")
        elif isinstance(control, Note):
            out.append(f"  {control.text}")
        elif isinstance(control, Group):
            out.append(f"  {control.label}:")
        elif isinstance(control, Table):
            out.append(f"  {control.label} ({', '.join(control.columns)}):")
        elif isinstance(control, Choose):
            if control.label:
                out.append(f"  {control.label}")
            if not control.options and control.empty:
                out.append(f"  ({control.empty})")
            for option in control.options:
                number += 1
                mark = "[!]" if option.reason else "[x]" if option.chosen else "[ ]"
                text = f"  {number:>2}. {mark} {option.label}"
                if option.reason:
                    text += f"  (kept, not counted: {option.reason})"
                about = option.summary or ", ".join(option.details)
                if about:
                    text += f" - {about[:60]}{'…' if len(about) > 60 else ''}"
                out.append(text)
        else:
            number += 1
            if isinstance(control, Press):
                shut = " (not now)" if control.disabled else ""
                out.append(f"  {number:>2}. [{control.label}]{shut}")
            elif isinstance(control, Count):
                gives = f" {control.shown}" if control.shown else ""
                out.append(f"  {number:>2}. {control.label}:{gives}  [{control.count}]")
            else:
                out.append(f"  {number:>2}. {control.label}: {shown(control, answers)}")
    return out


def value_of(use: Use, rest: str, answers: Mapping[str, Any]) -> tuple[bool, Any, str]:
    """Whether `N <rest>` gives the numbered thing a value it takes, the value, and a note
    (`gmtags.builder.controls.change` applies it)."""
    control, option = use
    if isinstance(control, Choose):
        chosen = at(answers, control.path)
        label = next((o.label for o in control.options if o.value == option), option)
        verb = "unpicked" if isinstance(chosen, list) and option in chosen else "picked"
        return True, option, f"{verb} {label}"
    if isinstance(control, Press):
        if control.disabled:
            return False, None, f"{control.label}: not now; nothing changed"
        return True, control.value, control.label
    if isinstance(control, Count):
        step = {"+": 1, "-": -1}.get(rest)
        if step is None:
            whole = _whole(rest)
            if whole is None:
                return False, None, f"{control.label}: N +, N - or N <count>; nothing changed"
            step = whole - control.count
        if (step > 0 and not control.higher) or (step < 0 and not control.lower):
            return False, None, f"{control.label}: no further that way; nothing changed"
        return True, step, f"{control.label} {control.count + step}"
    if isinstance(control, Fact | Note | Group | Table):
        return False, None, "nothing to use there"
    if rest == "-" or (rest == "" and not isinstance(control, Flag)):
        return True, None, f"{control.label} cleared"
    if isinstance(control, Flag):
        if rest == "":
            now = at(answers, control.path)
            value = not (control.value if now is None else now)
        else:
            value = rest.lower() in ("y", "yes", "true", "1", "x")
        return True, value, f"{control.label} = {'yes' if value else 'no'}"
    if isinstance(control, Pick):
        found = next((v for v, label in control.choices if rest in (str(v), label)), _MISSING)
        if found is _MISSING:
            known = ", ".join(str(v) for v, _ in control.choices)
            return False, None, f"{control.label}: {rest!r} is not one of {known}; nothing changed"
        label = next(label for v, label in control.choices if v == found)
        return True, found, f"{control.label} = {label}"
    if isinstance(control, Number):
        try:
            number = float(rest)
        except ValueError:
            return False, None, f"{control.label}: {rest!r} is not a number; nothing changed"
        if control.whole and not number.is_integer():
            return False, None, f"{control.label}: {rest!r} is not a whole number; nothing changed"
        typed = int(number) if number.is_integer() else number
        return True, typed, f"{control.label} = {typed}"
    return True, rest, f"{control.label} = {rest}"


_MISSING = object()


def _whole(text: str) -> int | None:
    try:
        found = json.loads(text)
    except ValueError:
        return None
    return found if isinstance(found, int) and not isinstance(found, bool) else None


__all__ = ["Typed", "Use", "flat", "hint", "lines", "numbered", "shown", "value_of"]
