"""The terminal wizard's drawing of a step's view (`gmtags.builder.controls`): the same
controls the builder page renders, numbered, knowing no step kind.

Each option of a `Choose` and each other control a player uses takes the next number (a
`Group`'s in their place); `Fact`s and `Note`s are lines to read. `N` picks or unpicks
option N, presses button N, flips a yes/no, or asks for a value; `N <value>` types it (`-`
clears it); a count takes `N +`, `N -` or `N <count>`.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
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
    Visit,
    at,
    flat,
)

Use = tuple[Control, Any]
"""A numbered thing: its control, and the option's value (a `Choose`) or None."""

Typed = Number | Text | Pick | Flag
"""Controls the wizard asks a value for."""


def numbered(controls: Sequence[Control]) -> list[Use]:
    """What each number uses, in the order `lines` shows them."""
    found: list[Use] = []
    for control in flat(controls):
        if isinstance(control, Choose):
            found += [(control, option.value) for option in control.options]
        elif isinstance(control, Pick) and control.radios:
            found += [(control, value) for value, _ in control.choices]
        elif not isinstance(control, Fact | Note | Group | Table | Visit):
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
    _draw(controls, answers, out, [0])
    return out


def _draw(
    controls: Sequence[Control], answers: Mapping[str, Any], out: list[str], number: list[int]
) -> None:
    for control in controls:
        if isinstance(control, Fact):
            out.append(f"  {control.label}: {control.value}")
        elif isinstance(control, Note):
            out.append(f"  {control.text}")
        elif isinstance(control, Group):
            out.append(f"  {control.label}:")
            _draw(control.controls, answers, out, number)
        elif isinstance(control, Table):
            out.append(f"  {control.label} ({', '.join(control.columns)}):")
            for row in control.rows:
                if any(isinstance(cell, Fact) for cell in row):
                    out.append(_fact_row(row, answers, number))
                else:
                    _draw(row, answers, out, number)
        elif isinstance(control, Pick) and control.radios:
            out.append(f"  {control.label}")
            now = at(answers, control.path)
            now = control.value if now is None else now
            for value, label in control.choices:
                number[0] += 1
                out.append(f"  {number[0]:>2}. ({'•' if value == now else ' '}) {label}")
        elif isinstance(control, Visit):
            continue
        elif isinstance(control, Choose):
            if control.label:
                out.append(f"  {control.label}")
            if not control.options and control.empty:
                out.append(f"  ({control.empty})")
            for option in control.options:
                number[0] += 1
                mark = "[!]" if option.reason else "[x]" if option.chosen else "[ ]"
                text = f"  {number[0]:>2}. {mark} {option.label}"
                if option.reason:
                    text += f"  (kept, not counted: {option.reason})"
                about = option.summary or ", ".join(option.details)
                if about:
                    text += f" - {about[:60]}{'…' if len(about) > 60 else ''}"
                out.append(text)
        else:
            number[0] += 1
            out.append(f"  {number[0]:>2}. {_used(control, answers)}")


def _used(control: Control, answers: Mapping[str, Any]) -> str:
    """A numbered control's line after its number."""
    if isinstance(control, Press):
        return f"[{control.label}]" + (" (not now)" if control.disabled else "")
    if isinstance(control, Count):
        gives = f" {control.shown}" if control.shown else ""
        return f"{control.label}:{gives}  [{control.count}]"
    if isinstance(control, Number | Text | Pick | Flag):
        return f"{control.label}: {shown(control, answers)}"
    return ""


def _fact_row(row: Sequence[Control], answers: Mapping[str, Any], number: list[int]) -> str:
    """A table row of facts on one line (an ability's base, bonus, total), numbered by the
    control that sets it, its value in brackets."""
    facts = [cell for cell in row if isinstance(cell, Fact)]
    used = [cell for cell in row if not isinstance(cell, Fact)]
    head, *rest = facts
    text = f"{head.value:<14} " + "  ".join(f"{f.label.lower()} {f.value}" for f in rest if f.value)
    if not used:
        return f"      {text}"
    number[0] += 1
    control = used[0]
    value = shown(control, answers) if isinstance(control, Number | Text | Pick | Flag) else ""
    return f"  {number[0]:>2}. {text}  [{value}]"


def value_of(use: Use, rest: str, answers: Mapping[str, Any]) -> tuple[bool, Any, str]:
    """Whether `N <rest>` gives the numbered thing a value it takes, the value, and a note
    (`gmtags.builder.controls.change` applies it)."""
    control, option = use
    if isinstance(control, Choose):
        chosen = at(answers, control.path)
        label = next((o.label for o in control.options if o.value == option), option)
        verb = "unpicked" if isinstance(chosen, list) and option in chosen else "picked"
        return True, option, f"{verb} {label}"
    if isinstance(control, Pick) and option is not None:
        label = next((label for v, label in control.choices if v == option), option)
        return True, option, f"{control.label}: {label}"
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
    if isinstance(control, Fact | Note | Group | Table | Visit):
        return False, None, "nothing to use there"
    if isinstance(control, Number) and control.buttons and rest in ("+", "-"):
        now = at(answers, control.path)
        now = control.value if not isinstance(now, int | float) else now
        step = 1 if rest == "+" else -1
        moved = (now or 0) + step
        if (control.high is not None and moved > control.high) or (
            control.low is not None and moved < control.low
        ):
            return False, None, f"{control.label}: no further that way; nothing changed"
        return True, moved, f"{control.label} = {moved}"
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
        what = "a whole number" if control.whole else "a number"
        try:
            number = float(rest)
        except ValueError:
            return False, None, f"{control.label}: {rest!r} is not {what}; nothing changed"
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


__all__ = ["Typed", "Use", "hint", "lines", "numbered", "shown", "value_of"]
