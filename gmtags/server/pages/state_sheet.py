"""The game state as a person reads it, in HTML (SPEC §11, the state page's left column).

Each character's sheet as the GM block shows it (`gmtags.prompt.reminder`:
the same lines the GM reads every turn, less the "Now:" line, which is drawn
instead): live pools and plain tracks as bars (value/max), wound tracks as
boxes with the kind of each mark, states, conditions and notes; the party
sheet (its fields, lists and `$party` pools); the clocks as segmented circles
(one segment per tick of the clock's size, the filled ones shaded).

Every text that comes from the snapshot (names, field values, notes: a model
wrote them) is escaped with `esc`; ruleset labels are escaped too.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from html import escape

from gmtags.prompt.reminder import character_block
from gmtags.prompt.text import number, signed
from gmtags.ruleset.model import Ruleset
from gmtags.sheet import wounds
from gmtags.sheet.live import PoolSpec, character_pools, pool_reading
from gmtags.sheet.numbers import penalty_track
from gmtags.sheet.party import PartyValues
from gmtags.sheet.values import SheetValues
from gmtags.state.characters import party_members
from gmtags.state.names import PARTY_KEY
from gmtags.state.snapshot import Clock, LiveEntry, Snapshot

_NOW = "  Now: "
"""The GM block's line of live values: the page draws them instead."""


def esc(value: object) -> str:
    """`value` as HTML text, quotes included (safe in an attribute too)."""
    return escape(str(value), quote=True)


def _percent(value: float, low: float, high: float) -> float:
    if high <= low:
        return 0.0
    return round(max(0.0, min(1.0, (value - low) / (high - low))) * 100, 1)


def bar(kind: str, label: str, value: int, low: int, high: int, extra: str = "") -> str:
    """One labelled bar (`role="meter"`) showing `value` within `low`..`high`: its fill an SVG
    rectangle as wide as the share, so the page needs no inline style (its Content-Security-Policy
    allows none)."""
    shown = f"{value}/{high}" + (f" {extra}" if extra else "")
    return (
        f'<div class="bar-row" data-{kind}="{esc(label)}">'
        f'<span class="bar-label">{esc(label)}</span>'
        f'<span class="bar" role="meter" aria-label="{esc(label)}" aria-valuemin="{low}"'
        f' aria-valuemax="{high}" aria-valuenow="{value}" aria-valuetext="{esc(shown)}">'
        f'<svg class="bar-fill" viewBox="0 0 100 1" preserveAspectRatio="none" aria-hidden="true">'
        f'<rect width="{_percent(value, low, high)}" height="1"></rect></svg></span>'
        f'<span class="bar-value">{esc(shown)}</span></div>'
    )


def _pool_bars(pools: Iterable[PoolSpec], entry: LiveEntry) -> list[str]:
    out = []
    for pool in pools:
        value, temp = pool_reading(pool, entry)
        out.append(bar("pool", pool.label, value, 0, pool.max, f"+{temp} temp" if temp else ""))
    return out


def wound_boxes(shape: wounds.WoundTrack, state: wounds.WoundState, *, checks: bool) -> str:
    """A wound track as its boxes: each level (or numbered box) with the kind marked in it.

    `checks`: the checks roll with this track's penalty (`penalty_track`); only then are a
    level's penalty and the one in force shown, as what they are, a penalty to checks. A
    ruleset whose levels carry penalties its checks never take shows none (002, "La
    penalización de las tiradas": `penaltyFrom` is what applies them).
    """
    kinds = {kind.id: kind for kind in shape.kinds}
    marks = list(state.marks)
    boxes = []
    for index in range(shape.length):
        mark = marks[index] if index < len(marks) else ""
        kind = kinds.get(mark)
        where = shape.levels[index].label if shape.levels is not None else f"Box {index + 1}"
        cost = ""
        if checks and shape.levels is not None and shape.levels[index].penalty:
            cost = f" ({number(shape.levels[index].penalty)})"
        said = f"{where}{cost}: " + (f"{kind.label} ({kind.id})" if kind else "clear")
        marked = f' marked" data-kind="{esc(kind.id)}' if kind else ""
        boxes.append(
            f'<li class="box{marked}" aria-label="{esc(said)}" title="{esc(said)}">'
            f'<span class="box-mark" aria-hidden="true">{esc(kind.label) if kind else ""}</span>'
            f'<span class="box-level" aria-hidden="true">{esc(where)}{esc(cost)}</span></li>'
        )
    penalty = wounds.penalty(shape, state)
    notes = [f"{wounds.filled(shape, state)}/{shape.length} marked"]
    if state.overflow:
        notes.append(f"+{state.overflow} over")
    if checks and penalty:
        notes.append(f"{signed(penalty)} to checks")
    legend = ", ".join(f"{esc(k.label)} = {esc(k.id)}" for k in shape.ladder)
    return (
        f'<div class="wounds" data-track="{esc(shape.label)}">'
        f'<p class="wounds-head"><span class="bar-label">{esc(shape.label)}</span> '
        f'<span class="wounds-note">{esc("; ".join(notes))}</span></p>'
        f'<ol class="boxes" aria-label="{esc(shape.label)} boxes">{"".join(boxes)}</ol>'
        f'<p class="legend">Kinds, lightest first: {legend}</p></div>'
    )


def _tracks(ruleset: Ruleset, values: SheetValues) -> list[str]:
    out = []
    for track in ruleset.sheet.live.tracks:
        if values.track(track.id) is None:
            continue
        if track.is_wound:
            shape = values.wound_track(track.id)
            if shape is not None:
                state = values.wound_state(track.id)
                out.append(wound_boxes(shape, state, checks=track.id == penalty_track(ruleset)))
        else:
            low, high = values.track_bounds(track.id)
            out.append(bar("track", track.label, values.track_value(track.id), low, high))
    return out


def _pairs(rows: list[tuple[str, str]], css: str) -> str:
    if not rows:
        return ""
    items = "".join(f"<dt>{esc(k)}</dt><dd>{esc(v)}</dd>" for k, v in rows)
    return f'<dl class="{css}">{items}</dl>'


def _live(ruleset: Ruleset, values: SheetValues, entry: LiveEntry) -> str:
    live = ruleset.sheet.live
    parts = _pool_bars(character_pools(values), entry) + _tracks(ruleset, values)
    states = []
    for state in live.states:
        if values.live_state(state.id) is not None:
            current = values.state_value(state.id)
            states.append((state.label, (state.value_labels or {}).get(current, current)))
    parts.append(_pairs(states, "states"))
    if live.conditions:
        labels = {c.id: c.label for c in live.conditions}
        on = [labels[c] for c in entry.conditions if c in labels]
        chips = "".join(f'<li class="chip">{esc(c)}</li>' for c in on)
        body = f'<ul class="chips">{chips}</ul>' if on else '<span class="none">none</span>'
        parts.append(
            f'<div class="conditions"><span class="bar-label">Conditions</span>{body}</div>'
        )
    notes = {t.id: t.label for t in live.text}
    parts.append(
        _pairs([(notes[k], v) for k, v in entry.text.items() if k in notes and v], "notes")
    )
    return "".join(parts)


def character_html(ruleset: Ruleset, snapshot: Snapshot, name: str, key: str, index: int) -> str:
    """One character: the GM block's lines, then the live values drawn."""
    card = snapshot.game_character_cards.get(name)
    entry = snapshot.ruleset_live.get(key) or LiveEntry()
    values = SheetValues(ruleset, card, entry)
    lines = [
        line for line in character_block(ruleset, snapshot, name)[1:] if not line.startswith(_NOW)
    ]
    block = "".join(f"<li>{esc(line.strip())}</li>" for line in lines)
    heading = f"character-{index}"
    return (
        f'<section class="card character" aria-labelledby="{heading}" data-character="{esc(name)}">'
        f'<h3 id="{heading}">{esc(name)}</h3>'
        + (f'<ul class="gm-block">{block}</ul>' if block else "")
        + f'<div class="live">{_live(ruleset, values, entry)}</div></section>'
    )


def _party_lists(ruleset: Ruleset, snapshot: Snapshot) -> str:
    party = ruleset.party
    stored = snapshot.game_party_sheet.lists if snapshot.game_party_sheet else {}
    out = []
    for sheet_list in party.lists if party is not None else ():
        rows = [row for row in stored.get(sheet_list.id, []) if isinstance(row, dict)]
        head = "".join(f'<th scope="col">{esc(c.label)}</th>' for c in sheet_list.columns)
        body = "".join(
            "<tr>"
            + "".join(f"<td>{esc(_cell(row.get(c.id)))}</td>" for c in sheet_list.columns)
            + "</tr>"
            for row in rows
        )
        if not body:
            body = f'<tr><td colspan="{len(sheet_list.columns)}" class="none">none yet</td></tr>'
        out.append(
            f'<table class="party-list"><caption>{esc(sheet_list.label)}</caption>'
            f"<thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"
        )
    return "".join(out)


def _cell(value: object) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, int | float):
        return number(value)
    return str(value)


def party_html(ruleset: Ruleset, snapshot: Snapshot) -> str:
    """The shared party sheet (002, "Ficha de grupo"): fields, lists, pools; empty without one."""
    party = ruleset.party
    if party is None:
        return ""
    values = PartyValues(ruleset, party, snapshot)
    fields = [
        (field.label, _cell(values.field(field.id)))
        for field in party.fields
        if not values.hidden(field.hide_when) and values.field(field.id) not in ("", None)
    ]
    entry = snapshot.ruleset_live.get(PARTY_KEY) or LiveEntry()
    pools = "".join(_pool_bars(values.pools(), entry))
    text = f'<p class="party-text">{esc(party.text)}</p>' if party.text else ""
    return (
        '<section class="card party" aria-labelledby="party-heading">'
        f'<h3 id="party-heading">{esc(party.label)} <span class="tag">party</span></h3>'
        f"{_pairs(fields, 'fields')}{_party_lists(ruleset, snapshot)}"
        f'<div class="live">{pools}</div>{text}</section>'
    )


def _point(radius: float, turn: float) -> str:
    angle = 2 * math.pi * turn - math.pi / 2
    return f"{50 + radius * math.cos(angle):.2f} {50 + radius * math.sin(angle):.2f}"


def clock_svg(clock: Clock) -> str:
    """A clock as a circle of `size` segments, `filled` of them shaded (002, clocks)."""
    filled = min(clock.filled, clock.size)
    segments = []
    for index in range(clock.size):
        start, end = index / clock.size, (index + 1) / clock.size
        path = f"M50 50 L{_point(46, start)} A46 46 0 0 1 {_point(46, end)} Z"
        state = "filled" if index < filled else "empty"
        segments.append(f'<path class="segment {state}" d="{path}"/>')
    said = f"{clock.name}: {filled} of {clock.size} filled" + (
        " (full)" if filled == clock.size else ""
    )
    return (
        f'<figure class="clock" data-clock="{esc(clock.name)}" data-size="{clock.size}"'
        f' data-filled="{filled}">'
        f'<svg viewBox="0 0 100 100" role="img" aria-label="{esc(said)}">{"".join(segments)}</svg>'
        f'<figcaption><span class="clock-name">{esc(clock.name)}</span> '
        f'<span class="clock-fill">{filled}/{clock.size}</span></figcaption></figure>'
    )


def clocks_html(ruleset: Ruleset, snapshot: Snapshot) -> str:
    """Every clock of the snapshot; empty when the ruleset has no clocks and none is running."""
    if ruleset.clocks is None and not snapshot.ruleset_clocks:
        return ""
    clocks = "".join(clock_svg(clock) for clock in snapshot.ruleset_clocks)
    body = f'<div class="clocks">{clocks}</div>' if clocks else '<p class="none">No clocks yet.</p>'
    return (
        '<section class="card" aria-labelledby="clocks-heading">'
        f'<h3 id="clocks-heading">Clocks</h3>{body}</section>'
    )


def state_html(ruleset: Ruleset, snapshot: Snapshot) -> str:
    """The whole state: the characters, the party sheet, the clocks."""
    members = party_members(snapshot)
    characters = "".join(
        character_html(ruleset, snapshot, member.name, member.key, index)
        for index, member in enumerate(members, start=1)
    )
    if not characters:
        characters = '<p class="none">No characters yet.</p>'
    return characters + party_html(ruleset, snapshot) + clocks_html(ruleset, snapshot)
